/// The main tree of a namespace and what travels with it: its live count and its key filters.
/// A drain changes only this and the `draining` tree, so it can run on a copy while commits go
/// on (`LevelJob`), and the copy replaces the namespace's if the namespace still holds the same
/// trees when it is done.
struct MainLevel: Sendable {
    var tree = VersionedTree()
    /// A superset of the main tree's keys.
    var filter = KeyFilter()
    /// A larger filter being filled a stretch per drain (from `nextFilterCursor` on, and with
    /// every key moved meanwhile), to replace `filter` before it fills up.
    var nextFilter = KeyFilter()
    var nextFilterCursor: [UInt8] = []
    /// Number of live entries in the main tree (superseded or not by upper trees).
    var live = 0

    /// Copies the first `count` entries of `source` (which no upper tree's entries may hide)
    /// into the main tree and its filters, pruning versions no read can see any more; an entry
    /// left with nothing leaves the main tree. `liveCount` (the namespace's) sizes new filters.
    /// Returns how many moved, the last key moved, and whether `source` has no more entries.
    mutating func moveIn(
        first count: Int, of source: VersionedTree, horizon: CommitTime, liveCount: Int
    ) -> (moved: Int, last: [UInt8]?, exhausted: Bool) {
        if !filter.isActive { filter = KeyFilter(keysOf: tree, minimumCapacity: max(liveCount, 1024) * 2) }
        var cursor = TreeCursor(root: source.root)
        cursor.seek(atLeast: [])
        var newFilter = KeyFilter()
        var newNextFilter = KeyFilter()
        swap(&newFilter, &filter)
        swap(&newNextFilter, &nextFilter)
        var lastSlot: (leaf: Unmanaged<TreeNode>, index: Int)?
        var liveChange = 0
        let moved = tree.merge(&cursor, limit: count, horizon: horizon) { leaf, index, replaced in
            let isLive = leaf.slots[index].valueKind != LeafSlot.tombstone
            let wasLive = replaced.map { $0.valueKind != LeafSlot.tombstone } ?? false
            liveChange += (isLive ? 1 : 0) - (wasLive ? 1 : 0)
            lastSlot = (Unmanaged.passUnretained(leaf), index)
            // A key the main tree held is in its filters already (the next filter takes the
            // tree's keys behind its cursor, and its cursor will reach the others).
            guard replaced == nil else { return }
            let hash = leaf.withKey(at: index) { KeyFilter.hash($0) }
            newFilter.insert(hash)
            newNextFilter.insert(hash)
        }
        swap(&newFilter, &filter)
        swap(&newNextFilter, &nextFilter)
        live += liveChange
        // `source` still holds the leaf.
        let last = lastSlot.map { slot in slot.leaf._withUnsafeGuaranteedRef { $0.key(at: slot.index) } }
        growFilter(scanning: 4 * max(moved, 1024), liveCount: liveCount)
        return (moved, last, cursor.currentSlot == nil)
    }

    /// Once the filter is three quarters full, fills a filter twice the size from the main
    /// tree's keys, `keys` of them per call, and swaps it in when it has them all: the cost of
    /// growing the filter is spread over the drains instead of landing on one commit.
    mutating func growFilter(scanning keys: Int, liveCount: Int) {
        if !nextFilter.isActive {
            guard filter.added * 4 > filter.capacity * 3 else { return }
            nextFilter = KeyFilter(capacity: max(filter.capacity, liveCount) * 2)
            nextFilterCursor = []
        }
        var cursor = TreeCursor(root: tree.root)
        cursor.seek(atLeast: nextFilterCursor)
        var scanned = 0
        while scanned < keys, let hash = cursor.withCurrentKey({ KeyFilter.hash($0) }) {
            nextFilter.insert(hash)
            scanned += 1
            cursor.next()
        }
        if let position = cursor.withCurrentKey({ Array($0) }) {
            nextFilterCursor = position
        } else {
            filter = nextFilter
            nextFilter = KeyFilter()
            nextFilterCursor = []
        }
    }
}
