import EmulatorHTTP
import Glibc
import Testing

@testable import EmulatorPosix

/// `localhost` binds both loopbacks on one port, so clients that resolve it to ::1 first (Node
/// 17 and later, some gRPC stacks) reach the emulator as well as IPv4-only ones.
@Suite(.serialized) struct LocalhostBindingTests {
    private func router() -> Router {
        var router = Router()
        router.add(.get, "/who") { _ in .text("here") }
        return router
    }

    /// Binds a socket on `host` (port 0 = any); returns its descriptor and port, or nil.
    private func probe(_ host: String, port: Int = 0) -> (fd: Int32, port: Int)? {
        try? ListeningSocket.open(host: host, port: port, backlog: 1)
    }

    private func answers(_ host: String, _ port: Int) -> Bool {
        guard let client = RawClient(port: port, host: host) else { return false }
        client.send("GET /who HTTP/1.1\r\nHost: x\r\n\r\n")
        return client.response()?.body == "here"
    }

    @Test func localhostAnswersOnIPv4AndIPv6LoopbackOnTheSamePort() throws {
        let hasIPv6 = probe("::1").map { close($0.fd) } != nil
        try HTTPServer.withServer(ServerConfiguration(host: "localhost", port: 0), handler: router().respond(to:)) { server in
            #expect(answers("127.0.0.1", server.port))
            if hasIPv6 {
                #expect(server.addresses == ["127.0.0.1", "::1"])
                #expect(answers("::1", server.port))
            } else {
                #expect(server.addresses == ["127.0.0.1"])
            }
        }
    }

    @Test func anIPv6PortHeldElsewhereLeavesIPv4Serving() throws {
        // Take a port on ::1 first; localhost then binds only 127.0.0.1 on that port. Another
        // process (tests run in parallel) may hold the same number on 127.0.0.1: then try another.
        var lastError: (any Error)?
        for _ in 0..<5 {
            guard let held = probe("::1") else { return }
            defer { close(held.fd) }
            do {
                try HTTPServer.withServer(ServerConfiguration(host: "localhost", port: held.port), handler: router().respond(to:)) { server in
                    #expect(server.port == held.port)
                    #expect(server.addresses == ["127.0.0.1"])
                    #expect(answers("127.0.0.1", server.port))
                }
                return
            } catch {
                lastError = error
            }
        }
        if let lastError { throw lastError }
    }

    @Test func aLiteralHostBindsOnlyThatAddress() throws {
        try HTTPServer.withServer(ServerConfiguration(host: "127.0.0.1", port: 0), handler: router().respond(to:)) { server in
            #expect(server.addresses == ["127.0.0.1"])
            #expect(!answers("::1", server.port))
        }
    }

    @Test func shutdownFreesBothAddresses() throws {
        var port = 0
        try HTTPServer.withServer(ServerConfiguration(host: "localhost", port: 0), handler: router().respond(to:)) { server in
            port = server.port
        }
        let v4 = probe("127.0.0.1", port: port)
        #expect(v4 != nil)
        if let v4 { close(v4.fd) }
        if let v6 = probe("::1", port: port) { close(v6.fd) } else { #expect(probe("::1") == nil) }
    }
}
