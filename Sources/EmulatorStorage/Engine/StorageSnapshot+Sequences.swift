/// Live entries of one range at one read time.
package struct EntrySequence: Sequence, Sendable {
    let view: TreeView
    let range: StorageKeyRange
    let readTime: CommitTime
    let reverse: Bool

    init(view: TreeView, range: StorageKeyRange, readTime: CommitTime, reverse: Bool) {
        self.view = view
        self.range = range
        self.readTime = readTime
        self.reverse = reverse
    }

    package struct Iterator: IteratorProtocol {
        var cursor: StackCursor
        /// The part of the range the current tree answers.
        var range: StorageKeyRange
        let readTime: CommitTime
        let reverse: Bool
        /// With retired subtrees in view: the whole range, the pieces, and the next piece to read.
        let whole: StorageKeyRange
        let pieces: [TreePiece]
        var nextPiece: Int

        package mutating func next() -> StoredEntry? {
            while true {
                if let found = nextInPiece() { return found }
                guard moveToNextPiece() else { return nil }
            }
        }

        @inline(__always)
        private mutating func nextInPiece() -> StoredEntry? {
            while let entry = cursor.current {
                if reverse {
                    if ByteOrder.less(entry.key, range.lower) { return nil }
                    cursor.previous()
                } else {
                    if let upper = range.upper, !ByteOrder.less(entry.key, upper) { return nil }
                    cursor.next()
                }
                if let visible = entry.visible(at: readTime) {
                    return StoredEntry(
                        key: StorageKey(trustedEncoding: entry.key), value: visible.value,
                        createTime: visible.createTime, updateTime: visible.updateTime)
                }
            }
            return nil
        }

        /// Moves to the next piece (in reading order) that overlaps the range.
        private mutating func moveToNextPiece() -> Bool {
            while nextPiece >= 0 && nextPiece < pieces.count {
                let piece = pieces[nextPiece]
                nextPiece += reverse ? -1 : 1
                let part = whole.clamped(to: piece.range)
                guard !part.isEmpty else { continue }
                range = part
                cursor = StackCursor(piece.stack)
                if reverse { cursor.seek(below: part.upper) } else { cursor.seek(atLeast: part.lower) }
                return true
            }
            return false
        }
    }

    package func makeIterator() -> Iterator {
        if !view.pieces.isEmpty {
            // Start before the first piece; `next` moves into it.
            var iterator = Iterator(
                cursor: StackCursor(TreeStack(root: StorageSnapshot.emptyRoot)), range: StorageKeyRange(lower: [], upper: []),
                readTime: readTime, reverse: reverse, whole: range, pieces: view.pieces,
                nextPiece: reverse ? view.pieces.count - 1 : 0)
            if range.isEmpty { iterator.nextPiece = -1 }
            return iterator
        }
        var cursor = StackCursor(view.stack)
        if !range.isEmpty {
            if reverse { cursor.seek(below: range.upper) } else { cursor.seek(atLeast: range.lower) }
        } else {
            cursor.seek(below: [])
        }
        return Iterator(cursor: cursor, range: range, readTime: readTime, reverse: reverse, whole: range, pieces: [], nextPiece: -1)
    }
}

/// One immediate child found by `StorageSnapshot.children`.
package struct ChildEntry: Sendable, Equatable {
    package var key: StorageKey
    /// The child's own live entry, if it has one (it may only have descendants).
    package var entry: StoredEntry?
}

/// Immediate children of a key, found by seeking past each child's subtree.
package struct ChildSequence: Sequence, Sendable {
    let view: TreeView
    let parent: StorageKey
    let range: StorageKeyRange
    let readTime: CommitTime
    let reverse: Bool

    package struct Iterator: IteratorProtocol {
        let sequence: ChildSequence
        var lower: [UInt8]
        var upper: [UInt8]?
        var done = false

        package mutating func next() -> ChildEntry? {
            guard !done else { return nil }
            let window = StorageKeyRange(lower: lower, upper: upper)
            var entries = EntrySequence(
                view: sequence.view, range: window, readTime: sequence.readTime, reverse: sequence.reverse
            ).makeIterator()
            guard let found = entries.next() else {
                done = true
                return nil
            }
            let childKey = childOf(found.key.encoded)
            let child = StorageKey(trustedEncoding: childKey)
            if sequence.reverse {
                upper = childKey
                guard !ByteOrder.less(childKey, sequence.range.lower) else {
                    done = true
                    return nil
                }
                let own = childKey.count == found.key.encoded.count
                    ? found : StorageSnapshot.visibleEntry(sequence.view, child, sequence.readTime)
                return ChildEntry(key: child, entry: own)
            }
            lower = child.subtreeEnd ?? []
            if !ByteOrder.less(childKey, sequence.range.lower) {
                return ChildEntry(key: child, entry: childKey.count == found.key.encoded.count ? found : nil)
            }
            // The child itself lies before the range (only part of its subtree is inside): skip it.
            return next()
        }

        /// The prefix of `key` that ends after the segment following the parent.
        private func childOf(_ key: [UInt8]) -> [UInt8] {
            var end = sequence.parent.encoded.count
            while end < key.count && key[end] != 0 { end += 1 }
            return Array(key[0...Swift.min(end, key.count - 1)])
        }
    }

    package func makeIterator() -> Iterator {
        Iterator(sequence: self, lower: range.lower, upper: range.upper)
    }
}

/// Index hits of one range.
package struct IndexSequence: Sequence, Sendable {
    let entries: EntrySequence

    package struct Iterator: IteratorProtocol {
        var entries: EntrySequence.Iterator
        package mutating func next() -> IndexHit? {
            entries.next().map { SecondaryIndex.hit($0.key.encoded) }
        }
    }

    package func makeIterator() -> Iterator { Iterator(entries: entries.makeIterator()) }
}

extension StorageSnapshot {
    static func visibleEntry(_ view: TreeView, _ key: StorageKey, _ readTime: CommitTime) -> StoredEntry? {
        guard let entry = view.entry(key.encoded), let visible = entry.visible(at: readTime) else {
            return nil
        }
        return StoredEntry(key: key, value: visible.value, createTime: visible.createTime, updateTime: visible.updateTime)
    }
}
