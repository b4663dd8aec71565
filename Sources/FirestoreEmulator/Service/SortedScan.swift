import EmulatorModel
import EmulatorStorage

/// The documents of a query sorted on fields, from one snapshot. The sort needs every match, so
/// the first ``next(skipped:probe:)`` reads them all through an ``UnorderedScan``, but keeps of each
/// only its path and the values it is sorted by; once sorted and windowed, each document is read
/// and decoded again as it is handed out. A small window (offset + limit ≤ ``keptWindow``) keeps
/// its documents instead, so the common `orderBy f limit n` decodes each document once.
///
/// Memory is then one path and the sort values per match (per document of the window with a
/// limit), not whole documents.
struct SortedScan: QueryDocumentProducer {
    /// A window up to this size keeps its decoded documents.
    static let keptWindow = 100

    private struct Ranked {
        var path: ResourcePath
        /// The values of the ranked fields other than `__name__`, in ranking order.
        var values: [Value]
        var document: StoredDocument?
    }

    private let engine: QueryEngine
    private let snapshot: StorageSnapshot
    private let namespace: NamespaceID
    /// The query's matches in key order, until they are ranked.
    private var matches: UnorderedScan?
    /// The window, last first, once sorted.
    private var window: [Ranked] = []
    private(set) var held = 0

    init(engine: QueryEngine, parent: ResourcePath, snapshot: StorageSnapshot, namespace: NamespaceID, index: (id: String, range: IndexRange)?) {
        self.engine = engine
        self.snapshot = snapshot
        self.namespace = namespace
        matches = UnorderedScan(engine: engine, parent: parent, snapshot: snapshot, namespace: namespace, index: index)
    }

    mutating func next(skipped: inout Int, probe: QueryCursorProbe?) throws(EmulatorError) -> StoredDocument? {
        if var matches {
            self.matches = nil
            try rank(&matches, skipped: &skipped, probe: probe)
        }
        guard let top = window.popLast() else { return nil }
        if let document = top.document {
            held -= 1
            return document
        }
        guard let entry = snapshot.get(namespace, DatabaseView<StorageSnapshot>.key(top.path)) else {
            throw .internal("A document of the query's snapshot is gone: \(top.path).")
        }
        probe?.decoded(1)
        return try DatabaseView<StorageSnapshot>.decode(entry, path: top.path)
    }

    /// Reads every candidate, keeps the matches' sort keys, sorts them and cuts the window.
    private mutating func rank(_ matches: inout UnorderedScan, skipped: inout Int, probe: QueryCursorProbe?) throws(EmulatorError) {
        let query = engine.query
        let fields = engine.rank.filter { !$0.field.isDocumentID }.map(\.field)
        let limit = query.limit ?? Int.max
        let (sum, overflow) = query.offset.addingReportingOverflow(limit)
        let wanted = overflow ? Int.max : sum
        let keep = wanted <= Self.keptWindow
        let bounded = wanted < 4096
        var ranked: [Ranked] = []
        var none = 0
        while let document = try matches.next(skipped: &none, probe: probe) {
            let item = Ranked(path: document.path, values: fields.map { document.fields.value(at: $0) ?? .null }, document: keep ? document : nil)
            if !keep { probe?.release(1) }
            guard bounded else {
                ranked.append(item)
                continue
            }
            // The `wanted` first so far, in order.
            if QueryEngine.insert(item, into: &ranked, keeping: wanted, by: compare), keep { probe?.release(1) }
        }
        if !bounded { ranked.sort { compare($0, $1) < 0 } }
        let start = min(query.offset, ranked.count)
        let end = min(ranked.count, start + min(limit, ranked.count))
        skipped = start
        if keep { probe?.release(start + ranked.count - end) }
        window = ranked[start..<end].reversed()
        held = keep ? window.count : 0
    }

    /// The ranking's order: negative when `a` comes first.
    private func compare(_ a: Ranked, _ b: Ranked) -> Int {
        var i = 0
        for o in engine.rank {
            let c: Int
            if o.field.isDocumentID {
                c = ResourcePath.compare(a.path, b.path)
            } else {
                c = Value.compare(a.values[i], b.values[i])
                i += 1
            }
            if c != 0 { return o.direction == .ascending ? c : -c }
        }
        return 0
    }
}
