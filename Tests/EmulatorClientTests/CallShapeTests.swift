import EmulatorClient
import EmulatorTesting
import Foundation
import Synchronization
import Testing

/// An unsigned ID token for uid "alice" (the emulators accept unsigned tokens).
let aliceIDToken = "eyJhbGciOiJub25lIiwidHlwZSI6IkpXVCJ9.eyJzdWIiOiJhbGljZSIsInVzZXJfaWQiOiJhbGljZSJ9."

let lockedFirestoreRules = """
    rules_version = '2';
    service cloud.firestore {
      match /databases/{database}/documents {
        match /open/{doc} { allow read, write: if true; }
        match /locked/{doc} { allow read, write: if false; }
      }
    }
    """

let lockedDatabaseRules = #"{"rules": {"open": {".read": true, ".write": true}, "locked": {".read": false, ".write": false}}}"#

/// Waits for a completion block's value (blocks run on the instance's callback queue).
func completion<T: Sendable>(_ start: (@escaping @Sendable (T) -> Void) -> Void) async -> T {
    await withCheckedContinuation { continuation in start { continuation.resume(returning: $0) } }
}

/// The guides' synchronous write calls, made from synchronous code as the guides make them.
func writeTheGuideWaySynchronously(_ db: Firestore) throws {
    let books = db.collection("books")
    try books.document("hitchhiker").setData(
        from: Book(title: "The Hitchhiker's Guide to the Galaxy", numberOfPages: 816, author: "Douglas Adams"))
    books.document("draft").setData(["title": "Draft", "numberOfPages": 1])
    books.document("draft").updateData(["numberOfPages": 2])
    books.document("gone").setData(["title": "Gone"])
    books.document("gone").delete()
    let batch = db.batch()
    batch.setData(["n": NSNumber(value: 1)], forDocument: db.document("counters/a"))
    batch.commit()
}

func writeTheGuideWaySynchronously(_ ref: DatabaseReference) {
    ref.child("users/ada").setValue(["username": "ada"])
    ref.child("users/ada/username").setValue("lovelace")
    ref.child("posts/p1").setValue(["starCount": 1 as AnyObject, "title": "Hi"])
    ref.updateChildValues(["/posts/p1/body": "First", "/user-posts/ada/p1/title": "Hi"])
    ref.child("posts/p2").setValue(["title": "Gone"])
    ref.child("posts/p2").removeValue()
}

@Suite(.serialized) struct CallShapeTests {
    @Test func fireAndForgetFirestoreWritesAreSeenByLaterReadsInOrder() async throws {
        try await withEmulators(services: .firestore) { env in
            let db = env.firestore()
            try writeTheGuideWaySynchronously(db)
            let book = try await db.document("books/hitchhiker").getDocument(as: Book.self)
            #expect(book.numberOfPages == 816 && book.id == "hitchhiker")
            #expect(try await db.document("books/draft").getDocument().get("numberOfPages") as? Int == 2)
            #expect(try await !db.document("books/gone").getDocument().exists)
            #expect(try await db.document("counters/a").getDocument().get("n") as? Int == 1)
        }
    }

    /// The guide's `updateBook`/`addBook` call `try setData(from:)` / `try addDocument(from:)`
    /// without `await`; inside an `async` function that must still compile (and not warn).
    @Test func codableWritesStaySynchronousInsideAsyncFunctions() async throws {
        try await withEmulators(services: .firestore) { env in
            let db = env.firestore()
            let book = Book(title: "Dune", numberOfPages: 412, author: "Frank Herbert")
            try db.collection("books").document("dune").setData(from: book)
            let added = try db.collection("books").addDocument(from: book)
            #expect(try await added.getDocument(as: Book.self).title == "Dune")
            #expect(try await db.document("books/dune").getDocument(as: Book.self).author == "Frank Herbert")
        }
    }

    @Test func firestoreCompletionsReportCommitsAndRefusals() async throws {
        try await withEmulators(services: .firestore, firestoreRules: lockedFirestoreRules) { env in
            let alice = env.firestore(authToken: aliceIDToken)
            let ok: String? = await completion { done in
                alice.document("open/a").setData(["x": 1]) { error in done(error.map { "\($0)" }) }
            }
            #expect(ok == nil)
            let refused: FirestoreErrorCode? = await completion { done in
                alice.document("locked/a").setData(["x": 1]) { error in done((error as? FirestoreError)?.code) }
            }
            #expect(refused == .permissionDenied)
            let thrown = await #expect(throws: FirestoreError.self) { try await alice.document("locked/b").setData(["x": 1]) }
            #expect(thrown?.code == .permissionDenied)
            let batchRefused: FirestoreErrorCode? = await completion { done in
                alice.batch().setData(["x": 1], forDocument: alice.document("locked/c")).commit { error in
                    done((error as? FirestoreError)?.code)
                }
            }
            #expect(batchRefused == .permissionDenied)
        }
    }

    @Test func fireAndForgetDatabaseWritesAreSeenByLaterReadsInOrder() async throws {
        try await withEmulators(services: .database) { env in
            let ref = env.database().reference()
            writeTheGuideWaySynchronously(ref)
            #expect(try await ref.child("users/ada/username").getData().value as? String == "lovelace")
            let post = try await ref.child("posts/p1").getData()
            #expect(post.childSnapshot(forPath: "starCount").value as? Int == 1)
            #expect(!(post.childSnapshot(forPath: "starCount").value is Bool))  // `1 as AnyObject` stays a number
            #expect(post.childSnapshot(forPath: "body").value as? String == "First")
            #expect(try await !ref.child("posts/p2").getData().exists())
        }
    }

    @Test func refusedDatabaseWritesAndReadsReachTheirBlocks() async throws {
        try await withEmulators(services: .database, databaseRules: lockedDatabaseRules) { env in
            let ref = env.database(authToken: aliceIDToken).reference()
            let written: String? = await completion { done in
                ref.child("open/a").setValue(1) { error, _ in done(error.map { "\($0)" }) }
            }
            #expect(written == nil)
            let refused: String? = await completion { done in
                ref.child("locked/a").setValue(1) { error, _ in done((error as? DatabaseError)?.message) }
            }
            #expect(refused == "Permission denied")
            let single: String = await completion { done in
                ref.child("locked").observeSingleEvent(of: .value, with: { _ in done("value") }) { error in
                    done((error as? DatabaseError)?.message ?? "\(error)")
                }
            }
            #expect(single == "Permission denied")
            let observed: String = await completion { done in
                let once = Mutex(false)
                let report: @Sendable (String) -> Void = { text in
                    if once.withLock({ f in defer { f = true }; return !f }) { done(text) }
                }
                ref.child("locked").observe(.value, with: { _ in report("value") }) { error in report("\(error)") }
            }
            #expect(observed.contains("Permission denied"))
        }
    }

    /// The guide's star transaction: `starCount as AnyObject?` is an NSNumber on Linux and must stay a number.
    @Test func starTransactionKeepsStarCountANumber() async throws {
        try await withEmulators(services: .database) { env in
            let ref = env.database().reference().child("posts/p1")
            try await ref.setValue(["title": "Hi", "starCount": 0])
            let result: (Bool, Int?, Bool) = await completion { done in
                ref.runTransactionBlock({ (currentData: MutableData) -> TransactionResult in
                    if var post = currentData.value as? [String: AnyObject] {
                        var stars = post["stars"] as? [String: Bool] ?? [:]
                        var starCount = post["starCount"] as? Int ?? 0
                        starCount += 1
                        stars["ada"] = true
                        post["starCount"] = starCount as AnyObject?
                        post["stars"] = stars as AnyObject?
                        currentData.value = post
                    }
                    return TransactionResult.success(withValue: currentData)
                }) { error, committed, snapshot in
                    let count = snapshot?.childSnapshot(forPath: "starCount").value
                    done((error == nil && committed, count as? Int, count is Bool))
                }
            }
            #expect(result.0)
            #expect(result.1 == 1)
            #expect(!result.2)
            ref.keepSynced(true)
        }
    }
}
