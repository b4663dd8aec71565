import EmulatorHTTP
import EmulatorTestSupport
import Glibc
import Synchronization
import Testing

@testable import EmulatorPosix

/// Deferred responses the handler parked; the test completes them from its own thread.
private final class Parking: Sendable {
    private let parked = Watched<[(target: String, deferred: HTTPDeferredResponse)]>([])

    func park(_ target: String) -> HTTPDeferredResponse {
        let deferred = HTTPDeferredResponse()
        parked.update { $0.append((target, deferred)) }
        return deferred
    }

    /// Waits (up to 2 s) until `count` responses are parked.
    func waitFor(_ count: Int) -> Bool {
        parked.wait(seconds: 2) { $0.count >= count }
    }

    /// Completes the parked response of `target` with a text body naming it.
    func complete(_ target: String) {
        let entry = parked.current.first { $0.target == target }
        entry?.deferred.complete(.text("done \(target)"))
    }

    func completeAll() {
        for entry in parked.current { entry.deferred.complete(.text("done \(entry.target)")) }
    }
}

/// `/defer/*` parks a deferred response; `/echo/*` answers at once.
private func withDeferringServer(_ body: (RunningServer, Parking) throws -> Void) throws {
    let parking = Parking()
    var router = Router()
    router.add(nil, "/defer/*") { request in .deferred(parking.park(request.target)) }
    router.add(nil, "/echo/*") { request in .text("echo \(request.target)") }
    defer { parking.completeAll() }
    try HTTPServer.withServer(
        ServerConfiguration(host: "127.0.0.1", port: 0), handler: router.respond(to:), gracePeriod: .milliseconds(200)
    ) { server in try body(server, parking) }
}

@Suite(.serialized) struct DeferredResponseTests {
    @Test func pipelinedRequestsBehindADeferredResponseAreAnsweredInOrder() throws {
        try withDeferringServer { server, parking in
            let client = try #require(RawClient(port: server.port))
            client.send("GET /defer/1 HTTP/1.1\r\n\r\nGET /echo/2 HTTP/1.1\r\n\r\nGET /defer/3 HTTP/1.1\r\n\r\n")
            #expect(parking.waitFor(1))
            // Nothing may overtake the pending first response.
            #expect(!client.readSome(timeoutMs: 100))
            parking.complete("/defer/1")
            #expect(client.response()?.body == "done /defer/1")
            #expect(client.response()?.body == "echo /echo/2")
            #expect(parking.waitFor(2))
            parking.complete("/defer/3")
            #expect(client.response()?.body == "done /defer/3")
            // Keep-alive: the connection serves more requests afterwards.
            client.send("GET /echo/4 HTTP/1.1\r\n\r\n")
            #expect(client.response()?.body == "echo /echo/4")
            #expect(server.connectionCount == 1)
        }
    }

    @Test func otherConnectionsAreServedWhileResponsesArePending() throws {
        try withDeferringServer { server, parking in
            // More pending connections than event loops: none of the loops may be stuck.
            var pending: [RawClient] = []
            for i in 0..<4 {
                let client = try #require(RawClient(port: server.port))
                client.send("GET /defer/\(i) HTTP/1.1\r\n\r\n")
                pending.append(client)
            }
            #expect(parking.waitFor(4))
            for i in 0..<4 {
                let client = try #require(RawClient(port: server.port))
                client.send("GET /echo/\(i) HTTP/1.1\r\n\r\n")
                #expect(client.response()?.body == "echo /echo/\(i)")
            }
            // Completed from this (foreign) thread, in reverse order: each reaches its connection.
            for i in (0..<4).reversed() { parking.complete("/defer/\(i)") }
            for (i, client) in pending.enumerated() {
                #expect(client.response()?.body == "done /defer/\(i)")
            }
        }
    }

    @Test func completionAfterTheConnectionClosedIsDropped() throws {
        try withDeferringServer { server, parking in
            do {
                let client = try #require(RawClient(port: server.port))
                client.send("GET /defer/gone HTTP/1.1\r\n\r\n")
                #expect(parking.waitFor(1))
                // Abortive close (RST), so the server sees the peer gone for good.
                var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
                setsockopt(client.fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
            }
            var closed = false
            for _ in 0..<400 where !closed {
                closed = server.connectionCount == 0
                if !closed { usleep(5_000) }
            }
            #expect(closed)
            parking.complete("/defer/gone")
            // The server is unharmed and keeps serving.
            let next = try #require(RawClient(port: server.port))
            next.send("GET /echo/after HTTP/1.1\r\n\r\n")
            #expect(next.response()?.body == "echo /echo/after")
        }
    }

    @Test func connectionCloseIsHonouredAfterTheDeferredResponse() throws {
        try withDeferringServer { server, parking in
            let client = try #require(RawClient(port: server.port))
            client.send("GET /defer/last HTTP/1.1\r\nConnection: close\r\n\r\nGET /echo/ignored HTTP/1.1\r\n\r\n")
            #expect(parking.waitFor(1))
            parking.complete("/defer/last")
            #expect(client.readUntilEOF())
            let response = try #require(client.response())
            #expect(response.head.contains("Connection: close"))
            #expect(response.body == "done /defer/last")
            #expect(client.response() == nil)
        }
    }

    @Test func halfClosedPeerStillGetsItsDeferredResponse() throws {
        try withDeferringServer { server, parking in
            let client = try #require(RawClient(port: server.port))
            client.send("GET /defer/half HTTP/1.1\r\n\r\n")
            shutdown(client.fd, Int32(SHUT_WR))
            #expect(parking.waitFor(1))
            usleep(50_000)
            parking.complete("/defer/half")
            #expect(client.readUntilEOF())
            #expect(client.response()?.body == "done /defer/half")
        }
    }

    @Test func aResponseCompletedBeforeTheHandlerReturnsIsSentAtOnce() throws {
        var router = Router()
        router.add(nil, "/ready") { _ in
            let deferred = HTTPDeferredResponse()
            deferred.complete(.text("ready"))
            return .deferred(deferred)
        }
        try HTTPServer.withServer(
            ServerConfiguration(host: "127.0.0.1", port: 0), handler: router.respond(to:), gracePeriod: .milliseconds(200)
        ) { server in
            let client = try #require(RawClient(port: server.port))
            client.send("GET /ready HTTP/1.1\r\n\r\nGET /ready HTTP/1.1\r\n\r\n")
            #expect(client.response()?.body == "ready")
            #expect(client.response()?.body == "ready")
        }
    }

    @Test func gracefulShutdownWaitsForAPendingResponseAndClosesAfterIt() throws {
        let parking = Parking()
        var router = Router()
        router.add(nil, "/defer/*") { request in .deferred(parking.park(request.target)) }
        let server = try HTTPServer.start(ServerConfiguration(host: "127.0.0.1", port: 0), handler: router.respond(to:))
        let client = try #require(RawClient(port: server.port))
        client.send("GET /defer/drain HTTP/1.1\r\n\r\n")
        #expect(parking.waitFor(1))
        let completer = ForeignThread { usleep(100_000); parking.complete("/defer/drain") }
        server.shutdown(gracePeriod: .seconds(2))
        completer.join()
        #expect(client.readUntilEOF())
        let response = try #require(client.response())
        #expect(response.body == "done /defer/drain")
        #expect(response.head.contains("Connection: close"))
    }
}

/// A plain pthread for completing from a foreign thread while the test thread blocks.
private final class ForeignThread: Sendable {
    private let thread: Mutex<pthread_t?> = Mutex(nil)

    init(_ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Body(body)).toOpaque()
        var handle = pthread_t()
        if pthread_create(&handle, nil, { raw in
            guard let raw else { return nil }
            Unmanaged<Body>.fromOpaque(raw).takeRetainedValue().run()
            return nil
        }, box) == 0 {
            thread.withLock { $0 = handle }
        }
    }

    func join() {
        if let handle = thread.withLock({ $0 }) { pthread_join(handle, nil) }
    }

    private final class Body: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
}
