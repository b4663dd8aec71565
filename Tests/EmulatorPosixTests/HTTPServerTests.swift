import EmulatorHTTP
import EmulatorSupport
import EmulatorTestSupport
import Glibc
import Synchronization
import Testing

@testable import EmulatorPosix

/// Starts a server on an ephemeral loopback port for one test.
private func withServer(
    _ configure: (inout ServerConfiguration) -> Void = { _ in },
    router: Router = echoRouter(),
    _ body: (RunningServer) throws -> Void
) throws {
    var configuration = ServerConfiguration(host: "127.0.0.1", port: 0)
    configure(&configuration)
    try HTTPServer.withServer(configuration, handler: router.respond(to:), gracePeriod: .milliseconds(200), body)
}

/// `/echo` answers with the method, target and body it got.
private func echoRouter() -> Router {
    var router = Router()
    router.add(nil, "/echo/*") { request in
        .text("\(request.method.token) \(request.target) \(String(decoding: request.body, as: UTF8.self))")
    }
    return router
}

@Suite(.serialized) struct HTTPServerTests {
    @Test func keepAliveServesSeveralRequestsOnOneConnection() throws {
        try withServer { server in
            let client = try #require(RawClient(port: server.port))
            for i in 0..<3 {
                client.send("GET /echo/\(i) HTTP/1.1\r\nHost: x\r\n\r\n")
                let response = try #require(client.response())
                #expect(response.head.hasPrefix("HTTP/1.1 200 OK"))
                #expect(response.body == "GET /echo/\(i) ")
            }
            #expect(server.connectionCount == 1)
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        try withServer { server in
            let client = try #require(RawClient(port: server.port))
            client.send(
                "GET /echo/1 HTTP/1.1\r\n\r\nPOST /echo/2 HTTP/1.1\r\nContent-Length: 3\r\n\r\nabcGET /echo/3 HTTP/1.1\r\n\r\n")
            #expect(client.response()?.body == "GET /echo/1 ")
            #expect(client.response()?.body == "POST /echo/2 abc")
            #expect(client.response()?.body == "GET /echo/3 ")
        }
    }

    /// Requests that become readable on many connections at once are answered after the loop has
    /// handled all of them (one run of sends): every connection still gets its own answers, in
    /// order, and one that asked to close is closed after its answer.
    @Test func requestsReadyOnManyConnectionsAtOnceAreEachAnswered() throws {
        final class Flag: Sendable { let value = Atomic<Bool>(false) }
        let released = Flag()
        var router = echoRouter()
        router.add(.get, "/gate") { _ in
            // Holds the loop while the other clients send, so their requests wait together.
            let deadline = MonotonicClock.nanoseconds() + 5_000_000_000
            while !released.value.load(ordering: .acquiring), MonotonicClock.nanoseconds() < deadline { usleep(1_000) }
            return .text("gate")
        }
        try withServer(router: router) { server in
            let gate = try #require(RawClient(port: server.port))
            let clients = try (0..<16).map { _ in try #require(RawClient(port: server.port)) }
            gate.send("GET /gate HTTP/1.1\r\nHost: x\r\n\r\n")
            usleep(50_000)
            for (i, client) in clients.enumerated() {
                switch i % 4 {
                case 0: client.send("GET /echo/\(i)/a HTTP/1.1\r\n\r\nGET /echo/\(i)/b HTTP/1.1\r\n\r\n")
                case 1: client.send("GET /echo/\(i) HTTP/1.1\r\nConnection: close\r\n\r\n")
                default: client.send("POST /echo/\(i) HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi")
                }
            }
            usleep(50_000)
            released.value.store(true, ordering: .releasing)
            #expect(gate.response()?.body == "gate")
            for (i, client) in clients.enumerated() {
                switch i % 4 {
                case 0:
                    #expect(client.response()?.body == "GET /echo/\(i)/a ")
                    #expect(client.response()?.body == "GET /echo/\(i)/b ")
                case 1:
                    let response = try #require(client.response())
                    #expect(response.body == "GET /echo/\(i) ")
                    #expect(response.head.contains("Connection: close"))
                    #expect(client.readUntilEOF())
                default:
                    #expect(client.response()?.body == "POST /echo/\(i) hi")
                }
            }
        }
    }

    @Test func chunkedRequestBody() throws {
        try withServer { server in
            let client = try #require(RawClient(port: server.port))
            client.send("PUT /echo/c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nWiki\r\n")
            client.send("5\r\npedia\r\n0\r\n\r\n")
            #expect(client.response()?.body == "PUT /echo/c Wikipedia")
        }
    }

    @Test func expectContinue() throws {
        try withServer { server in
            let client = try #require(RawClient(port: server.port))
            client.send("PUT /echo/e HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
            #expect(client.readUntil("HTTP/1.1 100 Continue\r\n\r\n"))
            #expect(client.text == "HTTP/1.1 100 Continue\r\n\r\n")
            client.clear()
            client.send("hello")
            #expect(client.response()?.body == "PUT /echo/e hello")
        }
    }

    @Test func oversizedHeadIs431AndCloses() throws {
        try withServer { server in
            let client = try #require(RawClient(port: server.port))
            client.send("GET /echo/x HTTP/1.1\r\nX: " + String(repeating: "a", count: 70_000) + "\r\n\r\n")
            let response = try #require(client.response())
            #expect(response.head.hasPrefix("HTTP/1.1 431 "))
            #expect(response.head.contains("Connection: close"))
            #expect(client.readUntilEOF())
        }
    }

    @Test func oversizedBodyIs413() throws {
        try withServer({ $0.limits.maxBodyBytes = 1000 }) { server in
            let client = try #require(RawClient(port: server.port))
            client.send("POST /echo/x HTTP/1.1\r\nContent-Length: 1001\r\n\r\n" + String(repeating: "b", count: 1001))
            let response = try #require(client.response())
            #expect(response.head.hasPrefix("HTTP/1.1 413 "))
            #expect(client.readUntilEOF())
        }
    }

    @Test func malformedRequestIs400() throws {
        try withServer { server in
            let client = try #require(RawClient(port: server.port))
            client.send("NOT A REQUEST\r\n\r\n")
            #expect(client.response()?.head.hasPrefix("HTTP/1.1 400 ") == true)
        }
    }

    @Test func serverSentEventsArriveOneByOne() throws {
        let writerBox = Watched<(any HTTPStreamWriter)?>(nil)
        let closedCount = Atomic<Int>(0)
        var router = Router()
        router.add(.get, "/events") { _ in
            HTTPResponse(
                headers: ServerSentEvent.responseHeaders,
                stream: HTTPStreamBody { writer in
                    writer.onClose { closedCount.add(1, ordering: .relaxed) }
                    writerBox.update { $0 = writer }
                })
        }
        try withServer(router: router) { server in
            let client = try #require(RawClient(port: server.port))
            client.send("GET /events HTTP/1.1\r\n\r\n")
            #expect(client.readUntil("Transfer-Encoding: chunked\r\n\r\n"))
            client.clear()
            writerBox.wait(seconds: 5) { $0 != nil }
            let stream = try #require(writerBox.current)
            for i in 0..<3 {
                // Written from the test thread, i.e. not the loop thread.
                #expect(stream.write(ServerSentEvent(event: "put", data: "{\"n\":\(i)}").bytes))
                let event = "event: put\ndata: {\"n\":\(i)}\n\n"
                #expect(client.readUntil(event))
                #expect(client.text == String(event.utf8.count, radix: 16) + "\r\n" + event + "\r\n")
                client.clear()
            }
            stream.finish()
            #expect(client.readUntil("0\r\n\r\n"))
            #expect(!stream.isOpen)
            let closes = closedCount.load(ordering: .relaxed)
            #expect(closes == 1)
            // The connection is reusable after the stream ends.
            client.clear()
            client.send("GET /events/none HTTP/1.1\r\n\r\n")
            #expect(client.response()?.head.hasPrefix("HTTP/1.1 404") == true)
        }
    }

    @Test func streamCloseHandlerRunsWhenThePeerLeaves() throws {
        let closed = Watched(false)
        let writerBox = Watched<(any HTTPStreamWriter)?>(nil)
        var router = Router()
        router.add(.get, "/events") { _ in
            HTTPResponse(stream: HTTPStreamBody { writer in
                writer.onClose { closed.update { $0 = true } }
                writerBox.update { $0 = writer }
            })
        }
        try withServer(router: router) { server in
            do {
                let client = try #require(RawClient(port: server.port))
                client.send("GET /events HTTP/1.1\r\n\r\n")
                #expect(client.readUntil("\r\n\r\n"))
            }
            let sawClose = closed.wait(seconds: 5) { $0 }
            #expect(sawClose)
            #expect(writerBox.current?.write([1]) == false)
        }
    }

    @Test func manyStreamsEachGetTheirWrite() throws {
        let writers = Watched<[any HTTPStreamWriter]>([])
        var router = Router()
        router.add(.get, "/events") { _ in
            HTTPResponse(stream: HTTPStreamBody { writer in writers.update { $0.append(writer) } })
        }
        try withServer(router: router) { server in
            var clients: [RawClient] = []
            for _ in 0..<100 {
                let client = try #require(RawClient(port: server.port))
                client.send("GET /events HTTP/1.1\r\n\r\n")
                clients.append(client)
            }
            for client in clients { #expect(client.readUntil("\r\n\r\n")) }
            writers.wait(seconds: 5) { $0.count >= 100 }
            for writer in writers.current { writer.write(Array("data: x\n\n".utf8)) }
            for client in clients { #expect(client.readUntil("data: x\n\n")) }
        }
    }

    @Test func writesFromALoopThreadKeepTheirOrderThroughFullSocketBuffers() throws {
        let writers = Watched<[any HTTPStreamWriter]>([])
        let pieces = (0..<48).map { [UInt8](repeating: 0x41 + UInt8($0 % 26), count: 60_000 + $0) }
        var router = Router()
        router.add(.get, "/events") { _ in
            HTTPResponse(stream: HTTPStreamBody { writer in writers.update { $0.append(writer) } })
        }
        router.add(.post, "/fire") { _ in
            // Runs on a loop thread: streams on this loop are sent to directly until their socket
            // is full, then queued; streams on the other loop are queued for it.
            let all = writers.current
            for piece in pieces {
                for writer in all { writer.write(piece) }
            }
            return .text("fired")
        }
        try withServer(router: router) { server in
            var clients: [RawClient] = []
            for _ in 0..<4 {
                let client = try #require(RawClient(port: server.port))
                client.send("GET /events HTTP/1.1\r\n\r\n")
                #expect(client.readUntil("\r\n\r\n"))
                client.clear()
                clients.append(client)
            }
            writers.wait(seconds: 5) { $0.count >= 4 }
            let trigger = try #require(RawClient(port: server.port))
            trigger.send("POST /fire HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
            #expect(trigger.response()?.body == "fired")
            var expected: [UInt8] = []
            for piece in pieces {
                expected += Array((String(piece.count, radix: 16) + "\r\n").utf8) + piece + Array("\r\n".utf8)
            }
            for client in clients {
                while client.buffer.count < expected.count, client.readSome() {}
                #expect(client.buffer == expected)
            }
        }
    }

    @Test func idleConnectionsAreClosed() throws {
        try withServer({ $0.idleTimeout = .milliseconds(100) }) { server in
            let client = try #require(RawClient(port: server.port))
            client.send("GET /echo/1 HTTP/1.1\r\n\r\n")
            #expect(client.response() != nil)
            #expect(client.readUntilEOF())
        }
    }

    @Test func slowHeadersGet408() throws {
        try withServer({ $0.headerReadTimeout = .milliseconds(100) }) { server in
            let client = try #require(RawClient(port: server.port))
            client.send("GET /echo/1 HTTP/1.1\r\nHost: x\r\n")
            let response = try #require(client.response())
            #expect(response.head.hasPrefix("HTTP/1.1 408 "))
            #expect(client.readUntilEOF())
        }
    }

    @Test func addressInUseIsReported() throws {
        try withServer { server in
            #expect(throws: ServerError.addressInUse(host: "127.0.0.1", port: server.port)) {
                try HTTPServer.start(ServerConfiguration(host: "127.0.0.1", port: server.port), router: Router())
            }
        }
    }

    @Test func invalidHostIsReported() {
        #expect(throws: ServerError.invalidAddress(host: "example.invalid", port: 0)) {
            try HTTPServer.start(ServerConfiguration(host: "example.invalid", port: 0), router: Router())
        }
    }

    @Test func localhostBindsIPv4AndIPv6LiteralsWork() throws {
        try withServer({ $0.host = "localhost" }) { server in
            let client = try #require(RawClient(port: server.port, host: "127.0.0.1"))
            client.send("GET /echo/v4 HTTP/1.1\r\n\r\n")
            #expect(client.response()?.body == "GET /echo/v4 ")
        }
        try withServer({ $0.host = "::1" }) { server in
            let client = try #require(RawClient(port: server.port, host: "::1"))
            client.send("GET /echo/v6 HTTP/1.1\r\n\r\n")
            #expect(client.response()?.body == "GET /echo/v6 ")
        }
    }

    @Test func gracefulShutdownFinishesAndRefusesNewConnections() throws {
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.idleTimeout = .seconds(60)
        let server = try HTTPServer.start(configuration, router: echoRouter())
        let client = try #require(RawClient(port: server.port))
        client.send("GET /echo/1 HTTP/1.1\r\n\r\n")
        #expect(client.response() != nil)
        let started = EventLoop.now()
        server.shutdown(gracePeriod: .seconds(2))
        #expect(EventLoop.now() - started < 1_000_000_000)
        #expect(client.readUntilEOF())
        #expect(server.connectionCount == 0)
        #expect(RawClient(port: server.port) == nil)
    }

    @Test func gracefulShutdownEndsOpenStreams() throws {
        let closed = Atomic<Bool>(false)
        var router = Router()
        router.add(.get, "/events") { _ in
            HTTPResponse(stream: HTTPStreamBody { writer in
                writer.write(Array("data: hello\n\n".utf8))
                writer.onClose { closed.store(true, ordering: .relaxed) }
            })
        }
        let server = try HTTPServer.start(ServerConfiguration(host: "127.0.0.1", port: 0), router: router)
        let client = try #require(RawClient(port: server.port))
        client.send("GET /events HTTP/1.1\r\n\r\n")
        #expect(client.readUntil("data: hello\n\n"))
        server.shutdown(gracePeriod: .seconds(1))
        #expect(client.readUntilEOF())
        #expect(client.text.hasSuffix("\r\n0\r\n\r\n"))
        let sawClose = closed.load(ordering: .relaxed)
        #expect(sawClose)
    }

    @Test func headGetsNoBody() throws {
        try withServer { server in
            let client = try #require(RawClient(port: server.port))
            client.send("HEAD /echo/h HTTP/1.1\r\n\r\nGET /echo/g HTTP/1.1\r\n\r\n")
            #expect(client.readUntil("GET /echo/g "))
            #expect(client.text.hasPrefix("HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 13\r\n\r\nHTTP/1.1 200"))
        }
    }

    @Test func webSocketEchoOverLoopback() throws {
        var router = Router()
        router.add(.get, "/ws") { request in
            WebSocketHandshake.upgrade(request) { writer in
                WebSocketSession(writer: writer, onText: { session, text in session.send(text: "echo " + text) })
            }
        }
        try withServer(router: router) { server in
            let client = try #require(RawClient(port: server.port))
            client.send(
                "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
            #expect(client.readUntil("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n"))
            client.clear()
            client.send(WebSocketFrame(opcode: .text, payload: Array("hi".utf8)).encoded(maskingKey: (1, 2, 3, 4)))
            #expect(client.readUntil("echo hi"))
            #expect(client.buffer == WebSocketFrame(opcode: .text, payload: Array("echo hi".utf8)).encoded())
            client.clear()
            client.send(WebSocketFrame(opcode: .close, payload: [0x03, 0xE8]).encoded(maskingKey: (1, 2, 3, 4)))
            #expect(client.readUntilEOF())
            #expect(client.buffer == WebSocketFrame(opcode: .close, payload: [0x03, 0xE8]).encoded())
        }
    }

    @Test func largeResponseToASlowReaderArrivesWhole() throws {
        let big = [UInt8](repeating: UInt8(ascii: "a"), count: 8 << 20) + Array("end".utf8)
        var router = Router()
        router.add(.get, "/big") { _ in HTTPResponse(body: big) }
        router.add(.get, "/small") { _ in .text("small") }
        try withServer(router: router) { server in
            let client = try #require(RawClient(port: server.port))
            client.send("GET /big HTTP/1.1\r\n\r\nGET /small HTTP/1.1\r\n\r\n")
            usleep(50_000)  // let the server fill the socket buffers and wait for EPOLLOUT
            let first = try #require(client.responseBytes())
            #expect(first.head.contains("Content-Length: 8388611"))
            #expect(first.body == big)
            #expect(client.response()?.body == "small")
        }
    }

    @Test func http2PrefaceWithoutHandlerCloses() throws {
        try withServer { server in
            let client = try #require(RawClient(port: server.port))
            client.send("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
            #expect(client.readUntilEOF())
            #expect(client.buffer.isEmpty)
        }
    }

    @Test func http2PrefaceGoesToTheHandler() throws {
        try withServer({ $0.http2Handler = { writer in EchoHandler(writer: writer) } }) { server in
            let client = try #require(RawClient(port: server.port))
            client.send("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
            #expect(client.readUntil("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"))
            client.clear()
            client.send("more")
            #expect(client.readUntil("more"))
        }
    }

    @Test func upgradeHandsTheConnectionOver() throws {
        var router = Router()
        router.add(.get, "/ws") { _ in
            var headers = HTTPHeaders()
            headers.add("Upgrade", "echo")
            headers.add("Connection", "Upgrade")
            return .switchingProtocols(headers: headers, upgrade: HTTPUpgrade { EchoHandler(writer: $0) })
        }
        try withServer(router: router) { server in
            let client = try #require(RawClient(port: server.port))
            client.send("GET /ws HTTP/1.1\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\nearly")
            #expect(client.readUntil("Connection: Upgrade\r\n\r\nearly"))
            #expect(client.text.hasPrefix("HTTP/1.1 101 Switching Protocols\r\n"))
            client.clear()
            client.send("bye")
            #expect(client.readUntilEOF())
            #expect(client.text == "bye")
        }
    }
}

/// Echoes every byte; closes after "bye".
private struct EchoHandler: UpgradedConnectionHandler {
    let writer: any UpgradedConnectionWriter

    func received(_ bytes: [UInt8]) {
        writer.write(bytes)
        if bytes == Array("bye".utf8) { writer.close() }
    }

    func closed() {}
}
