import EmulatorModel
import EmulatorStorage
import Synchronization
import Testing
@testable import FirestoreEmulator

/// Queries and listings ordered by `__name__` alone walk the collection in key order and decode
/// only the page they answer; numeric ids `__id<n>__` still come first, by their integer.
@Suite struct NameOrderWalkTests {
    let db = DatabaseID(project: "p", database: "(default)")

    func name(_ path: String) throws(EmulatorError) -> DocumentName {
        try DocumentName.document("projects/p/databases/(default)/documents/\(path)")
    }

    func reference(_ path: String) -> Value { .reference("projects/p/databases/(default)/documents/\(path)") }

    /// A service (walking, or scanning with `useIndexes: false`) holding `c/<id>` for each id,
    /// with field `n` the id's position in `ids`.
    func service(_ ids: [String], walking: Bool = true) throws -> FirestoreService {
        let service = FirestoreService(store: DocumentStore(engine: StorageEngine()), useIndexes: walking)
        var start = 0
        while start < ids.count {
            let batch = ids[start..<min(ids.count, start + 500)]
            let writes = try batch.enumerated().map { i, id in
                Write(.update(try name("c/\(id)"), fields: ["n": .integer(Int64(start + i))], mask: nil))
            }
            _ = try service.commit(db, writes: writes)
            start += 500
        }
        return service
    }

    func ids(_ documents: [StoredDocument]) -> [String] { documents.compactMap { $0.path.lastSegment } }

    func byName(
        descending: Bool = false, limit: Int?, offset: Int = 0, startAt: StructuredQuery.Cursor? = nil,
        endAt: StructuredQuery.Cursor? = nil, filter: QueryFilter? = nil
    ) -> StructuredQuery {
        StructuredQuery(
            from: [.init(collectionID: "c")], filter: filter,
            orderBy: [.init(.documentID, descending ? .descending : .ascending)],
            startAt: startAt, endAt: endAt, offset: offset, limit: limit)
    }

    @Test func aPageDecodesOnlyItsDocuments() throws {
        let all = (0..<2000).map { "d" + String(1000 + $0) }
        let service = try service(all)
        func decodedBy(_ run: () throws -> Void) rethrows -> Int {
            let before = service.documentsDecoded.load(ordering: .relaxed)
            try run()
            return service.documentsDecoded.load(ordering: .relaxed) - before
        }
        var page: [StoredDocument] = []
        // The Emulator UI's page: name order, limit 100 (no explicit order: `__name__` is implicit).
        let first = try decodedBy {
            page = try service.runQuery(db, parent: ResourcePath(), query: StructuredQuery(from: [.init(collectionID: "c")], limit: 100)).documents
        }
        #expect(ids(page) == Array(all.prefix(100)))
        #expect(first == 100)
        // The next page starts after the last document by a cursor: a seek, not a scan.
        let next = try decodedBy {
            page = try service.runQuery(
                db, parent: ResourcePath(), query: byName(limit: 100, startAt: .init(values: [reference("c/d2500")], before: false))).documents
        }
        #expect(ids(page) == Array(all[1501..<1601]))
        #expect(next == 100)
        let backwards = try decodedBy {
            page = try service.runQuery(
                db, parent: ResourcePath(), query: byName(descending: true, limit: 3, startAt: .init(values: [reference("c/d2500")], before: true))).documents
        }
        #expect(ids(page) == ["d2500", "d2499", "d2498"])
        #expect(backwards == 3)
        let offset = try decodedBy {
            page = try service.runQuery(db, parent: ResourcePath(), query: byName(limit: 2, offset: 5)).documents
        }
        #expect(ids(page) == ["d1005", "d1006"])
        #expect(offset == 7)
        // Listing by pages: the page and the one document that tells whether another follows.
        var listed = ListDocumentsResult(documents: [], missing: [], nextPageToken: nil)
        let listing = try decodedBy { listed = try service.listDocuments(db, parent: ResourcePath(), collectionID: "c", pageSize: 10) }
        #expect(ids(listed.documents) == Array(all.prefix(10)))
        #expect(listing == 11)
        let second = try decodedBy {
            listed = try service.listDocuments(db, parent: ResourcePath(), collectionID: "c", pageSize: 10, pageToken: listed.nextPageToken)
        }
        #expect(ids(listed.documents) == Array(all[10..<20]))
        #expect(second == 11)
    }

    /// Firestore's id order: numeric ids first by their integer, then every other id by bytes.
    static let mixed = ["b", "__id10__", "A", "__id2__", "__idx", "a", "__id9__", "_z", "__ie", "__id100__", "__id01__", "Z"]
    static let mixedInOrder = ["__id01__", "__id2__", "__id9__", "__id10__", "__id100__", "A", "Z", "__idx", "__ie", "_z", "a", "b"]

    @Test func numericIDsComeFirstInEveryWindow() throws {
        let walking = try service(Self.mixed)
        let scanning = try service(Self.mixed, walking: false)
        let order = Self.mixedInOrder
        func both(_ query: StructuredQuery) throws -> [String] {
            let a = ids(try walking.runQuery(db, parent: ResourcePath(), query: query).documents)
            let b = ids(try scanning.runQuery(db, parent: ResourcePath(), query: query).documents)
            #expect(a == b, "\(query)")
            return a
        }
        #expect(try both(byName(limit: 100)) == order)
        #expect(try both(byName(descending: true, limit: 100)) == order.reversed())
        for limit in 1...order.count {
            #expect(try both(byName(limit: limit)) == Array(order.prefix(limit)))
            #expect(try both(byName(descending: true, limit: limit)) == Array(order.reversed().prefix(limit)))
        }
        // Cursors at every id (and at ids that do not exist), both directions, inclusive or not.
        for (i, id) in order.enumerated() {
            for before in [true, false] {
                let cursor = StructuredQuery.Cursor(values: [reference("c/\(id)")], before: before)
                #expect(try both(byName(limit: 4, startAt: cursor)) == Array(order[(before ? i : i + 1)...].prefix(4)))
                let down = Array(order[...(before ? i : i - 1)].reversed().prefix(4))
                #expect(try both(byName(descending: true, limit: 4, startAt: cursor)) == (i == 0 && !before ? [] : down))
                _ = try both(byName(limit: 3, offset: 1, startAt: cursor, endAt: .init(values: [reference("c/b")], before: before)))
                _ = try both(byName(descending: true, limit: 3, endAt: cursor))
            }
        }
        for missing in ["__id5__", "__id0__", "__id1000__", "B", "__id", "zz", "0"] {
            let cursor = StructuredQuery.Cursor(values: [reference("c/\(missing)")], before: false)
            _ = try both(byName(limit: 5, startAt: cursor))
            _ = try both(byName(descending: true, limit: 5, startAt: cursor))
        }
        // A cursor outside the collection: every document is before or after it.
        for other in ["b/x", "d/x", "c/a/e/f"] {
            let cursor = StructuredQuery.Cursor(values: [reference(other)], before: true)
            _ = try both(byName(limit: 5, startAt: cursor))
            _ = try both(byName(descending: true, limit: 5, startAt: cursor))
        }
        // A filter: the walk decodes on until the page is full of matches.
        let even = QueryFilter.field(FieldPath(["n"]), .in, .array([0, 2, 4, 6, 8, 10].map { .integer($0) }))
        #expect(try both(byName(limit: 3, filter: even)) == ["__id01__", "__id9__", "A"])
    }

    @Test func missingDocumentsListInNameOrder() throws {
        let service = try service(["b", "__id7__"])
        // Documents that exist only as parents of subcollections.
        let writes = try ["a/s/x", "__id3__/s/x", "c/s/x"].map { Write(.update(try name("c/\($0)"), fields: [:], mask: nil)) }
        _ = try service.commit(db, writes: writes)
        var all: [String] = []
        var token: String?
        repeat {
            let page = try service.listDocuments(
                db, parent: ResourcePath(), collectionID: "c", pageSize: 2, pageToken: token, showMissing: true)
            all += ids(page.documents)
            let shownMissing = Set(ids(page.documents)).intersection(["a", "__id3__", "c"])
            #expect(shownMissing.isSubset(of: page.missing.compactMap(\.lastSegment)))
            #expect(!page.missing.contains { ["b", "__id7__"].contains($0.lastSegment) })
            token = page.nextPageToken
        } while token != nil
        #expect(all == ["__id3__", "__id7__", "a", "b", "c"])
        let present = try service.listDocuments(db, parent: ResourcePath(), collectionID: "c", pageSize: 10)
        #expect(ids(present.documents) == ["__id7__", "b"])
    }

    @Test func pastReadTimesAndTransactionsWalkToo() throws {
        let service = try service(["a", "b", "c"])
        let then = service.store.currentTime()
        _ = try service.commit(db, writes: [Write(.delete(try name("c/a"))), Write(.update(try name("c/__id1__"), fields: [:], mask: nil))])
        let now = try service.runQuery(db, parent: ResourcePath(), query: byName(limit: 2))
        #expect(ids(now.documents) == ["__id1__", "b"])
        let past = try service.runQuery(db, parent: ResourcePath(), query: byName(limit: 2), consistency: .readTime(then))
        #expect(ids(past.documents) == ["a", "b"])
        #expect(past.readTime == then)
        // A pessimistic transaction reads its page through the walk and commits after it.
        let read = try service.runQuery(
            db, parent: ResourcePath(), query: byName(limit: 1),
            consistency: .newTransaction(.readWrite(retrying: nil, concurrency: .pessimistic)))
        #expect(ids(read.documents) == ["__id1__"])
        let transaction = try #require(read.transaction)
        let committed = try service.commit(db, writes: [Write(.update(try name("c/b"), fields: ["n": .integer(9)], mask: nil))], transaction: transaction)
        #expect(committed.writeResults.count == 1)
    }
}
