import EmulatorClient
import EmulatorStorage
import EmulatorSuite
import FirestoreEmulator
import Foundation
import Synchronization
import Testing

/// The standard registry, with the Firestore emulator wired in (the suite on main still answers
/// 501 on the Firestore port until the lead wires it).
var clientTestRegistry: EmulatorRegistry {
    var registry = EmulatorRegistry.standard
    registry.routers[.firestore] = { _ in FirestoreEmulator(storage: StorageEngine()).router }
    return registry
}

/// Starts a suite with only Firestore on an ephemeral port and hands a connected client.
func withFirestore(_ body: (Firestore) async throws -> Void) async throws {
    try await withSuite(.ephemeral(projectId: "demo-client", kinds: [.firestore]), registry: clientTestRegistry) { suite in
        let db = Firestore(projectID: "demo-client")
        db.useEmulator(withHost: "127.0.0.1", port: try #require(suite.port(of: .firestore)))
        try await body(db)
    }
}

@Suite(.serialized) struct FirestoreEndToEndTests {
    @Test func guideBooksDecodeMissingAndInvalidDocuments() async throws {
        try await withFirestore { db in
            let books = db.collection("books")
            try books.document("hitchhiker").setData(
                from: Book(title: "The Hitchhiker's Guide to the Galaxy", numberOfPages: 816, author: "Douglas Adams"))
            try await books.document("invalid-data").setData(["title": 42, "pages": "many"])

            let book = try await books.document("hitchhiker").getDocument(as: Book.self)
            #expect(book.id == "hitchhiker")
            #expect(book.numberOfPages == 816)

            let missing = try await books.document("does-not-exist").getDocument()
            #expect(!missing.exists)
            #expect(missing.data() == nil)
            await #expect(throws: DecodingError.self) { try await books.document("does-not-exist").getDocument(as: Book.self) }
            let optional = try await books.document("does-not-exist").getDocument(as: Book?.self)
            #expect(optional == nil)
            await #expect(throws: DecodingError.self) { try await books.document("invalid-data").getDocument(as: Book.self) }

            let snapshot = try await books.document("hitchhiker").getDocument()
            #expect(snapshot.data()?["title"] as? String == "The Hitchhiker's Guide to the Galaxy")
            #expect(snapshot.get("numberOfPages") as? Int == 816)
        }
    }

    @Test func completionFormDeliversAResult() async throws {
        try await withFirestore { db in
            try await db.document("books/h").setData(["title": "t", "numberOfPages": 1, "author": "a"])
            let result: Result<Book, any Error> = await withCheckedContinuation { c in
                db.document("books/h").getDocument(as: Book.self) { c.resume(returning: $0) }
            }
            #expect(try result.get().title == "t")
        }
    }

    @Test func addDocumentFromCodableMakesTwentyCharacterIDs() async throws {
        try await withFirestore { db in
            let ref = try db.collection("languages").addDocument(
                from: ProgrammingLanguage(name: "Ada", year: Date(timeIntervalSince1970: -3_976_214_400)))
            #expect(ref.documentID.count == 20)
            let ada = try await ref.getDocument(as: ProgrammingLanguage.self)
            #expect(ada.name == "Ada" && ada.id == ref.documentID)
            #expect(ada.year == Date(timeIntervalSince1970: -3_976_214_400))
        }
    }

    @Test func serverTimestampAndFieldValueTransforms() async throws {
        try await withFirestore { db in
            let ref = try db.collection("posts").addDocument(from: Post(text: "hello"))
            let post = try await ref.getDocument(as: Post.self)
            let created = try #require(post.createdAt)
            #expect(abs(created.timeIntervalSinceNow) < 60)

            let counter = db.document("counters/c")
            try await counter.setData(["n": 1, "tags": ["a"], "gone": true])
            try await counter.updateData([
                "n": FieldValue.increment(Int64(2)), "tags": FieldValue.arrayUnion(["b", "a"]),
                "gone": FieldValue.delete(), "nested.deep": "x",
            ])
            let data = try #require(try await counter.getDocument().data())
            #expect(data["n"] as? Int == 3)
            #expect(data["tags"] as? [String] == ["a", "b"])
            #expect(data["gone"] == nil)
            #expect((data["nested"] as? [String: Any])?["deep"] as? String == "x")
        }
    }

    @Test func updateOfAMissingDocumentIsNotFound() async throws {
        try await withFirestore { db in
            do {
                try await db.document("x/missing").updateData(["a": 1])
                Issue.record("expected NOT_FOUND")
            } catch let error as FirestoreError {
                #expect(error.code == .notFound)
            }
        }
    }

    @Test func mergeKeepsOtherFields() async throws {
        try await withFirestore { db in
            let ref = db.document("cities/sf")
            try await ref.setData(["name": "SF", "state": "CA"])
            try await ref.setData(["population": 800_000], merge: true)
            let data = try #require(try await ref.getDocument().data())
            #expect(data["name"] as? String == "SF" && data["population"] as? Int == 800_000)
            try await ref.setData(["name": "San Francisco"])
            #expect(try await ref.getDocument().data()?["state"] == nil)
            try await ref.delete()
            #expect(try await ref.getDocument().exists == false)
        }
    }

    @Test func queriesFilterOrderLimitAndCount() async throws {
        try await withFirestore { db in
            let cities = db.collection("cities")
            let batch = db.batch()
            for (id, pop, capital) in [("a", 100, false), ("b", 500, true), ("c", 300, false), ("d", 900, true)] {
                batch.setData(["population": pop, "capital": capital, "tags": [id]], forDocument: cities.document(id))
            }
            try await batch.commit()

            let big = try await cities.whereField("population", isGreaterThan: 200).order(by: "population", descending: true)
                .getDocuments()
            #expect(big.documents.map(\.documentID) == ["d", "b", "c"])
            let first = try await cities.order(by: "population").limit(to: 2).getDocuments()
            #expect(first.documents.map(\.documentID) == ["a", "c"])
            let last = try await cities.order(by: "population").limit(toLast: 2).getDocuments()
            #expect(last.documents.map(\.documentID) == ["b", "d"])
            let either = try await cities.whereFilter(
                .orFilter([.whereField("capital", isEqualTo: true), .whereField("population", isLessThan: 200)])
            ).getDocuments()
            #expect(Set(either.documents.map(\.documentID)) == ["a", "b", "d"])
            let inList = try await cities.whereField("tags", arrayContainsAny: ["a", "c"]).getDocuments()
            #expect(Set(inList.documents.map(\.documentID)) == ["a", "c"])
            let page = try await cities.order(by: "population").start(after: [300]).end(at: [900]).getDocuments()
            #expect(page.documents.map(\.documentID) == ["b", "d"])
            let c = try #require(first.documents.last)
            let afterC = try await cities.order(by: "population").start(afterDocument: c).getDocuments()
            #expect(afterC.documents.map(\.documentID) == ["b", "d"])
            #expect(try await cities.whereField("capital", isEqualTo: true).count.getAggregation().count == 2)
            let group = try await db.collectionGroup("cities").getDocuments()
            #expect(group.count == 4)
        }
    }

    @Test func transactionsRetryUnderContention() async throws {
        try await withFirestore { db in
            let counter = db.document("counters/tx")
            try await counter.setData(["n": 0])
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        try await db.runTransaction(maxAttempts: 50) { tx in
                            let n = try tx.getDocument(counter).get("n") as? Int ?? 0
                            try tx.updateData(["n": n + 1], forDocument: counter)
                            return n + 1
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await counter.getDocument().get("n") as? Int == 4)
        }
    }

    @Test func snapshotListenerSeesAnAddedDocumentUntilRemoved() async throws {
        try await withFirestore { db in
            let colors = db.collection("colors")
            try colors.document("red").setData(from: ColorEntry(name: "Red", color: Color(red: 255, green: 0, blue: 0)))
            let seen = Mutex<[[String]]>([])
            let registration = colors.addSnapshotListener { snapshot, _ in
                let names = snapshot?.documents.compactMap { try? $0.data(as: ColorEntry.self).name } ?? []
                seen.withLock { $0.append(names) }
            }
            try await waitUntil { seen.withLock { $0.last == ["Red"] } }
            try colors.addDocument(from: ColorEntry(name: "Green", color: Color(red: 0, green: 255, blue: 0)))
            try await waitUntil { seen.withLock { $0.last?.sorted() == ["Green", "Red"] } }
            registration.remove()
            try await Task.sleep(for: .milliseconds(300))
            let count = seen.withLock { $0.count }
            try await colors.document("blue").setData(["name": "Blue", "color": "#0000FFFF"])
            try await Task.sleep(for: .milliseconds(400))
            #expect(seen.withLock { $0.count } == count)
        }
    }

    @Test func snapshotsAsyncSequenceYieldsTheCurrentDocument() async throws {
        try await withFirestore { db in
            let ref = db.document("docs/one")
            try await ref.setData(["v": 1])
            for try await snapshot in ref.snapshots {
                #expect(snapshot.get("v") as? Int == 1)
                break
            }
        }
    }
}

/// Polls `condition` every 20 ms for up to `seconds` (5 s); a failure records `state` too.
func waitUntil(
    seconds: Int = 5, state: @autoclosure () -> String = "", _ condition: @Sendable () -> Bool
) async throws {
    for _ in 0..<(seconds * 50) {
        if condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    let shown = state()
    Issue.record("condition not met within \(seconds) s\(shown.isEmpty ? "" : "; \(shown)")")
}

@Suite(.serialized) struct FirestoreCompletionTests {
    @Test func synchronousSetDataFromAndAddDocumentFromReportCompletion() async throws {
        try await withFirestore { db in
            let done = Mutex(0)
            try db.document("books/sync").setData(
                from: Book(title: "Sync", numberOfPages: 1, author: "a"),
                completion: { error in if error == nil { done.withLock { $0 += 1 } } })
            let added = try db.collection("books").addDocument(
                from: Book(title: "Added", numberOfPages: 2, author: "b"),
                completion: { error in if error == nil { done.withLock { $0 += 1 } } })
            try await waitUntil { done.withLock { $0 == 2 } }
            #expect(try await added.getDocument(as: Book.self).title == "Added")
            let snapshot: QuerySnapshot? = await withCheckedContinuation { c in
                db.collection("books").getDocuments { snapshot, _ in c.resume(returning: snapshot) }
            }
            #expect(snapshot?.count == 2)
        }
    }
}

@Suite(.serialized) struct FirestoreAggregateAndMergeFieldsTests {
    @Test func sumAndAverageOverAQuery() async throws {
        try await withFirestore { db in
            let cities = db.collection("cities")
            for (id, pop) in [("a", 100), ("b", 300)] { try await cities.document(id).setData(["population": pop]) }
            let s = try await cities.aggregate([.count(), .sum("population"), .average("population")]).getAggregation()
            #expect(s.count == 2)
            #expect(s.get(.sum("population")) as? Int == 400)
            #expect(s.get(.average("population")) as? Double == 200)
        }
    }

    @Test func mergeFieldsWritesOnlyTheNamedFields() async throws {
        try await withFirestore { db in
            let ref = db.document("x/y")
            try await ref.setData(["a": 1, "b": 2, "c": 3])
            try await ref.setData(["a": 10, "b": 20, "n": ["m": 5]], mergeFields: ["a", "n.m"])
            let data = try #require(try await ref.getDocument().data())
            #expect(data["a"] as? Int == 10 && data["b"] as? Int == 2 && data["c"] as? Int == 3)
            #expect((data["n"] as? [String: Any])?["m"] as? Int == 5)
        }
    }
}

@Suite(.serialized) struct FirestoreCursorTests {
    @Test func documentCursorWithAnImplicitInequalityOrder() async throws {
        try await withFirestore { db in
            let cities = db.collection("cities")
            for (id, pop) in [("a", 100), ("b", 300), ("c", 200), ("d", 400)] { try await cities.document(id).setData(["population": pop]) }
            let big = cities.whereField("population", isGreaterThan: 150)
            let first = try await big.limit(to: 1).getDocuments()
            #expect(first.documents.map(\.documentID) == ["c"])
            let anchor = try #require(first.documents.first)
            let rest = try await big.start(afterDocument: anchor).getDocuments()
            #expect(rest.documents.map(\.documentID) == ["b", "d"])
        }
    }
}

@Suite(.serialized) struct FirestoreNamesTests {
    @Test func documentIDsWithSpacesAndNonASCIIRoundTrip() async throws {
        try await withFirestore { db in
            let ref = db.collection("things").document("hello wörld?&#")
            try await ref.setData(["ok": true])
            let snapshot = try await ref.getDocument()
            #expect(snapshot.exists && snapshot.documentID == "hello wörld?&#")
            let all = try await db.collection("things").getDocuments()
            #expect(all.documents.map(\.documentID) == ["hello wörld?&#"])
        }
    }

    @Test func referencesRoundTripAsDocumentReferences() async throws {
        try await withFirestore { db in
            let author = db.document("authors/adams")
            try await db.document("books/h").setData(["author": author, "when": Timestamp(seconds: 5, nanoseconds: 0)])
            let data = try #require(try await db.document("books/h").getDocument().data())
            #expect((data["author"] as? DocumentReference)?.path == "authors/adams")
            #expect((data["when"] as? Timestamp)?.seconds == 5)
        }
    }
}
