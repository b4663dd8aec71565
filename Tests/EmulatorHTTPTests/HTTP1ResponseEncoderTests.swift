import Testing

@testable import EmulatorHTTP

@Suite struct HTTP1ResponseEncoderTests {
    private func encoded(_ response: HTTPResponse, _ context: HTTP1ResponseEncoder.Context = .init()) -> String {
        var out: [UInt8] = []
        HTTP1ResponseEncoder.encode(response, context: context, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    @Test func textResponseExactBytes() {
        #expect(
            encoded(.text("hi"))
                == "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 2\r\n\r\nhi")
    }

    @Test func closingResponseSaysSo() {
        #expect(
            encoded(HTTPResponse(status: .notFound, body: Array("x".utf8)), .init(close: true))
                == "HTTP/1.1 404 Not Found\r\nContent-Length: 1\r\nConnection: close\r\n\r\nx")
    }

    @Test func keptAliveHTTP10ResponseSaysSo() {
        #expect(
            encoded(HTTPResponse(body: Array("x".utf8)), .init(minorVersion: 0))
                == "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nConnection: keep-alive\r\n\r\nx")
    }

    @Test func headGetsLengthButNoBody() {
        #expect(
            encoded(HTTPResponse(body: Array("hello".utf8)), .init(isHead: true))
                == "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n")
    }

    @Test func noContentHasNoLength() {
        #expect(encoded(HTTPResponse(status: .noContent)) == "HTTP/1.1 204 No Content\r\n\r\n")
    }

    @Test func handlerFramingHeadersAreReplaced() {
        var headers = HTTPHeaders()
        headers.add("Content-Length", "999")
        headers.add("Transfer-Encoding", "chunked")
        headers.add("Connection", "keep-alive")
        headers.add("ETag", "\"1\"")
        #expect(
            encoded(HTTPResponse(headers: headers, body: Array("ab".utf8)))
                == "HTTP/1.1 200 OK\r\nETag: \"1\"\r\nContent-Length: 2\r\n\r\nab")
    }

    @Test func headerValuesCannotSplitTheHead() {
        var headers = HTTPHeaders()
        headers.add("X", "a\r\nInjected: 1")
        #expect(encoded(HTTPResponse(headers: headers)) == "HTTP/1.1 200 OK\r\nX: a  Injected: 1\r\nContent-Length: 0\r\n\r\n")
    }

    @Test func streamHeadIsChunkedAndPiecesAreFramed() {
        var out: [UInt8] = []
        let framing = HTTP1ResponseEncoder.encode(
            HTTPResponse(headers: ServerSentEvent.responseHeaders, stream: HTTPStreamBody { _ in }),
            context: .init(), into: &out)
        #expect(framing == .chunked)
        HTTP1ResponseEncoder.appendBodyPiece(Array("hello".utf8), framing: .chunked, into: &out)
        HTTP1ResponseEncoder.appendBodyPiece([], framing: .chunked, into: &out)
        HTTP1ResponseEncoder.appendBodyPiece(Array(repeating: UInt8(ascii: "x"), count: 26), framing: .chunked, into: &out)
        HTTP1ResponseEncoder.appendBodyEnd(framing: .chunked, into: &out)
        #expect(
            String(decoding: out, as: UTF8.self)
                == "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n1a\r\n" + String(repeating: "x", count: 26)
                + "\r\n0\r\n\r\n")
    }

    @Test func streamToHTTP10IsCloseDelimited() {
        var out: [UInt8] = []
        let framing = HTTP1ResponseEncoder.encode(
            HTTPResponse(stream: HTTPStreamBody { _ in }), context: .init(minorVersion: 0), into: &out)
        #expect(framing == .closeDelimited)
        #expect(String(decoding: out, as: UTF8.self) == "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")
    }

    private func streamHead(
        _ response: HTTPResponse, _ context: HTTP1ResponseEncoder.Context
    ) -> (HTTP1ResponseEncoder.StreamFraming?, String) {
        var out: [UInt8] = []
        let framing = HTTP1ResponseEncoder.encode(response, context: context, into: &out)
        return (framing, String(decoding: out, as: UTF8.self))
    }

    /// Streams and complete bodies share one head writer: the same field filter and cleaning,
    /// each with its own framing lines.
    @Test func streamHeadsReplaceFramingFieldsAndSayWhenTheyClose() {
        var headers = HTTPHeaders()
        headers.add("Content-Length", "5")
        headers.add("Connection", "keep-alive")
        headers.add("X", "a\nb")
        let stream = HTTPResponse(headers: headers, stream: HTTPStreamBody { _ in })
        #expect(streamHead(stream, .init(close: true)) == (.chunked,
            "HTTP/1.1 200 OK\r\nX: a b\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"))
        #expect(streamHead(stream, .init(isHead: true, close: true)) == (.some(.none),
            "HTTP/1.1 200 OK\r\nX: a b\r\nConnection: close\r\n\r\n"))
        #expect(streamHead(stream, .init(isHead: true)) == (.some(.none), "HTTP/1.1 200 OK\r\nX: a b\r\n\r\n"))
        let empty = HTTPResponse(status: .noContent, stream: HTTPStreamBody { _ in })
        #expect(streamHead(empty, .init()) == (.some(.none), "HTTP/1.1 204 No Content\r\n\r\n"))
        #expect(streamHead(empty, .init(minorVersion: 0)) == (.some(.none), "HTTP/1.1 204 No Content\r\n\r\n"))
    }

    @Test func unusualStatusesAndLongHeadsAreWrittenWhole() {
        var headers = HTTPHeaders()
        let long = String(repeating: "v", count: 5_000)
        headers.add("X-Long", long)
        let response = HTTPResponse(status: HTTPStatus(1_234_567, "Odd Reason"), headers: headers, body: [1])
        #expect(encoded(response) == "HTTP/1.1 1234567 Odd Reason\r\nX-Long: \(long)\r\nContent-Length: 1\r\n\r\n\u{1}")
        let stream = HTTPResponse(status: HTTPStatus(299, "Fine"), headers: headers, stream: HTTPStreamBody { _ in })
        #expect(streamHead(stream, .init(minorVersion: 0)) == (.closeDelimited,
            "HTTP/1.1 299 Fine\r\nX-Long: \(long)\r\nConnection: close\r\n\r\n"))
    }

    @Test func upgradeKeepsConnectionHeader() {
        var headers = HTTPHeaders()
        headers.add("Upgrade", "websocket")
        headers.add("Connection", "Upgrade")
        let response = HTTPResponse.switchingProtocols(headers: headers, upgrade: HTTPUpgrade { _ in NoHandler() })
        #expect(
            encoded(response)
                == "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
        var withLength = headers
        withLength.add("Content-Length", "0")
        let noLength = HTTPResponse.switchingProtocols(headers: withLength, upgrade: HTTPUpgrade { _ in NoHandler() })
        #expect(encoded(noLength) == encoded(response))
    }

    @Test(arguments: [(0, "0"), (9, "9"), (10, "10"), (1234567, "1234567"), (-42, "-42")])
    func decimal(value: Int, text: String) {
        var out: [UInt8] = []
        HTTP1ResponseEncoder.appendDecimal(value, into: &out)
        #expect(String(decoding: out, as: UTF8.self) == text)
    }

    @Test(arguments: [(0, "0"), (15, "f"), (16, "10"), (4096, "1000"), (0xABCDE, "abcde")])
    func hex(value: Int, text: String) {
        var out: [UInt8] = []
        HTTP1ResponseEncoder.appendHex(value, into: &out)
        #expect(String(decoding: out, as: UTF8.self) == text)
    }
}

struct NoHandler: UpgradedConnectionHandler {
    func received(_ bytes: [UInt8]) {}
    func closed() {}
}
