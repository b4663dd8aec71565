import DatabaseEmulator
import EmulatorHTTP
import EmulatorStorage
import EmulatorSupport
import Synchronization
import Testing

/// A read's `timeout`: a GET that does not finish in time ends with a 400.
@Suite struct ReadTimeoutTests {
    /// A clock that moves 2 ms every time it is read.
    final class SteppingClock: Sendable {
        private let value = Mutex<Int64>(0)
        func read() -> Int64 { value.withLock { $0 += 2_000_000; return $0 } }
    }

    func client(clock: SteppingClock) -> InProcessClient {
        let emulator = DatabaseEmulator(
            storage: StorageEngine(),
            configuration: DatabaseEmulatorConfiguration(
                defaultNamespace: "t", keepAliveSeconds: nil, monotonicNanos: { clock.read() }))
        return InProcessClient(router: emulator.router)
    }

    func send(_ client: InProcessClient, _ method: HTTPMethod, _ target: String, _ body: String = "") -> HTTPResponse {
        client.send(HTTPRequest(method: method, target: target, body: Array(body.utf8)))
    }

    @Test func aReadThatOutlivesItsTimeoutIs400() {
        let client = client(clock: SteppingClock())
        #expect(send(client, .put, "/a.json", #"{"b":{"c":1},"d":2}"#).status.code == 200)
        let slow = send(client, .get, "/a.json?timeout=3ms")
        #expect(slow.status.code == 400)
        #expect(errorText(slow) == "The read did not finish within the requested timeout.")
        #expect(send(client, .get, "/a.json?timeout=1s").status.code == 200)
        #expect(send(client, .get, "/a.json").status.code == 200)
        // Writes ignore it.
        #expect(send(client, .put, "/a.json?timeout=1ms", "1").status.code == 200)
    }

    @Test func aRealTimeoutOverABigTree() {
        let db = DatabaseTestClient()
        let body = "{" + (0..<20_000).map { "\"k\($0)\":{\"v\":\($0),\"s\":\"text \($0)\"}" }.joined(separator: ",") + "}"
        #expect(db.put("/big.json?ns=t", body).status.code == 200)
        // Building and encoding 40,000 leaves takes far longer than 1 ms.
        let r = db.get("/big.json?ns=t&timeout=1ms")
        #expect(r.status.code == 400)
        #expect(db.get("/big.json?ns=t&timeout=1min").status.code == 200)
    }
}
