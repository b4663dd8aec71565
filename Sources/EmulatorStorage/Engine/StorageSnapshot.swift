/// A consistent, immutable view of every namespace at one read time.
///
/// Snapshots are values: cheap to take, safe to share across threads, and never changed by
/// later commits.
///
/// ```swift
/// let snapshot = try engine.snapshot()
/// let doc = snapshot.get("firestore/p/(default)", StorageKey("users/alice"))
/// for child in snapshot.children("database/ns", of: StorageKey("rooms")) { print(child.key) }
/// ```
package struct StorageSnapshot: Sendable {
    let state: EngineState
    /// Entries visible are those whose version time is ≤ this.
    package let readTime: CommitTime
    /// True if this snapshot saw the head (no commit after `readTime` had happened): index scans work.
    package let isHead: Bool

    init(state: EngineState, readTime: CommitTime, isHead: Bool) {
        self.state = state
        self.readTime = readTime
        self.isHead = isHead
    }

    /// Namespaces that hold or held data, in order.
    package var namespaces: [NamespaceID] { state.namespaces.keys.sorted() }

    /// Whether `namespace` holds or held data.
    package func holds(_ namespace: NamespaceID) -> Bool { state.namespaces.contains(namespace) }

    /// The live entry at `key`, or nil.
    package func get(_ namespace: NamespaceID, _ key: StorageKey) -> StoredEntry? {
        read(namespace) { StorageSnapshot.get($0, key, readTime) } ?? nil
    }

    /// Runs `body` on a namespace's state, borrowed where the table keeps it (see
    /// `NamespaceTable`), or returns nil if there is none.
    @inline(__always)
    private func read<R>(_ namespace: NamespaceID, _ body: (borrowing NamespaceState) -> R) -> R? {
        state.namespaces.withState(namespace, body)
    }

    @inline(__always)
    private static func get(_ space: borrowing NamespaceState, _ key: StorageKey, _ readTime: CommitTime) -> StoredEntry? {
        if let stack = space.retiredStack(for: key.encoded, at: readTime) {
            return StorageSnapshot.visibleEntry(TreeView(stack: stack), key, readTime)
        }
        guard let (leaf, index) = space.headSlot(key.encoded, probingMain: false) else { return nil }
        // `space` holds the leaf for the rest of this call.
        return leaf._withUnsafeGuaranteedRef { leaf -> StoredEntry? in
            let slot = leaf.slots[index]
            if slot.updateTime <= readTime {
                // The common case: the current version, read without materializing the entry.
                guard let value = leaf.value(at: index) else { return nil }
                return StoredEntry(key: key, value: value, createTime: slot.createTime, updateTime: slot.updateTime)
            }
            guard let visible = leaf.entry(at: index).visible(at: readTime) else { return nil }
            return StoredEntry(key: key, value: visible.value, createTime: visible.createTime, updateTime: visible.updateTime)
        }
    }

    /// Live entries in `range`, in key order (or reverse), lazily.
    package func scan(_ namespace: NamespaceID, _ range: StorageKeyRange = .all, reverse: Bool = false) -> EntrySequence {
        EntrySequence(view: view(namespace), range: range, readTime: readTime, reverse: reverse)
    }

    /// The immediate children of `parent` that have a live entry at or below them, in key order
    /// (or reverse), skipping grandchildren by seeking. `range` restricts the child keys.
    package func children(
        _ namespace: NamespaceID, of parent: StorageKey, in range: StorageKeyRange = .all, reverse: Bool = false
    ) -> ChildSequence {
        ChildSequence(
            view: view(namespace), parent: parent,
            range: StorageKeyRange.descendants(of: parent).clamped(to: range), readTime: readTime, reverse: reverse)
    }

    /// Number of live entries in the namespace; only known for head snapshots (nil otherwise).
    package func count(_ namespace: NamespaceID) -> Int? {
        guard isHead else { return nil }
        return read(namespace) { $0.liveCount } ?? 0
    }

    /// Index hits in index order (or reverse). Only head snapshots can scan indexes: an older
    /// read time throws `.indexUnavailable` and the caller falls back to `scan`.
    package func scanIndex(
        _ namespace: NamespaceID, _ id: String, _ range: IndexRange = .all, reverse: Bool = false
    ) throws(StorageError) -> IndexSequence {
        guard isHead else { throw StorageError(.indexUnavailable, "index scans need a head snapshot") }
        guard let index = read(namespace, { $0.indexes[id] }) ?? nil else {
            throw StorageError(.indexUnavailable, "no index \(id) in \(namespace)")
        }
        return IndexSequence(entries: EntrySequence(
            view: TreeView(stack: TreeStack(root: index.tree.root)), range: range.keyRange, readTime: .max, reverse: reverse))
    }

    /// True if the namespace has an index with this id.
    package func hasIndex(_ namespace: NamespaceID, _ id: String) -> Bool {
        read(namespace) { $0.indexes[id] != nil } ?? false
    }

    private func view(_ namespace: NamespaceID) -> TreeView {
        read(namespace) { $0.view(at: readTime) } ?? TreeView(stack: TreeStack(root: StorageSnapshot.emptyRoot))
    }

    static let emptyRoot = TreeNode.leaf()
}
