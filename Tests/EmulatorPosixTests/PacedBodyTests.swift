import EmulatorHTTP
import Glibc
import Synchronization
import Testing

@testable import EmulatorPosix

/// A paced body (`HTTPStreamBody(paced:)`) is made as the peer reads it.
@Suite(.serialized) struct PacedBodyTests {
    static let pieceBytes = 64 * 1024
    static let pieces = 1024  // 64 MiB in all

    /// A client that reads nothing holds what the kernel buffers plus about one piece; once it
    /// reads, every piece arrives, chunked, and the connection serves the next request.
    @Test func aClientThatDoesNotReadStopsTheProducer() throws {
        let made = Atomic<Int>(0)
        var router = Router()
        router.add(.get, "/paced") { _ in
            HTTPResponse(stream: HTTPStreamBody(paced: {
                let index = made.add(1, ordering: .relaxed).newValue
                let piece = [UInt8](repeating: UInt8(ascii: "a") + UInt8(index % 26), count: Self.pieceBytes)
                return index == Self.pieces ? .end(piece) : .more(piece)
            }))
        }
        router.add(.get, "/small") { _ in HTTPResponse(body: Array("ok".utf8)) }
        try HTTPServer.withServer(
            ServerConfiguration(host: "127.0.0.1", port: 0), handler: router.respond(to:), gracePeriod: .milliseconds(200)
        ) { server in
            let client = try #require(RawClient(port: server.port))
            var small: Int32 = 64 * 1024
            setsockopt(client.fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
            client.send("GET /paced HTTP/1.1\r\nHost: x\r\n\r\nGET /small HTTP/1.1\r\nHost: x\r\n\r\n")
            usleep(300_000)
            let whileUnread = made.load(ordering: .relaxed)
            #expect(whileUnread >= 1)
            // Before: the whole body was made and queued at once (1,024 pieces).
            #expect(whileUnread <= 256, "\(whileUnread) of \(Self.pieces) pieces made for a client that reads nothing")

            let head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".utf8.count
            let chunk = "10000\r\n".utf8.count + Self.pieceBytes + 2
            let expected = head + Self.pieces * chunk + "0\r\n\r\n".utf8.count
            while client.buffer.count < expected, client.readSome() {}
            #expect(client.buffer.count >= expected)
            #expect(made.load(ordering: .relaxed) == Self.pieces)
            #expect(String(decoding: client.buffer.prefix(head), as: UTF8.self).contains("chunked"))
            let last = client.buffer[(expected - 5 - 2 - Self.pieceBytes)..<(expected - 5 - 2)]
            #expect(last.allSatisfy { $0 == UInt8(ascii: "a") + UInt8(Self.pieces % 26) })
            #expect(client.buffer[(expected - 5)..<expected].elementsEqual("0\r\n\r\n".utf8))
            // The request pipelined behind the body is answered after it.
            while !client.text.hasSuffix("ok"), client.readSome() {}
            #expect(client.text.hasSuffix("\r\n\r\nok"))
        }
    }
}
