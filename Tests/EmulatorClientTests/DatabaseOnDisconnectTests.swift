import EmulatorClient
import EmulatorSuite
import Foundation
import Synchronization
import Testing

/// Polls `condition` for up to 5 s.
func eventually(_ condition: () async throws -> Bool) async throws -> Bool {
    for _ in 0..<250 {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(20))
    }
    return false
}

/// onDisconnect over the WebSocket protocol: the server keeps the operations and runs them when
/// this client's connection closes, however it closes.
@Suite(.serialized) struct DatabaseOnDisconnectTests {
    /// {"alg":"none","type":"JWT"} . {"sub":"alice","user_id":"alice"} . (no signature)
    static let aliceToken = "eyJhbGciOiJub25lIiwidHlwZSI6IkpXVCJ9.eyJzdWIiOiJhbGljZSIsInVzZXJfaWQiOiJhbGljZSJ9."

    @Test func setUpdateAndRemoveRunWhenTheSocketDrops() async throws {
        try await withDatabase { db in
            let root = db.reference()
            try await root.child("presence/ada").setValue(true)
            try await root.child("presence/ada").onDisconnectRemoveValue()
            try await root.child("lastSeen/ada").onDisconnectSetValue(ServerValue.timestamp())
            try await root.child("status/ada").onDisconnectUpdateChildValues(["state": "offline", "device/name": "phone"])
            // Acknowledged, queued, not run.
            #expect(try await root.child("presence/ada").getData().value as? Bool == true)
            #expect(try await !root.child("lastSeen/ada").getData().exists())

            db.simulateConnectionLoss()
            // The server runs them in order: once the last has run, so have the others.
            #expect(try await eventually { try await root.child("status/ada/state").getData().exists() })
            #expect(try await !root.child("presence/ada").getData().exists())
            let status = try await root.child("status/ada").getData()
            #expect(status.childSnapshot(forPath: "state").value as? String == "offline")
            #expect(status.childSnapshot(forPath: "device/name").value as? String == "phone")
            let seen = try #require(try await root.child("lastSeen/ada").getData().value as? Int)
            #expect(abs(Double(seen) / 1000 - Date().timeIntervalSince1970) < 60)
        }
    }

    @Test func operationsRunOnceAndTheConnectionComesBack() async throws {
        try await withDatabase { db in
            let flag = db.reference().child("flag")
            try await flag.onDisconnectSetValue("dropped")
            db.simulateConnectionLoss()
            #expect(try await eventually { try await flag.getData().value as? String == "dropped" })
            try await flag.setValue("back")
            // The next call reconnects (with backoff) and is acknowledged on the new socket.
            try await db.reference().child("other").onDisconnectSetValue("second")
            #expect(db.webSocketConnectionCount == 2)
            db.simulateConnectionLoss()
            #expect(try await eventually { try await db.reference().child("other").getData().value as? String == "second" })
            #expect(try await flag.getData().value as? String == "back")
        }
    }

    @Test func aCallMadeAsTheSocketDropsIsSentOnTheNextOne() async throws {
        try await withDatabase { db in
            let root = db.reference()
            try await root.child("a").onDisconnectSetValue(1)
            db.simulateConnectionLoss()
            try await root.child("b").onDisconnectSetValue(2)
            #expect(db.webSocketConnectionCount == 2)
            #expect(try await eventually { try await root.child("a").getData().value as? Int == 1 })
            #expect(try await !root.child("b").getData().exists())
            db.simulateConnectionLoss()
            #expect(try await eventually { try await root.child("b").getData().value as? Int == 2 })
        }
    }

    @Test func cancelDropsOperationsAtAndBelowTheLocation() async throws {
        try await withDatabase { db in
            let root = db.reference()
            try await root.child("a/x").onDisconnectSetValue(1)
            try await root.child("a/y/z").onDisconnectUpdateChildValues(["k": 2])
            try await root.child("b").onDisconnectSetValue(3)
            try await root.child("a").cancelDisconnectOperations()
            db.simulateConnectionLoss()
            #expect(try await eventually { try await root.child("b").getData().value as? Int == 3 })
            try await Task.sleep(for: .milliseconds(200))
            #expect(try await !root.child("a").getData().exists())
        }
    }

    @Test func theRulesRefuseAtRegistrationAndNothingIsQueued() async throws {
        let rules = #"{"rules": {"public": {".read": true, ".write": true}, "mine": {"$uid": {".write": "auth.uid === $uid"}}}}"#
        let file = NSTemporaryDirectory() + "client-ondisconnect-\(UInt64.random(in: 0...UInt64.max)).rules.json"
        try rules.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        var configuration = SuiteConfiguration.ephemeral(projectId: "demo-client", kinds: [.database])
        configuration.databaseRules = [
            DatabaseRulesBinding(instance: "demo-client-default-rtdb", rules: RulesSource(path: file, text: rules))
        ]
        try await withSuite(configuration) { suite in
            let port = try #require(suite.port(of: .database))
            let url = "http://127.0.0.1:\(port)?ns=demo-client-default-rtdb"
            let admin = Database.database(url: url)
            let alice = Database.database(url: url)
            alice.setAuthToken(Self.aliceToken)
            do {
                try await alice.reference().child("secret").onDisconnectSetValue("leak")
                Issue.record("a refused onDisconnect was acknowledged")
            } catch let error as DatabaseError {
                #expect(error.status == 401)
                #expect(error.message == "Permission denied")
            }
            await #expect(throws: DatabaseError.self) {
                try await alice.reference().child("mine/bob").onDisconnectRemoveValue()
            }
            try await alice.reference().child("mine/alice").onDisconnectSetValue("away")
            try await alice.reference().child("public/note").onDisconnectSetValue("bye")
            alice.simulateConnectionLoss()
            #expect(try await eventually { try await admin.reference().child("public/note").getData().value as? String == "bye" })
            #expect(try await admin.reference().child("mine/alice").getData().value as? String == "away")
            #expect(try await !admin.reference().child("secret").getData().exists())
        }
    }

    @Test func aRefusedCredentialFailsTheCallUntilItIsReplaced() async throws {
        try await withDatabase { db in
            db.setAuthToken("not-a-token")
            do {
                try await db.reference().child("x").onDisconnectSetValue(1)
                Issue.record("a call with a refused credential was acknowledged")
            } catch let error as DatabaseError {
                #expect(error.status == 401)
            }
            db.setAuthToken(nil)
            try await db.reference().child("x").onDisconnectSetValue(2)
            db.simulateConnectionLoss()
            #expect(try await eventually { try await db.reference().child("x").getData().value as? Int == 2 })
        }
    }

    @Test func setWithPriority() async throws {
        try await withDatabase { db in
            let item = db.reference().child("items/a")
            try await item.onDisconnectSetValue("v", andPriority: 5)
            try await db.reference().child("items/b").onDisconnectSetValue(["n": 1], andPriority: "p")
            db.simulateConnectionLoss()
            #expect(try await eventually { try await db.reference().child("items/b").getData().exists() })
            let a = try await item.getData()
            #expect(a.value as? String == "v")
            #expect(a.priority as? Int == 5)
            let b = try await db.reference().child("items/b").getData()
            #expect(b.childSnapshot(forPath: "n").value as? Int == 1)
            #expect(b.priority as? String == "p")
        }
    }

    @Test func goOfflineRunsThemAndGoOnlineSendsWhatWaited() async throws {
        try await withDatabase { db in
            let root = db.reference()
            try await root.child("first").onDisconnectSetValue(1)
            db.goOffline()
            let other = otherClient(of: db).reference()
            #expect(try await eventually { try await other.child("first").getData().value as? Int == 1 })
            // Offline: the registration waits; no socket opens.
            async let queued: Void = root.child("second").onDisconnectSetValue(2)
            try await Task.sleep(for: .milliseconds(300))
            #expect(db.webSocketConnectionCount == 1)
            db.goOnline()
            try await queued
            #expect(db.webSocketConnectionCount == 2)
            #expect(try await !root.child("second").getData().exists())
            db.goOffline()
            #expect(try await eventually { try await other.child("second").getData().value as? Int == 2 })
        }
    }

    @Test func aDatabaseThatGoesAwayClosesItsConnection() async throws {
        try await withDatabase { db in
            let url = "http://\(db.reference().url.dropFirst(7).prefix { $0 != "/" })?ns=\(db.namespace)"
            do {
                let shortLived = Database.database(url: url)
                try await shortLived.reference().child("gone").onDisconnectSetValue(true)
            }
            #expect(try await eventually { try await db.reference().child("gone").getData().value as? Bool == true })
        }
    }

    @Test func longValuesTravelInPieces() async throws {
        try await withDatabase { db in
            let long = String(repeating: "é", count: 9_000) + String(repeating: "x", count: 30_000)
            try await db.reference().child("long").onDisconnectSetValue(long)
            db.simulateConnectionLoss()
            #expect(try await eventually { try await db.reference().child("long").getData().value as? String == long })
        }
    }
}

@Suite(.serialized) struct DatabaseOnDisconnectCompletionTests {
    @Test func completionBlocksReportTheServersAnswer() async throws {
        try await withDatabase { db in
            let root = db.reference()
            let answers = Mutex<[String]>([])
            root.child("a").onDisconnectSetValue("A") { error, ref in
                answers.withLock { $0.append("\(ref.key ?? ""):\(error == nil)") }
            }
            root.child("b").onDisconnectUpdateChildValues(["c": 1]) { error, ref in
                answers.withLock { $0.append("\(ref.key ?? ""):\(error == nil)") }
            }
            root.child("d").onDisconnectSetValue(Date()) { error, ref in
                answers.withLock { $0.append("\(ref.key ?? ""):\(error == nil)") }
            }
            try await waitUntil { answers.withLock { $0.count == 3 } }
            // `d` fails on the client (a Date is no database value), whenever its block runs; the
            // server answers `a` and `b` in the order they were sent.
            let seen = answers.withLock { $0 }
            #expect(Set(seen) == ["d:false", "a:true", "b:true"])
            #expect(seen.filter { $0 != "d:false" } == ["a:true", "b:true"])
            root.child("b").cancelDisconnectOperations { error, _ in answers.withLock { $0.append("cancel:\(error == nil)") } }
            try await waitUntil { answers.withLock { $0.count == 4 } }
            db.simulateConnectionLoss()
            #expect(try await eventually { try await root.child("a").getData().value as? String == "A" })
            #expect(try await !root.child("b").getData().exists())
        }
    }
}
