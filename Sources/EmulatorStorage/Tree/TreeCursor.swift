/// A position in a `VersionedTree`, moving entry by entry in either direction.
struct TreeCursor {
    private var path: [(node: TreeNode, child: Int)] = []
    private var leaf: TreeNode?
    private var position = 0
    private let root: TreeNode

    init(root: TreeNode) { self.root = root }

    /// The entry under the cursor, or nil when it has run off either end.
    var current: VersionedEntry? {
        guard let leaf else { return nil }
        return leaf.entry(at: position)
    }

    /// The leaf and slot of the current entry, read in place (nil when the cursor has run off
    /// either end). The leaf stays alive while the cursor's root does.
    var currentSlot: (leaf: Unmanaged<TreeNode>, index: Int)? {
        guard let leaf else { return nil }
        return (Unmanaged.passUnretained(leaf), position)
    }

    /// Calls `body` with the bytes of the current key (nil when the cursor has run off either end).
    func withCurrentKey<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R? {
        guard let leaf else { return nil }
        return leaf.withKey(at: position, body)
    }

    /// Moves to the first entry with key ≥ `key`.
    mutating func seek(atLeast key: [UInt8]) {
        path.removeAll(keepingCapacity: true)
        var node = root
        while !node.isLeaf {
            let index = node.childIndex(for: key)
            path.append((node, index))
            node = node.children[index]
        }
        leaf = node
        position = node.entryIndex(for: key).index
        if position >= node.count { advanceLeaf() }
    }

    /// Moves to the last entry with key < `key` (the last entry when `key` is nil).
    mutating func seek(below key: [UInt8]?) {
        path.removeAll(keepingCapacity: true)
        var node = root
        while !node.isLeaf {
            let index = key.map { node.childIndex(for: $0) } ?? node.children.count - 1
            path.append((node, index))
            node = node.children[index]
        }
        leaf = node
        position = (key.map { node.entryIndex(for: $0).index } ?? node.count) - 1
        if position < 0 { retreatLeaf() }
    }

    mutating func next() {
        guard let leaf else { return }
        position += 1
        if position >= leaf.count { advanceLeaf() }
    }

    mutating func previous() {
        guard leaf != nil else { return }
        position -= 1
        if position < 0 { retreatLeaf() }
    }

    private mutating func advanceLeaf() {
        while let (node, child) = path.popLast() {
            guard child + 1 < node.children.count else { continue }
            path.append((node, child + 1))
            var next = node.children[child + 1]
            while !next.isLeaf {
                path.append((next, 0))
                next = next.children[0]
            }
            if next.slots.isEmpty { continue }
            leaf = next
            position = 0
            return
        }
        leaf = nil
    }

    private mutating func retreatLeaf() {
        while let (node, child) = path.popLast() {
            guard child > 0 else { continue }
            path.append((node, child - 1))
            var next = node.children[child - 1]
            while !next.isLeaf {
                path.append((next, next.children.count - 1))
                next = next.children[next.children.count - 1]
            }
            if next.slots.isEmpty { continue }
            leaf = next
            position = next.count - 1
            return
        }
        leaf = nil
    }
}
