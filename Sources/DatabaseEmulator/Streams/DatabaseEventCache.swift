import EmulatorModel

/// The events of one commit, computed and encoded once per stream location and query, however
/// many groups (one per credential) watch it. Lives for one delivery, under the namespace lock.
///
/// ```swift
/// var cache = DatabaseEventCache()
/// let bytes = group.eventBytes(for: write, locations: locations, after: after, cache: &cache)
/// ```
struct DatabaseEventCache {
    private struct Entry {
        var query: DatabaseQueryParams
        /// The view of a query stream (or the new value of a plain one) after the commit.
        var view: DatabaseNode?
        /// `put /` of `view`, encoded.
        var putBytes: [UInt8]?
        /// The encoded event of a plain stream (nil inside: the commit sends it nothing).
        var eventBytes: [UInt8]??
    }

    private var entries: [[UInt8]: [Entry]] = [:]

    /// The view `query` selects at `path` after the commit.
    mutating func view(at path: DatabasePath, query: DatabaseQueryParams, _ make: () -> DatabaseNode) -> DatabaseNode {
        let (key, i) = slot(path, query)
        if let view = entries[key]?[i].view { return view }
        let view = make()
        entries[key]?[i].view = view
        return view
    }

    /// `put /` of the view at `path` for `query`, encoded.
    mutating func putBytes(at path: DatabasePath, query: DatabaseQueryParams, _ make: () -> [UInt8]) -> [UInt8] {
        let (key, i) = slot(path, query)
        if let bytes = entries[key]?[i].putBytes { return bytes }
        let bytes = make()
        entries[key]?[i].putBytes = bytes
        return bytes
    }

    /// The encoded event of a plain (whole-location) stream at `path`, or nil for none.
    mutating func eventBytes(at path: DatabasePath, query: DatabaseQueryParams, _ make: () -> [UInt8]?) -> [UInt8]? {
        let (key, i) = slot(path, query)
        if let cached = entries[key]?[i].eventBytes { return cached }
        let bytes = make()
        entries[key]?[i].eventBytes = .some(bytes)
        return bytes
    }

    /// The entry for (`path`, `query`), created when new. Keys cannot contain `/`, so joining
    /// them with it names each path once (by bytes, not by `String` equality).
    private mutating func slot(_ path: DatabasePath, _ query: DatabaseQueryParams) -> (key: [UInt8], index: Int) {
        var key: [UInt8] = []
        for segment in path.keys {
            key.append(UInt8(ascii: "/"))
            key.append(contentsOf: segment.utf8)
        }
        if let i = entries[key]?.firstIndex(where: { $0.query == query }) { return (key, i) }
        entries[key, default: []].append(Entry(query: query))
        return (key, entries[key, default: []].count - 1)
    }
}
