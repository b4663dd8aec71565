@testable import EmulatorClient
import Testing

@Suite struct DatabaseKeepAliveTests {
    @Test func anIdleConnectionSendsKeepAlivesAndStaysOpen() async throws {
        try await withDatabase { db in
            db.connection.setKeepAlive(seconds: 1)
            try await db.reference().child("k").onDisconnectSetValue(1)
            // Three quiet periods: the client sends `0` each time; the server must not close.
            try await Task.sleep(for: .milliseconds(3_300))
            try await db.reference().child("k").onDisconnectSetValue(2)
            #expect(db.webSocketConnectionCount == 1)
            #expect(db.connection.keepAliveCount >= 2)
            db.goOffline()
            let other = otherClient(of: db)
            #expect(try await eventually { try await other.reference().child("k").getData().value as? Int == 2 })
        }
    }
}
