/// The superseded versions of one entry, oldest first, kept in chunks of at most
/// ``chunkSize`` versions.
///
/// A history is shared between the tree a commit copies and the published tree it copied, so the
/// commit's append finds it shared. A flat array would then copy every version (a retain of each
/// value) on every overwrite of a document, so a document written n times costs O(n) per write
/// while its history is kept; with chunks the append copies the list of chunks and the last
/// chunk only (about n / chunkSize + chunkSize retains).
///
/// Layout: the first chunk holds 1...chunkSize versions (dropping the oldest versions trims it),
/// every chunk between the first and the last holds exactly `chunkSize`, the last (when it is
/// not the first) 1...chunkSize. No chunk is empty.
struct VersionHistory: Sendable, RandomAccessCollection, ExpressibleByArrayLiteral {
    static let chunkSize = 32

    private var chunks: [[EntryVersion]] = []
    private(set) var count = 0

    init() {}

    init(arrayLiteral versions: EntryVersion...) {
        for version in versions { append(version) }
    }

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    subscript(index: Int) -> EntryVersion {
        let first = chunks[0].count
        if index < first { return chunks[0][index] }
        let rest = index - first
        return chunks[1 + rest / Self.chunkSize][rest % Self.chunkSize]
    }

    mutating func append(_ version: EntryVersion) {
        count += 1
        let last = chunks.count - 1
        // The first chunk, trimmed or not, takes versions while it is also the last.
        if last >= 0 && chunks[last].count < Self.chunkSize {
            chunks[last].append(version)
            return
        }
        var chunk: [EntryVersion] = []
        chunk.reserveCapacity(Self.chunkSize)
        chunk.append(version)
        chunks.append(chunk)
    }

    /// Removes the newest version (the history must not be empty).
    mutating func removeLast() {
        let last = chunks.count - 1
        chunks[last].removeLast()
        if chunks[last].isEmpty { chunks.removeLast() }
        count -= 1
    }

    /// Removes the `k` oldest versions (at most `count`).
    mutating func removeFirst(_ k: Int) {
        var k = Swift.min(k, count)
        count -= k
        var whole = 0
        while whole < chunks.count && k >= chunks[whole].count {
            k -= chunks[whole].count
            whole += 1
        }
        if whole > 0 { chunks.removeFirst(whole) }
        if k > 0 { chunks[0].removeFirst(k) }
    }
}
