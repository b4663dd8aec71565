import EmulatorTestSupport
import EmulatorModel
import EmulatorStorage
import Synchronization
import Testing

@testable import FirestoreEmulator

/// Listen targets follow commits from the changed documents alone: the decision per change
/// (table), the result after random commits against a full evaluation of every query
/// (property), what stays incremental, and bad input.
@Suite struct IncrementalListenTests {
    static let database = DatabaseID(project: "demo", database: "(default)")

    /// Records every event; `view` rebuilds what a client holds per target.
    final class RecordingSink: ListenEventSink {
        let events = Mutex<[ListenEvent]>([])
        func send(_ event: ListenEvent) { events.withLock { $0.append(event) } }
        func finish(_ error: EmulatorError?) {}

        var all: [ListenEvent] { events.withLock { $0 } }

        /// Target id → path → document, from every event so far.
        func view() -> [Int32: [ResourcePath: StoredDocument]] {
            var out: [Int32: [ResourcePath: StoredDocument]] = [:]
            let prefix = IncrementalListenTests.database.rootName + "/"
            func path(_ name: String) -> ResourcePath { ResourcePath(segments: String(name.dropFirst(prefix.count)).split(separator: "/").map(String.init)) }
            for event in all {
                switch event {
                case .targetChange(.add, let ids, _, _, _): for id in ids { out[id] = [:] }
                case .targetChange(.reset, let ids, _, _, _): for id in ids { out[id] = [:] }
                case .targetChange(.remove, let ids, _, _, _): for id in ids { out[id] = nil }
                case .targetChange: break
                case .documentChange(let change, _, let ids, let removed):
                    let d = change.document
                    for id in ids { out[id, default: [:]][d.path] = d }
                    for id in removed { out[id]?[d.path] = nil }
                case .documentDelete(let name, let ids, _), .documentRemove(let name, let ids, _):
                    for id in ids { out[id]?[path(name)] = nil }
                case .existenceFilter(let id, let count):
                    // What the client holds for the target by then is what the filter counts.
                    #expect(out[id]?.count ?? 0 == Int(count), "existence filter of target \(id)")
                }
            }
            return out
        }
    }

    static func name(_ path: String) -> DocumentName {
        DocumentName(projectID: "demo", databaseID: "(default)", path: ResourcePath(segments: path.split(separator: "/").map(String.init)))
    }

    static func set(_ service: FirestoreService, _ docs: [(String, ValueMap?)]) throws {
        let writes = docs.map { path, fields in
            fields.map { Write(.update(name(path), fields: $0, mask: nil)) } ?? Write(.delete(name(path)))
        }
        _ = try service.commit(database, writes: writes)
    }

    static func query(
        _ collection: String, group: Bool = false, filter: QueryFilter? = nil, orderBy: [StructuredQuery.Order] = [],
        startAt: StructuredQuery.Cursor? = nil, endAt: StructuredQuery.Cursor? = nil, offset: Int = 0, limit: Int? = nil,
        select: [FieldPath]? = nil
    ) -> StructuredQuery {
        StructuredQuery(
            select: select, from: [.init(collectionID: collection, allDescendants: group)], filter: filter, orderBy: orderBy,
            startAt: startAt, endAt: endAt, offset: offset, limit: limit)
    }

    static let a = FieldPath(["a"])
    static let b = FieldPath(["b"])

    static func queryTarget(_ id: Int32, _ query: StructuredQuery, parent: String = "") -> ListenTarget {
        let parentName = DocumentName(
            projectID: "demo", databaseID: "(default)",
            path: ResourcePath(segments: parent.split(separator: "/").map(String.init)))
        return ListenTarget(id: id, kind: .query(parent: parentName, query), once: false)
    }

    /// A stream without its worker: the test calls `refresh()`.
    static func stream(_ service: FirestoreService, _ sink: RecordingSink, _ targets: [ListenTarget]) -> ListenStream {
        let stream = ListenStream(service: service, caller: .owner, sink: sink, startsWorker: false)
        for t in targets {
            stream.receive { () throws(EmulatorError) in ListenRequest(database: database.name, addTarget: t) }
        }
        return stream
    }

    // MARK: The decision per change

    struct Row: Sendable, CustomTestStringConvertible {
        var label: String
        var query: StructuredQuery
        var parent = ""
        var seed: [(String, ValueMap)]
        var path: String
        var fields: ValueMap?
        /// "put x, remove y" / "reevaluate" / "" (nothing to send).
        var expected: String
        var testDescription: String { label }
    }

    static let rows: [Row] = [
        Row(label: "a new document matches", query: query("c"), seed: [], path: "c/x", fields: ["a": 1], expected: "put c/x"),
        Row(label: "a held document stops matching the filter", query: query("c", filter: .field(a, .equal, 1)),
            seed: [("c/x", ["a": 1])], path: "c/x", fields: ["a": 2], expected: "leave c/x"),
        Row(label: "an unheld document still does not match", query: query("c", filter: .field(a, .equal, 1)),
            seed: [("c/x", ["a": 5])], path: "c/x", fields: ["a": 6], expected: ""),
        Row(label: "a held document changes another field", query: query("c", filter: .field(a, .equal, 1)),
            seed: [("c/x", ["a": 1])], path: "c/x", fields: ["a": 1, "b": "new"], expected: "put c/x"),
        Row(label: "a held document loses its ordered field", query: query("c", orderBy: [.init(a)]),
            seed: [("c/x", ["a": 1])], path: "c/x", fields: ["b": 1], expected: "leave c/x"),
        Row(label: "a held document changes its ordered value (no limit)", query: query("c", orderBy: [.init(a)]),
            seed: [("c/x", ["a": 1]), ("c/y", ["a": 2])], path: "c/x", fields: ["a": 9], expected: "put c/x"),
        Row(label: "a held document is deleted", query: query("c"), seed: [("c/x", ["a": 1])], path: "c/x", fields: nil,
            expected: "remove c/x"),
        Row(label: "limit: a document before the boundary evicts the last", query: query("c", orderBy: [.init(a)], limit: 2),
            seed: [("c/p", ["a": 1]), ("c/q", ["a": 2]), ("c/r", ["a": 3])], path: "c/x", fields: ["a": 0],
            expected: "put c/x, remove c/q"),
        Row(label: "limit: a document after the boundary", query: query("c", orderBy: [.init(a)], limit: 2),
            seed: [("c/p", ["a": 1]), ("c/q", ["a": 2]), ("c/r", ["a": 3])], path: "c/x", fields: ["a": 5], expected: ""),
        Row(label: "limit: a held document moves inside the window", query: query("c", orderBy: [.init(a)], limit: 2),
            seed: [("c/p", ["a": 1]), ("c/q", ["a": 3]), ("c/r", ["a": 4])], path: "c/p", fields: ["a": 2],
            expected: "put c/p"),
        Row(label: "limit: a held document moves past the boundary", query: query("c", orderBy: [.init(a)], limit: 2),
            seed: [("c/p", ["a": 1]), ("c/q", ["a": 2]), ("c/r", ["a": 3])], path: "c/p", fields: ["a": 10],
            expected: "reevaluate"),
        Row(label: "limit: a full window loses a document", query: query("c", orderBy: [.init(a)], limit: 2),
            seed: [("c/p", ["a": 1]), ("c/q", ["a": 2]), ("c/r", ["a": 3])], path: "c/q", fields: nil,
            expected: "reevaluate"),
        Row(label: "limit: a window that is not full loses a document", query: query("c", orderBy: [.init(a)], limit: 5),
            seed: [("c/p", ["a": 1]), ("c/q", ["a": 2])], path: "c/q", fields: nil, expected: "remove c/q"),
        Row(label: "limit: a window that is not full takes any match", query: query("c", orderBy: [.init(a)], limit: 5),
            seed: [("c/p", ["a": 1])], path: "c/x", fields: ["a": 100], expected: "put c/x"),
        Row(label: "limitToLast (reversed order): a larger value evicts the smallest held",
            query: query("c", orderBy: [.init(a, .descending)], limit: 2),
            seed: [("c/p", ["a": 1]), ("c/q", ["a": 2]), ("c/r", ["a": 3])], path: "c/x", fields: ["a": 10],
            expected: "put c/x, remove c/q"),
        Row(label: "cursor: before startAt", query: query("c", orderBy: [.init(a)], startAt: .init(values: [2], before: true)),
            seed: [], path: "c/x", fields: ["a": 1], expected: ""),
        Row(label: "cursor: at startAt (before)", query: query("c", orderBy: [.init(a)], startAt: .init(values: [2], before: true)),
            seed: [], path: "c/x", fields: ["a": 2], expected: "put c/x"),
        Row(label: "cursor: at endBefore", query: query("c", orderBy: [.init(a)], endAt: .init(values: [3], before: true)),
            seed: [("c/x", ["a": 1])], path: "c/x", fields: ["a": 3], expected: "leave c/x"),
        Row(label: "offset: the query runs again", query: query("c", orderBy: [.init(a)], offset: 1),
            seed: [("c/p", ["a": 1])], path: "c/x", fields: ["a": 2], expected: "reevaluate"),
        Row(label: "collection group: a nested document", query: query("g", group: true), seed: [], path: "x/1/g/a",
            fields: ["a": 1], expected: "put x/1/g/a"),
        Row(label: "collection group: another collection id", query: query("g", group: true), seed: [], path: "x/1/h/a",
            fields: ["a": 1], expected: ""),
        Row(label: "collection group: outside the parent", query: query("g", group: true), parent: "x/1", seed: [],
            path: "y/1/g/a", fields: ["a": 1], expected: ""),
        Row(label: "a subcollection is not the collection", query: query("c"), seed: [], path: "c/x/c/y", fields: ["a": 1],
            expected: ""),
        Row(label: "select: the sent document is projected", query: query("c", select: [b]), seed: [], path: "c/x",
            fields: ["a": 1, "b": 2], expected: "put c/x {b}"),
    ]

    static func summary(_ decision: ListenTarget.Decision, fields showFields: Bool = false) -> String {
        switch decision {
        case .reevaluate: return "reevaluate"
        case .changes(let changes):
            return changes.map { c in
                switch c {
                case .put(let change):
                    let d = change.document
                    let fields = showFields ? " {" + d.fields.map(\.name).joined(separator: ",") + "}" : ""
                    return "put \(d.path)" + fields
                case .remove(let k, _): return "remove \(k.description.dropFirst())"
                case .leave(let d): return "leave \(d.path)"
                }
            }.joined(separator: ", ")
        }
    }

    @Test(arguments: rows) func decision(_ row: Row) throws {
        let service = FirestoreService()
        try Self.set(service, row.seed.map { ($0.0, $0.1) })
        var target = Self.queryTarget(1, row.query, parent: row.parent)
        try target.prepare()
        let (documents, _) = try target.evaluate(service, caller: .owner)
        for d in documents { target.documents[ListenTarget.key(d.path)] = d.updateTime }
        try Self.set(service, [(row.path, row.fields)])
        let path = ResourcePath(segments: row.path.split(separator: "/").map(String.init))
        let after = try service.store.view(Self.database, at: nil).0.document(path)
        let before = target
        let decision = target.apply(path, document: after)
        #expect(Self.summary(decision, fields: row.query.select != nil) == row.expected)
        if decision == .reevaluate {
            #expect(target.documents == before.documents && target.window.map(\.path) == before.window.map(\.path))
        }
    }

    @Test func documentsTargetPutsAndDeletes() throws {
        var target = ListenTarget(id: 1, kind: .documents([Self.name("c/x"), Self.name("c/y")]), once: false)
        let d = StoredDocument(path: Self.name("c/x").path, fields: ["a": 1], createTime: 1, updateTime: 1)
        #expect(target.apply(d.path, document: d) == .changes([.put(.stored(Self.entry(d)))]))
        #expect(target.apply(d.path, document: d) == .changes([]))
        #expect(target.apply(d.path, document: nil) == .changes([.remove(ListenTarget.key(d.path), deleted: true)]))
        #expect(target.apply(Self.name("c/z").path, document: d) == .changes([]))
    }

    @Test(arguments: ["c/x", "a/1/b/é😀 x", "c/\u{1}\u{2}"])
    func aStoredDocumentEncodesAsItsDecodedForm(path: String) {
        let d = StoredDocument(
            path: Self.name(path).path, fields: ["a": 1, "m": .map(["s": "t", "l": .array([.null, 2.5])])], createTime: 1_700_000_000_123_456,
            updateTime: 1_700_000_001_000_000)
        let decoded = ListenResponse.encode(.documentChange(.decoded(d), database: Self.database, targets: [1, 300], removed: [7]))
        let stored = ListenResponse.encode(.documentChange(.stored(Self.entry(d)), database: Self.database, targets: [1, 300], removed: [7]))
        #expect(stored == decoded)
    }

    // MARK: Random commits against full evaluation

    static let targets: [ListenTarget] = [
        queryTarget(1, query("c")),
        queryTarget(2, query("c", filter: .field(a, .equal, 2))),
        queryTarget(3, query("c", filter: .field(a, .greaterThan, 1), orderBy: [.init(a)])),
        queryTarget(4, query("c", orderBy: [.init(a)], limit: 3)),
        queryTarget(5, query("c", orderBy: [.init(a, .descending)], limit: 3)),
        queryTarget(6, query("c", orderBy: [.init(a)], startAt: .init(values: [2], before: true), endAt: .init(values: [4], before: false))),
        queryTarget(7, query("c", orderBy: [.init(a)], startAt: .init(values: [1], before: false), limit: 2)),
        queryTarget(8, query("c", group: true, filter: .field(a, .greaterThanOrEqual, 3))),
        ListenTarget(id: 9, kind: .documents([name("c/d1"), name("c/d5"), name("x/1/c/d2")]), once: false),
        queryTarget(10, query("c", filter: .field(a, .in, [1, 3]), select: [b])),
        queryTarget(11, query("c", filter: .field(a, .notEqual, 2), orderBy: [.init(b)], limit: 4)),
        queryTarget(12, query("c", orderBy: [.init(a)], offset: 2, limit: 3)),
        queryTarget(13, query("", group: true), parent: "x/1"),
        queryTarget(14, query("c", filter: .composite(.or, [.field(a, .equal, 0), .field(b, .equal, "k")]), orderBy: [.init(b, .descending)], limit: 2)),
    ]

    /// Checks that what the client holds per target equals a full evaluation now.
    static func expectMatchesFullEvaluation(_ service: FirestoreService, _ sink: RecordingSink, step: Int) throws {
        let view = sink.view()
        for t in targets {
            var target = t
            try target.prepare()
            let (expected, _) = try target.evaluate(service, caller: .owner)
            let held = view[t.id] ?? [:]
            let want = Dictionary(uniqueKeysWithValues: expected.map { ($0.path, $0) })
            #expect(held == want, "target \(t.id) after commit \(step)")
        }
    }

    @Test func randomCommitsLeaveEveryTargetAsAFullEvaluation() throws {
        var rng = SeededGenerator(seed: 0x5EED)
        let service = FirestoreService()
        let paths = (0..<12).map { "c/d\($0)" } + ["x/1/c/d2", "x/1/c/d7", "x/1/g/e1", "c/d1/c/s"]
        func randomFields() -> ValueMap {
            var f: ValueMap = [:]
            if rng.next() % 5 != 0 { f["a"] = .integer(Int64(rng.next() % 6)) }
            if rng.next() % 3 != 0 { f["b"] = .string(["k", "m", "z"][Int(rng.next() % 3)]) }
            return f
        }
        try Self.set(service, paths.prefix(6).map { ($0, randomFields()) })
        let sink = RecordingSink()
        let stream = Self.stream(service, sink, Self.targets)
        defer { stream.cancel() }
        try Self.expectMatchesFullEvaluation(service, sink, step: 0)
        for step in 1...200 {
            var writes: [(String, ValueMap?)] = []
            var used = Set<String>()
            for _ in 0..<(1 + Int(rng.next() % 4)) {
                let path = paths[Int(rng.next() % UInt64(paths.count))]
                guard used.insert(path).inserted else { continue }
                writes.append((path, rng.next() % 4 == 0 ? nil : randomFields()))
            }
            try Self.set(service, writes)
            // Sometimes two commits before the worker looks.
            if rng.next() % 3 == 0 { continue }
            stream.refresh()
            try Self.expectMatchesFullEvaluation(service, sink, step: step)
        }
        stream.refresh()
        try Self.expectMatchesFullEvaluation(service, sink, step: 201)
        // Only the limit windows and the offset query ever ran again.
        #expect(stream.reevaluations > 0 && stream.reevaluations < 200 * 5)
    }

    // MARK: What stays incremental

    @Test func queriesWithoutALimitNeverRunAgain() throws {
        let service = FirestoreService()
        let sink = RecordingSink()
        let stream = Self.stream(service, sink, [
            Self.queryTarget(1, Self.query("c")),
            Self.queryTarget(2, Self.query("c", filter: .field(Self.a, .lessThan, 50), orderBy: [.init(Self.a)])),
            Self.queryTarget(3, Self.query("c", group: true)),
            ListenTarget(id: 4, kind: .documents([Self.name("c/d3")]), once: false),
        ])
        defer { stream.cancel() }
        for i in 0..<100 {
            try Self.set(service, [("c/d\(i)", ["a": .integer(Int64(i))]), ("c/d\(i / 2)", ["a": .integer(Int64(i + 1))])])
            if i % 10 == 0 { try Self.set(service, [("c/d\(i / 3)", nil)]) }
            stream.refresh()
        }
        #expect(stream.reevaluations == 0)
        let view = sink.view()
        let all = try service.runQuery(Self.database, parent: ResourcePath(), query: Self.query("c")).documents
        #expect(all.count > 50 && Set(view[1]?.keys.map { $0 } ?? []) == Set(all.map(\.path)))
    }

    @Test func aLimitWindowRunsAgainOnlyWhenItsBoundaryMoves() throws {
        let service = FirestoreService()
        try Self.set(service, (0..<20).map { ("c/d\($0)", ["a": .integer(Int64($0))]) })
        let sink = RecordingSink()
        let stream = Self.stream(service, sink, [Self.queryTarget(1, Self.query("c", orderBy: [.init(Self.a)], limit: 5))])
        defer { stream.cancel() }
        // Documents after the window, and changes inside it that keep their place: no query.
        for i in 20..<60 { try Self.set(service, [("c/d\(i)", ["a": .integer(Int64(i))])]) }
        try Self.set(service, [("c/d2", ["a": 2, "b": "x"])])
        try Self.set(service, [("c/new", ["a": -1])])
        stream.refresh()
        #expect(stream.reevaluations == 0)
        #expect(Set(sink.view()[1]?.keys.map(\.description) ?? []) == ["c/new", "c/d0", "c/d1", "c/d2", "c/d3"])
        // The first document leaves: the sixth moves in, found by running the window again.
        try Self.set(service, [("c/d0", nil)])
        stream.refresh()
        #expect(stream.reevaluations == 1)
        #expect(Set(sink.view()[1]?.keys.map(\.description) ?? []) == ["c/new", "c/d1", "c/d2", "c/d3", "c/d4"])
    }

    /// A deleted document is a DocumentDelete (the SDKs record it as missing); one that only left
    /// a query's result is a DocumentChange naming the target in `removed_target_ids` with its
    /// new state (the SDKs update their cache and need not ask again). A window that runs again
    /// looks up what it lost: a deleted document is a DocumentDelete there too.
    @Test func deletedDocumentsAreDeletesAndLeavingOnesAreChangesWithTheTargetRemoved() throws {
        let service = FirestoreService()
        try Self.set(service, (0..<6).map { ("c/d\($0)", ["a": .integer(1)]) })
        let sink = RecordingSink()
        let stream = Self.stream(service, sink, [
            Self.queryTarget(1, Self.query("c", filter: .field(Self.a, .equal, 1))),
            Self.queryTarget(2, Self.query("c", orderBy: [.init(Self.a)], limit: 3)),
        ])
        defer { stream.cancel() }
        let before = sink.all.count
        try Self.set(service, [("c/d4", nil)])
        try Self.set(service, [("c/d5", ["a": 2])])
        try Self.set(service, [("c/d0", nil)])
        stream.refresh()
        var deletes: [String] = []
        var removes: [String] = []
        var leaves: [String] = []
        for event in sink.all.dropFirst(before) {
            switch event {
            case .documentDelete(let name, let ids, _): deletes.append("\(ids) \(name.split(separator: "/").last ?? "")")
            case .documentRemove(let name, let ids, _): removes.append("\(ids) \(name.split(separator: "/").last ?? "")")
            case .documentChange(let d, _, let ids, let removed) where !removed.isEmpty:
                leaves.append("\(ids) \(removed) \(d.path) a=\(d.document.fields["a"].map { "\($0)" } ?? "-")")
            default: break
            }
        }
        #expect(deletes.sorted() == ["[1] d0", "[1] d4", "[2] d0"])
        #expect(removes == [])
        #expect(leaves == ["[] [1] c/d5 a=\(Value.integer(2))"])
    }

    @Test func unaffectedTargetsHearNothing() throws {
        let service = FirestoreService()
        let sink = RecordingSink()
        let targets = (0..<50).map { ListenTarget(id: Int32($0 + 1), kind: .documents([Self.name("c/d\($0)")]), once: false) }
        let stream = Self.stream(service, sink, targets)
        defer { stream.cancel() }
        let before = sink.all.count
        try Self.set(service, [("c/d7", ["a": 1])])
        stream.refresh()
        let after = Array(sink.all.dropFirst(before))
        #expect(after.count == 2)
        if case .documentChange(let d, _, let ids, _) = after.first { #expect(ids == [8] && d.path.description == "c/d7") } else {
            Issue.record("expected a document change, got \(after)")
        }
    }

    // MARK: Bad input

    @Test func tenThousandTargetsOnOneStream() throws {
        let service = FirestoreService()
        try Self.set(service, [("c/d5", ["a": 1])])
        let sink = RecordingSink()
        let targets = (0..<10_000).map { ListenTarget(id: Int32($0 + 1), kind: .documents([Self.name("c/d\($0)")]), once: false) }
        let stream = Self.stream(service, sink, targets)
        #expect(service.listenHub.filedCount(Self.database) == 10_000)
        let before = sink.all.count
        try Self.set(service, [("c/d9999", ["a": 2])])
        stream.refresh()
        #expect(sink.all.count == before + 2)
        stream.cancel()
        #expect(service.listenHub.filedCount(Self.database) == 0)
        #expect(!service.listenHub.isWatching(Self.database))
    }

    @Test func anInvalidQueryTargetIsRemovedWithInvalidArgumentAndLeavesNothingFiled() throws {
        let service = FirestoreService()
        let sink = RecordingSink()
        // A cursor with more values than the query has orders (`a`, `__name__`): invalid.
        let bad = Self.queryTarget(3, Self.query("c", orderBy: [.init(Self.a)], startAt: .init(values: [1, 2, 3], before: true)))
        let stream = Self.stream(service, sink, [bad, Self.queryTarget(4, Self.query("c"))])
        defer { stream.cancel() }
        let removed = sink.all.compactMap { e -> EmulatorError? in
            if case .targetChange(.remove, [3], _, _, let cause?) = e { return cause }
            return nil
        }
        #expect(removed.first?.code == .invalidArgument)
        #expect(service.listenHub.filedCount(Self.database) == 1)
        // The stream still serves the other target.
        try Self.set(service, [("c/x", ["a": 1])])
        stream.refresh()
        #expect(sink.view()[4]?.count == 1)
    }

    @Test func onceTargetsAndRemovedTargetsLeaveNothingFiled() throws {
        let service = FirestoreService()
        let sink = RecordingSink()
        let once = ListenTarget(id: 1, kind: .query(parent: Self.name(""), Self.query("c")), once: true)
        let stream = Self.stream(service, sink, [once, Self.queryTarget(2, Self.query("c"))])
        defer { stream.cancel() }
        #expect(service.listenHub.filedCount(Self.database) == 1)
        stream.receive { () throws(EmulatorError) in ListenRequest(database: Self.database.name, removeTarget: 2) }
        #expect(service.listenHub.filedCount(Self.database) == 0)
        let before = sink.all.count
        try Self.set(service, [("c/x", ["a": 1])])
        stream.refresh()
        #expect(sink.all.count == before)
    }

    @Test func aStreamThatGoesAwayUnfilesItsTargets() throws {
        let service = FirestoreService()
        do {
            let sink = RecordingSink()
            let stream = Self.stream(service, sink, [Self.queryTarget(1, Self.query("c"))])
            #expect(service.listenHub.isWatching(Self.database))
            _ = stream
        }
        #expect(!service.listenHub.isWatching(Self.database))
    }
}

extension ListenTarget {
    enum Decision: Equatable { case changes([Change]), reevaluate }

    /// Applies `document` (nil: deleted) at `path` as the stream does, collecting the changes.
    mutating func apply(_ path: ResourcePath, document: StoredDocument?) -> Decision {
        let key = ListenTarget.key(path)
        let entry = document.map(IncrementalListenTests.entry)
        var changes: [Change] = []
        let decided = apply(ChangedDocument(key: key, entry: entry), decode: { document }, emit: { changes.append($0) })
        return decided ? .changes(changes) : .reevaluate
    }
}

extension IncrementalListenTests {
    /// The stored entry of `d`, as a commit stores it.
    static func entry(_ d: StoredDocument) -> StoredEntry {
        StoredEntry(key: ListenTarget.key(d.path), value: ValueCodec.encode(d.fields), createTime: d.createTime, updateTime: d.updateTime)
    }
}

extension ListenTarget {
    /// The whole result at once (tests compare it with what a stream holds).
    mutating func evaluate(_ service: FirestoreService, caller: FirestoreCaller) throws(EmulatorError) -> ([StoredDocument], Int64) {
        var documents: [StoredDocument] = []
        let readTime = try evaluate(service, caller: caller, at: nil) { documents.append($0) }
        return (documents, readTime)
    }
}
