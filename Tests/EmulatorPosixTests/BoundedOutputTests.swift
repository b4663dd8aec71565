import EmulatorHTTP
import EmulatorSupport
import EmulatorTestSupport
import Glibc
import Synchronization
import Testing

@testable import EmulatorPosix

/// What a peer that does not read can make the server hold stays bounded.
@Suite(.serialized) struct BoundedOutputTests {
    /// Before: every pipelined request was answered at once into the connection's outbound
    /// buffer (40 × 1 MiB held for a client that never reads). Now requests wait while more
    /// than 1 MiB is unsent, and are served once the client reads.
    @Test func pipelinedRequestsWaitWhileResponsesAreUnread() throws {
        let handled = Atomic<Int>(0)
        let body = [UInt8](repeating: UInt8(ascii: "v"), count: 1 << 20)
        var router = Router()
        router.add(.get, "/big") { _ in
            handled.add(1, ordering: .relaxed)
            return HTTPResponse(status: .ok, body: body)
        }
        try HTTPServer.withServer(
            ServerConfiguration(host: "127.0.0.1", port: 0), handler: router.respond(to:), gracePeriod: .milliseconds(200)
        ) { server in
            let client = try #require(RawClient(port: server.port))
            var small: Int32 = 64 * 1024
            setsockopt(client.fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
            client.send(String(repeating: "GET /big HTTP/1.1\r\nHost: x\r\n\r\n", count: 40))
            usleep(300_000)
            let whileUnread = handled.load(ordering: .relaxed)
            #expect(whileUnread >= 1)
            // Kernel buffers take a few responses; the rest must wait.
            #expect(whileUnread <= 12, "\(whileUnread) of 40 answered for a client that reads nothing")
            for i in 0..<40 {
                guard let response = client.responseBytes() else {
                    Issue.record("response \(i) missing")
                    return
                }
                #expect(response.body.count == body.count)
            }
            #expect(handled.load(ordering: .relaxed) == 40)
        }
    }

    /// Before: a Server-Sent Events subscriber that never reads kept every event queued for it.
    @Test func aStreamSubscriberThatDoesNotReadIsClosedAndLogged() throws {
        let writers = Watched<[any HTTPStreamWriter]>([])
        var router = Router()
        router.add(.get, "/events") { _ in
            HTTPResponse(headers: ServerSentEvent.responseHeaders, stream: HTTPStreamBody { writer in writers.update { $0.append(writer) } })
        }
        let memory = MemoryLogHandler()
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.maxStreamBacklogBytes = 4 << 20
        configuration.logger = Logger(label: "test", handler: memory)
        try HTTPServer.withServer(configuration, handler: router.respond(to:), gracePeriod: .milliseconds(200)) { server in
            let client = try #require(RawClient(port: server.port))
            var small: Int32 = 64 * 1024
            setsockopt(client.fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
            client.send("GET /events HTTP/1.1\r\n\r\n")
            #expect(client.readUntil("\r\n\r\n"))
            writers.wait(seconds: 5) { !$0.isEmpty }
            let writer = try #require(writers.current.first)
            let event = Array("data: \(String(repeating: "x", count: 1 << 20))\n\n".utf8)
            // Past 4 MiB unsent and a second without the peer taking a byte, it is dropped.
            var accepted = 0
            for _ in 0..<64 where writer.write(event) {
                accepted += 1
                usleep(50_000)
            }
            for _ in 0..<500 where server.connectionCount > 0 { usleep(1000) }
            #expect(server.connectionCount == 0)
            #expect(accepted < 40, "\(accepted) MiB were queued for a peer that reads nothing")
            #expect(!writer.isOpen)
            #expect(memory.records.contains { $0.level == .warning && $0.message.contains("not reading") })
        }
    }

    /// A subscriber that reads keeps a first snapshot larger than the limit.
    @Test func aReadingSubscriberGetsAnEventLargerThanTheLimit() throws {
        let writers = Watched<[any HTTPStreamWriter]>([])
        var router = Router()
        router.add(.get, "/events") { _ in
            HTTPResponse(headers: ServerSentEvent.responseHeaders, stream: HTTPStreamBody { writer in writers.update { $0.append(writer) } })
        }
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.maxStreamBacklogBytes = 256 << 10
        try HTTPServer.withServer(configuration, handler: router.respond(to:), gracePeriod: .milliseconds(200)) { server in
            let client = try #require(RawClient(port: server.port))
            client.send("GET /events HTTP/1.1\r\n\r\n")
            #expect(client.readUntil("\r\n\r\n"))
            writers.wait(seconds: 5) { !$0.isEmpty }
            let writer = try #require(writers.current.first)
            let event = Array("data: \(String(repeating: "y", count: 2 << 20))\n\nevent: end\n".utf8)
            #expect(writer.write(event))
            client.clear()
            while client.buffer.count < event.count, client.readSome() {}
            #expect(client.buffer.count >= event.count)
            #expect(client.text.contains("event: end"))
            #expect(server.connectionCount == 1)
        }
    }
}
