import EmulatorHTTP
import Testing

@Suite struct AdminOriginCheckTests {
    static let loopback = [
        "http://localhost", "http://localhost:3000", "https://LOCALHOST:8443", "http://app.localhost:5173",
        "http://127.0.0.1", "http://127.0.0.1:4000", "http://127.1.2.3:9099", "http://[::1]", "http://[::1]:5000",
    ]
    static let foreign = [
        "https://evil.example", "http://localhost.evil.example", "http://127.0.0.1.evil.example", "http://evil.example:80",
        "null", "file://", "chrome-extension://abc", "http://[::2]", "http://0.0.0.0:4000", "http://192.168.1.5:3000",
        "http://127.0.0.256", "http://127.0.0", "http://localhost:abc", "http://localhost/path", "http://user@localhost",
        "http://.localhost", "",
    ]

    @Test(arguments: loopback)
    func loopbackOriginsPass(origin: String) {
        #expect(AdminOriginCheck.isLoopbackOrigin(origin))
        #expect(AdminOriginCheck.permits(HTTPRequest(method: .put, target: "/", headers: HTTPHeaders([("Origin", origin)]))))
    }

    @Test(arguments: foreign)
    func otherOriginsAreRefused(origin: String) {
        #expect(!AdminOriginCheck.isLoopbackOrigin(origin))
        #expect(!AdminOriginCheck.permits(HTTPRequest(method: .put, target: "/", headers: HTTPHeaders([("Origin", origin)]))))
    }

    /// Tools, SDKs outside browsers and scripts send no `Origin`.
    @Test func requestsWithoutOriginPass() {
        #expect(AdminOriginCheck.permits(HTTPRequest(method: .delete, target: "/")))
    }
}
