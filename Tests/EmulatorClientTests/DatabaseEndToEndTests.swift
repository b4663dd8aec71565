import EmulatorClient
import EmulatorSuite
import Foundation
import Synchronization
import Testing

/// Starts a suite with only the Realtime Database on an ephemeral port.
func withDatabase(_ body: (Database) async throws -> Void) async throws {
    try await withSuite(.ephemeral(projectId: "demo-client", kinds: [.database])) { suite in
        let port = try #require(suite.port(of: .database))
        let db = Database.database(url: "http://127.0.0.1:\(port)?ns=demo-client-default-rtdb")
        try await body(db)
    }
}

/// Another client of the same database, with its own connection (an offline client reads only
/// what it has cached, so tests check the server through a second one).
func otherClient(of db: Database) -> Database {
    let hostPort = db.reference().url.dropFirst("http://".count).prefix { $0 != "/" }
    return Database.database(url: "http://\(hostPort)?ns=\(db.namespace)")
}

@Suite(.serialized) struct DatabaseEndToEndTests {
    @Test func writeAndReadUsersAsTheGuideDoes() async throws {
        try await withDatabase { db in
            let ref = db.reference()
            try await ref.child("users").child("ada").setValue(["username": "ada"])
            try await ref.child("users/ada/username").setValue("lovelace")
            let name = try await ref.child("users/ada/username").getData()
            #expect(name.value as? String == "lovelace")
            #expect(name.key == "username")
            let missing = try await ref.child("users/nobody").getData()
            #expect(!missing.exists())
            #expect(missing.value == nil)
        }
    }

    @Test func fanOutWithChildByAutoIdIsOneAtomicUpdate() async throws {
        try await withDatabase { db in
            let ref = db.reference()
            let key = try #require(ref.child("posts").childByAutoId().key)
            #expect(key.count == 20)
            let post: [String: Any] = ["uid": "ada", "author": "ada", "title": "Hi", "body": "First", "starCount": 0]
            try await ref.updateChildValues(["/posts/\(key)": post, "/user-posts/ada/\(key)/": post])
            let a = try await ref.child("posts/\(key)/title").getData()
            let b = try await ref.child("user-posts/ada/\(key)/title").getData()
            #expect(a.value as? String == "Hi" && b.value as? String == "Hi")
            try await ref.updateChildValues([
                "posts/\(key)/starCount": ServerValue.increment(1), "user-posts/ada/\(key)/starCount": ServerValue.increment(1),
            ])
            #expect(try await ref.child("posts/\(key)/starCount").getData().value as? Int == 1)
            #expect(try await ref.child("user-posts/ada/\(key)/starCount").getData().value as? Int == 1)
            try await ref.child("posts").updateChildValues(["\(key)/title": "Edited", "\(key)/body": NSNull()])
            let edited = try await ref.child("posts/\(key)").getData()
            #expect(edited.childSnapshot(forPath: "title").value as? String == "Edited")
            #expect(!edited.hasChild("body") && edited.hasChild("author"))
        }
    }

    @Test func observeValueFiresInitiallyAndOnEveryChange() async throws {
        try await withDatabase { db in
            let ref = db.reference().child("users/ada/username")
            try await ref.setValue("ada")
            let seen = Mutex<[String?]>([])
            let handle = ref.observe(.value) { snapshot in seen.withLock { $0.append(snapshot.value as? String) } }
            try await waitUntil { seen.withLock { $0 == ["ada"] } }
            try await ref.setValue("lovelace")
            try await waitUntil { seen.withLock { $0 == ["ada", "lovelace"] } }
            try await db.reference().child("users/ada").removeValue()
            try await waitUntil { seen.withLock { $0 == ["ada", "lovelace", nil] } }
            ref.removeObserver(withHandle: handle)
            try await Task.sleep(for: .milliseconds(400))
            try await ref.setValue("after")
            try await Task.sleep(for: .milliseconds(300))
            #expect(seen.withLock { $0.count } == 3)
        }
    }

    @Test func childEventsAreDerivedFromTheStream() async throws {
        try await withDatabase { db in
            let comments = db.reference().child("comments")
            try await comments.child("c1").setValue(["text": "one"])
            let log = Mutex<[String]>([])
            let added = comments.observe(.childAdded) { s in log.withLock { $0.append("+\(s.key ?? "")") } }
            let changed = comments.observe(.childChanged) { s in log.withLock { $0.append("~\(s.key ?? "")") } }
            let removed = comments.observe(.childRemoved) { s in log.withLock { $0.append("-\(s.key ?? "")") } }
            try await waitUntil { log.withLock { $0 == ["+c1"] } }
            try await comments.child("c2").setValue(["text": "two"])
            try await waitUntil { log.withLock { $0.contains("+c2") } }
            try await comments.child("c1/text").setValue("uno")
            try await waitUntil { log.withLock { $0.contains("~c1") } }
            try await comments.child("c2").removeValue()
            try await waitUntil { log.withLock { $0.contains("-c2") } }
            comments.removeAllObservers()
            _ = (added, changed, removed)
        }
    }

    /// Five clients (one `Database` each: transactions of one instance queue behind each other).
    @Test func transactionsRetryUnderContention() async throws {
        try await withDatabase { db in
            let counter = db.reference().child("counter")
            try await counter.setValue(0)
            let port = try #require(URLComponents(string: counter.url)?.port)
            try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<5 {
                    let client = Database.database(url: "http://127.0.0.1:\(port)?ns=\(db.namespace)")
                    group.addTask {
                        let (committed, _) = try await client.reference().child("counter").runTransactionBlock { current in
                            current.value = (current.value as? Int ?? 0) + 1
                            return .success(withValue: current)
                        }
                        return committed
                    }
                }
                for try await committed in group { #expect(committed) }
            }
            #expect(try await counter.getData().value as? Int == 5)
            let (committed, snapshot) = try await counter.runTransactionBlock { _ in .abort() }
            #expect(!committed && snapshot.value as? Int == 5)
        }
    }

    @Test func starToggleTransactionFromTheGuide() async throws {
        try await withDatabase { db in
            let post = db.reference().child("posts/p1")
            try await post.setValue(["title": "t", "starCount": 0])
            let uid = "ada"
            let toggle: (MutableData) -> TransactionResult = { current in
                guard var value = current.value as? [String: Any] else { return .success(withValue: current) }
                var stars = value["stars"] as? [String: Bool] ?? [:]
                var count = value["starCount"] as? Int ?? 0
                if stars[uid] != nil {
                    count -= 1
                    stars.removeValue(forKey: uid)
                } else {
                    count += 1
                    stars[uid] = true
                }
                value["starCount"] = count
                value["stars"] = stars
                current.value = value
                return .success(withValue: current)
            }
            _ = try await post.runTransactionBlock(toggle)
            #expect(try await post.child("starCount").getData().value as? Int == 1)
            #expect(try await post.child("stars/ada").getData().value as? Bool == true)
            _ = try await post.runTransactionBlock(toggle)
            #expect(try await post.child("starCount").getData().value as? Int == 0)
            #expect(try await post.child("stars").getData().exists() == false)
        }
    }

    @Test func queriesOrderFilterAndLimit() async throws {
        try await withDatabase { db in
            let scores = db.reference().child("scores")
            try await scores.setValue(["ada": 30, "bob": 10, "cy": 20, "dee": 40])
            let top = try await scores.queryOrderedByValue().queryLimited(toLast: 2).getData()
            #expect(top.children.map { $0.key ?? "" } == ["ada", "dee"])
            let mid = try await scores.queryOrderedByValue().queryStarting(atValue: 15).queryEnding(atValue: 30).getData()
            #expect(mid.children.map { $0.key ?? "" } == ["cy", "ada"])
            let after = try await scores.queryOrderedByKey().queryStarting(afterValue: "bob").queryLimited(toFirst: 1).getData()
            #expect(after.children.map { $0.key ?? "" } == ["cy"])
            let equal = try await scores.queryOrderedByValue().queryEqual(toValue: 20).getData()
            #expect(equal.childrenCount == 1 && equal.hasChild("cy"))

            let people = db.reference().child("people")
            try await people.setValue(["p1": ["age": 40], "p2": ["age": 20], "p3": ["age": 30]])
            let young = try await people.queryOrdered(byChild: "age").queryEnding(beforeValue: 40).getData()
            #expect(young.children.map { $0.key ?? "" } == ["p2", "p3"])
        }
    }

    @Test func prioritiesAndServerTimestamp() async throws {
        try await withDatabase { db in
            let ref = db.reference().child("items")
            try await ref.child("a").setValue("first", andPriority: 2)
            try await ref.child("b").setValue("second", andPriority: 1)
            let snapshot = try await ref.getData()
            #expect(snapshot.children.map { $0.key ?? "" } == ["b", "a"])
            #expect(snapshot.childSnapshot(forPath: "a").priority as? Int == 2)
            try await db.reference().child("stamp").setValue(ServerValue.timestamp())
            let ms = try #require(try await db.reference().child("stamp").getData().value as? Int)
            #expect(abs(Double(ms) / 1000 - Date().timeIntervalSince1970) < 60)
        }
    }

    @Test func onDisconnectWritesRunOnGoOffline() async throws {
        try await withDatabase { db in
            let presence = db.reference().child("presence/ada")
            try await presence.setValue(true)
            try await presence.onDisconnectRemoveValue()
            try await db.reference().child("lastSeen/ada").onDisconnectSetValue("gone")
            #expect(try await presence.getData().exists())
            db.goOffline()
            let other = otherClient(of: db)
            #expect(try await eventually { try await other.reference().child("lastSeen/ada").getData().value as? String == "gone" })
            #expect(try await !other.reference().child("presence/ada").getData().exists())
        }
    }

    @Test func codableHelpers() async throws {
        struct User: Codable, Equatable { var username: String; var age: Int }
        try await withDatabase { db in
            let ref = db.reference().child("users/u1")
            try ref.setValue(from: User(username: "ada", age: 36))
            #expect(try await ref.getData().data(as: User.self) == User(username: "ada", age: 36))
        }
    }

    @Test func observeSingleEventDeliversOnce() async throws {
        try await withDatabase { db in
            let ref = db.reference().child("once")
            try await ref.setValue(["x": 1])
            let value: Int? = await withCheckedContinuation { c in
                ref.observeSingleEvent(of: .value) { s in c.resume(returning: s.childSnapshot(forPath: "x").value as? Int) }
            }
            #expect(value == 1)
        }
    }
}

@Suite(.serialized) struct DatabaseQueryObserverTests {
    @Test func observingAQueryKeepsItsWindow() async throws {
        try await withDatabase { db in
            let scores = db.reference().child("scores")
            try await scores.setValue(["a": 1, "b": 5, "c": 3])
            let seen = Mutex<[[String]]>([])
            let handle = scores.queryOrderedByValue().queryLimited(toLast: 2).observe(.value) { s in
                seen.withLock { $0.append(s.children.map { $0.key ?? "" }) }
            }
            try await waitUntil { seen.withLock { $0.last == ["c", "b"] } }
            try await scores.child("d").setValue(4)
            try await waitUntil { seen.withLock { $0.last == ["d", "b"] } }
            scores.removeObserver(withHandle: handle)
        }
    }
}

@Suite(.serialized) struct DatabaseCompletionTests {
    @Test func completionBlocksAndTheSnapshotSequence() async throws {
        try await withDatabase { db in
            let ref = db.reference().child("messages/m1")
            let error: String? = await withCheckedContinuation { c in
                ref.setValue(["text": "hi"]) { error, _ in c.resume(returning: error.map { "\($0)" }) }
            }
            #expect(error == nil)
            for await snapshot in ref.snapshots(of: .value) {
                #expect(snapshot.childSnapshot(forPath: "text").value as? String == "hi")
                break
            }
            let text: String? = await withCheckedContinuation { c in
                ref.child("text").getData { _, snapshot in c.resume(returning: snapshot?.value as? String) }
            }
            #expect(text == "hi")
        }
    }

    @Test func aNonNumberCannotBeStored() async throws {
        try await withDatabase { db in
            await #expect(throws: DatabaseError.self) { try await db.reference().child("x").setValue(Double.nan) }
        }
    }
}

@Suite(.serialized) struct DatabasePreviousSiblingTests {
    @Test func childAddedCarriesThePreviousSiblingKeyInQueryOrder() async throws {
        try await withDatabase { db in
            let scores = db.reference().child("ranked")
            try await scores.setValue(["x": 3, "y": 1])
            let log = Mutex<[String]>([])
            let handle = scores.queryOrderedByValue().observe(.childAdded, andPreviousSiblingKeyWith: { s, previous in
                log.withLock { $0.append("\(s.key ?? "")<\(previous ?? "nil")") }
            })
            try await waitUntil { log.withLock { $0 == ["y<nil", "x<y"] } }
            try await scores.child("z").setValue(2)
            try await waitUntil { log.withLock { $0.last == "z<y" } }
            scores.removeObserver(withHandle: handle)
        }
    }
}

@Suite(.serialized) struct DatabaseTransactionEdgeTests {
    @Test func transactionOnAnAbsentLocationStartsFromNil() async throws {
        try await withDatabase { db in
            let ref = db.reference().child("fresh/counter")
            let (committed, snapshot) = try await ref.runTransactionBlock { current in
                #expect(current.value == nil)
                current.value = 1
                return .success(withValue: current)
            }
            #expect(committed && snapshot.value as? Int == 1)
        }
    }

    @Test func arraysComeBackAsArrays() async throws {
        try await withDatabase { db in
            let ref = db.reference().child("list")
            try await ref.setValue(["a", "b", "c"])
            let snapshot = try await ref.getData()
            #expect(snapshot.value as? [String] == ["a", "b", "c"])
            #expect(snapshot.children.map { $0.key ?? "" } == ["0", "1", "2"])
        }
    }
}
