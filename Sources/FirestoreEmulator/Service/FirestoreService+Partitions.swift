package import EmulatorModel
import EmulatorSupport

/// The answer to PartitionQuery: split points (document paths, in `__name__` order) and the
/// token of the next page.
package struct PartitionResult: Sendable, Equatable {
    package var cursors: [ResourcePath]
    package var nextPageToken: String?
}

extension FirestoreService {
    /// Documents per partition at least (production's minimum partition size, which the Python
    /// client's system test states: "Minimum partition size is 128").
    package static let minimumPartitionSize = 128

    /// PartitionQuery: split points that divide the collection group query's result into at most
    /// `partitionCount + 1` ranges of at least ``minimumPartitionSize`` documents each. Running the
    /// query up to the first point (`end_at` before it), between consecutive points and from the
    /// last one covers every document exactly once.
    ///
    /// Pages: `pageSize` points per call; the token names the next point and the read time of the
    /// first page, so later pages split the same state of the data.
    package func partitionQuery(
        _ database: DatabaseID, parent: ResourcePath, query: StructuredQuery, partitionCount: Int64,
        pageToken: String? = nil, pageSize: Int? = nil, readTime: Int64? = nil, caller: FirestoreCaller = .owner
    ) throws(EmulatorError) -> PartitionResult {
        try Self.validatePartitionQuery(parent: parent, query: query, partitionCount: partitionCount, pageSize: pageSize)
        let engine = try QueryEngine(query, database: database)
        var start = 0
        var time = readTime
        if let pageToken, !pageToken.isEmpty {
            guard let token = PartitionPageToken(pageToken) else { throw .invalidArgument("Invalid page token.") }
            if let readTime, readTime != token.readTime {
                throw .invalidArgument("The read_time of a page must be the read_time of the first page.")
            }
            (start, time) = (token.next, token.readTime)
        }
        if let time { try validateReadTime(time, now: store.currentTime()) }
        let (view, viewTime) = try store.view(database, at: time)
        try checkList(database, parent: parent, query: query, caller: caller, view: view, time: viewTime)
        guard let selector = query.from.first else { return PartitionResult(cursors: []) }
        var paths: [ResourcePath] = []
        for path in view.documentPaths(under: parent, collectionID: selector.collectionID.isEmpty ? nil : selector.collectionID) {
            if query.startAt != nil || query.endAt != nil {
                let probe = StoredDocument(path: path, fields: ValueMap(), createTime: 0, updateTime: 0)
                if !engine.withinCursors(probe) { continue }
            }
            paths.append(path)
        }
        paths.sort { ResourcePath.compare($0, $1) < 0 }
        let points = Self.splitPoints(count: paths.count, partitionCount: partitionCount)
        guard start < points.count else { return PartitionResult(cursors: []) }
        var end = points.count
        if let pageSize, pageSize > 0 { end = min(end, start + pageSize) }
        let cursors = points[start..<end].map { paths[$0] }
        let next = end < points.count ? PartitionPageToken(next: end, readTime: time ?? viewTime).text : nil
        return PartitionResult(cursors: cursors, nextPageToken: next)
    }

    /// Indexes into a result of `count` documents where partitions start (the first partition
    /// starts at 0, which is no point).
    static func splitPoints(count: Int, partitionCount: Int64) -> [Int] {
        // Partitions wanted: one more than the points asked for (any count above the documents'
        // gives the minimum size).
        let wanted = partitionCount >= Int64(count) ? count : Int(partitionCount) + 1
        let size = max(minimumPartitionSize, wanted <= 0 ? count : count / wanted + (count % wanted == 0 ? 0 : 1))
        var points: [Int] = []
        var i = size
        while i < count, points.count < partitionCount {
            points.append(i)
            i += size
        }
        return points
    }

    /// What production allows in a partitioned query: a collection group (all descendants) from
    /// the documents root, ordered by `__name__` ascending and nothing else; `start_at` and
    /// `end_at` (which the Python client passes on) narrow the range.
    static func validatePartitionQuery(
        parent: ResourcePath, query: StructuredQuery, partitionCount: Int64, pageSize: Int?
    ) throws(EmulatorError) {
        guard parent.isEmpty else {
            throw .invalidArgument(
                "Document resource names are not supported for PartitionQuery; the parent must be the database's documents root.")
        }
        try validateParent(parent, query)
        guard query.from.count == 1, let selector = query.from.first, selector.allDescendants else {
            throw .invalidArgument("PartitionQuery requires a collection group query (all_descendants must be true).")
        }
        if query.filter != nil { throw .invalidArgument("PartitionQuery does not support filters.") }
        if query.limit != nil { throw .invalidArgument("PartitionQuery does not support limit.") }
        if query.offset != 0 { throw .invalidArgument("PartitionQuery does not support offset.") }
        let byName = query.orderBy.isEmpty
            || (query.orderBy.count == 1 && query.orderBy[0].field.isDocumentID && query.orderBy[0].direction == .ascending)
        guard byName else { throw .invalidArgument("PartitionQuery requires the query to be ordered by __name__ ascending.") }
        if partitionCount <= 0 { throw .invalidArgument("partition_count must be positive.") }
        if let pageSize, pageSize < 0 { throw .invalidArgument("page_size must not be negative.") }
    }
}

/// `next_page_token` of PartitionQuery: the index of the next split point and the read time of
/// the first page, as URL-safe Base64 of `p<next>@<micros>`.
struct PartitionPageToken: Equatable {
    var next: Int
    var readTime: Int64

    init(next: Int, readTime: Int64) {
        self.next = next
        self.readTime = readTime
    }

    init?(_ text: String) {
        guard let bytes = Base64.decode(text, alphabet: .urlSafe), bytes.first == UInt8(ascii: "p"),
            let at = bytes.firstIndex(of: UInt8(ascii: "@")),
            let next = Int(String(decoding: bytes[1..<at], as: UTF8.self)), next >= 0,
            let time = Int64(String(decoding: bytes[(at + 1)...], as: UTF8.self)), time > 0
        else { return nil }
        self.init(next: next, readTime: time)
    }

    var text: String { Base64.encode(Array("p\(next)@\(readTime)".utf8), alphabet: .urlSafe, padding: false) }
}
