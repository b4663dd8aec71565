@testable import EmulatorClient
import Testing

@Suite struct TransportTests {
    private func parse(_ text: String, splitEvery step: Int, streaming: Bool = false) throws -> HTTPResponseParser {
        var parser = HTTPResponseParser(streaming: streaming)
        let bytes = Array(text.utf8)
        var i = 0
        while i < bytes.count {
            try parser.feed(bytes[i..<min(i + step, bytes.count)])
            i += step
        }
        return parser
    }

    @Test(arguments: [1, 3, 1000])
    func contentLengthBodyArrivesWhateverTheSplit(_ step: Int) throws {
        let p = try parse("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nETag: abc\r\n\r\nhello", splitEvery: step)
        #expect(p.isComplete)
        #expect(p.response.status == 200)
        #expect(p.response.header("etag") == "abc")
        #expect(p.response.text == "hello")
    }

    @Test(arguments: [1, 7, 1000])
    func chunkedBodyIsJoined(_ step: Int) throws {
        let p = try parse(
            "HTTP/1.1 412 Precondition Failed\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nnull\r\nA;x=y\r\n0123456789\r\n0\r\n\r\n",
            splitEvery: step)
        #expect(p.isComplete)
        #expect(p.response.status == 412)
        #expect(p.response.text == "null0123456789")
    }

    @Test func incompleteChunkedBodyIsNotComplete() throws {
        let p = try parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nnu", splitEvery: 100)
        #expect(!p.isComplete)
    }

    @Test func garbageStatusLineIsRejected() {
        #expect(throws: HTTPResponseParser.Failure.self) { try parse("SPDY/9 what\r\n\r\n", splitEvery: 100) }
        #expect(throws: HTTPResponseParser.Failure.self) {
            try parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", splitEvery: 100)
        }
    }

    @Test func streamingHandsOutChunksAsTheyArrive() throws {
        var p = HTTPResponseParser(streaming: true)
        try p.feed(Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nevent:".utf8)[...])
        #expect(String(decoding: p.takeStreamBytes(), as: UTF8.self) == "event:")
        try p.feed(Array("\r\n4\r\n put\r\n".utf8)[...])
        #expect(String(decoding: p.takeStreamBytes(), as: UTF8.self) == " put")
        #expect(!p.isComplete)
    }

    @Test(arguments: [
        ("http://127.0.0.1:9000?ns=demo-default-rtdb", "demo-default-rtdb"),
        ("https://my-app.firebaseio.com", "my-app"),
        ("http://localhost:9000", "localhost"),
    ])
    func databaseNamespaceComesFromNsOrTheFirstHostLabel(_ url: String, _ namespace: String) {
        #expect(Database(url: url).namespace == namespace)
    }

    @Test func autoIDsAreTwentyAlphanumericCharacters() {
        let ids = (0..<50).map { _ in CollectionReference.autoID() }
        #expect(ids.allSatisfy { $0.count == 20 && $0.allSatisfy { $0.isLetter || $0.isNumber } })
        #expect(Set(ids).count == 50)
    }
}
