extension StorageEngine {
    /// Checks the head state's structure and returns every violation found (empty when sound):
    /// tree order and shape, version chains, live counts and index contents. For tests; O(data).
    package func invariantViolations() -> [String] {
        (try? snapshot())?.state.invariantViolations() ?? ["snapshot failed"]
    }
}

extension EngineState {
    func invariantViolations() -> [String] {
        var problems: [String] = []
        for (namespace, space) in namespaces {
            var entryProblems: [String] = []
            let levels: [(name: String, tree: VersionedTree, filter: KeyFilter?)] = [("pending", space.pending, space.pendingFilter)]
                + space.fresh.enumerated().map { ("fresh \($0.offset)", VersionedTree(root: $0.element.root), $0.element.filter) }
                + [
                    ("recent", space.recent, space.recentFilter), ("draining", space.draining, space.drainingFilter),
                    ("main", space.main.tree, space.main.filter),
                ]
            for level in levels {
                var previous: [UInt8]?
                var leafDepth: Int?
                level.tree.root.check(
                    depth: 0, lower: nil, upper: nil, isRoot: true, leafDepth: &leafDepth, problems: &problems
                ) { entry in
                    if let previous, !ByteOrder.less(previous, entry.key) {
                        entryProblems.append("\(namespace): \(level.name) keys out of order at \(StorageKey(trustedEncoding: entry.key))")
                    }
                    previous = entry.key
                    entryProblems.append(contentsOf: entry.violations(lastCommit: lastCommitTime).map { "\(namespace): \($0)" })
                    if let filter = level.filter, !filter.mayContain(KeyFilter.hash(entry.key)) {
                        entryProblems.append("\(namespace): \(level.name) filter lacks \(StorageKey(trustedEncoding: entry.key))")
                    }
                }
            }
            problems.append(contentsOf: entryProblems)
            var live = 0
            var cursor = StackCursor(space.headStack)
            cursor.seek(atLeast: [])
            while let entry = cursor.current {
                if entry.isLive { live += 1 }
                cursor.next()
            }
            var mainLive = 0
            space.main.tree.root.forEachLiveSlot { mainLive += 1 }
            if mainLive != space.main.live {
                problems.append("\(namespace): mainLive \(space.main.live) but \(mainLive) live entries in the main tree")
            }
            if live != space.liveCount {
                problems.append("\(namespace): liveCount \(space.liveCount) but \(live) live entries")
            }
            for (id, index) in space.indexes {
                var expected = SecondaryIndex(definition: index.definition)
                expected.build(from: space.headStack)
                let want = EntrySequence(
                    view: TreeView(stack: TreeStack(root: expected.tree.root)), range: .all, readTime: .max, reverse: false
                ).map(\.key)
                let have = EntrySequence(
                    view: TreeView(stack: TreeStack(root: index.tree.root)), range: .all, readTime: .max, reverse: false
                ).map(\.key)
                if want != have { problems.append("\(namespace): index \(id) has \(have.count) hits, expected \(want.count)") }
            }
            problems.append(contentsOf: space.retiredViolations(lastCommit: lastCommitTime, retainedSince: retainedSince).map {
                "\(namespace): \($0)"
            })
            if let first = space.retired.first, first.time < earliestRetired {
                problems.append("\(namespace): retired subtree at \(first.time) before earliestRetired \(earliestRetired)")
            }
        }
        return problems
    }
}

extension NamespaceState {
    /// Retired subtrees: in time order, cut after the retained horizon and by a past commit,
    /// each tree sound and holding only its subtree.
    func retiredViolations(lastCommit: CommitTime, retainedSince: CommitTime) -> [String] {
        var problems: [String] = []
        var previous: RetiredSubtree?
        for record in retired {
            if let previous, previous.time > record.time { problems.append("retired subtrees out of time order") }
            if record.time <= retainedSince { problems.append("retired subtree \(record.subtree) outlived the horizon") }
            if record.time > lastCommit { problems.append("retired subtree \(record.subtree) after the last commit") }
            var outside = 0
            let range = record.range
            for root in record.stack.roots {
                var leafDepth: Int?
                root.check(depth: 0, lower: nil, upper: nil, isRoot: true, leafDepth: &leafDepth, problems: &problems) { entry in
                    if !range.contains(entry.key) { outside += 1 }
                }
            }
            if outside > 0 { problems.append("retired subtree \(record.subtree) keeps \(outside) entries outside it") }
            previous = record
        }
        return problems
    }
}

extension VersionedEntry {
    func violations(lastCommit: CommitTime) -> [String] {
        var problems: [String] = []
        let name = StorageKey(trustedEncoding: key).description
        if !isRetained { problems.append("\(name): dead entry kept") }
        if updateTime > lastCommit { problems.append("\(name): update time after last commit") }
        if value != nil && createTime > updateTime { problems.append("\(name): create time after update time") }
        var time = CommitTime.min
        for version in history {
            if version.time <= time { problems.append("\(name): history out of order") }
            time = version.time
        }
        if let last = history.last, last.time >= updateTime { problems.append("\(name): history not before current") }
        return problems
    }
}

extension TreeNode {
    func forEachLiveSlot(_ body: () -> Void) {
        guard isLeaf else {
            for child in children { child.forEachLiveSlot(body) }
            return
        }
        for slot in slots where slot.valueKind != LeafSlot.tombstone { body() }
    }

    func check(
        depth: Int, lower: [UInt8]?, upper: [UInt8]?, isRoot: Bool, leafDepth: inout Int?,
        problems: inout [String], visit: (VersionedEntry) -> Void
    ) {
        if isLeaf {
            if leafDepth == nil { leafDepth = depth }
            if leafDepth != depth { problems.append("leaves at depths \(leafDepth ?? -1) and \(depth)") }
            if slots.isEmpty && !isRoot { problems.append("empty non-root leaf") }
            if slots.count > TreeNode.maxLeafEntries { problems.append("overfull leaf") }
            let keys = slots.indices.map(key(at:))
            let hints = hintValues
            if hints.count != keys.count
                || zip(keys, hints).contains(where: { !$0.0.starts(with: keys[0].prefix(hintOffset)) || $0.0.count < hintOffset || TreeNode.hint($0.0, hintOffset) != $0.1 }) {
                problems.append("leaf hints out of step")
            }
            if let first = keys.first, prefixHint != TreeNode.hint(Array(first.prefix(Swift.min(hintOffset, 8))), 0) {
                problems.append("leaf prefix hint out of step")
            }
            for index in slots.indices {
                let entry = entry(at: index)
                if let lower, ByteOrder.less(entry.key, lower) { problems.append("key below its separator") }
                if let upper, !ByteOrder.less(entry.key, upper) { problems.append("key at or above its separator") }
                visit(entry)
            }
            return
        }
        if separatorCount != children.count - 1 { problems.append("separator count mismatch") }
        let separators = (0..<separatorCount).map(separator(at:))
        let hints = hintValues
        if hints.count != separators.count
            || zip(separators, hints).contains(where: { !$0.0.starts(with: separators[0].prefix(hintOffset)) || $0.0.count < hintOffset || TreeNode.hint($0.0, hintOffset) != $0.1 }) {
            problems.append("separator hints out of step")
        }
        if let first = separators.first, prefixHint != TreeNode.hint(Array(first.prefix(Swift.min(hintOffset, 8))), 0) {
            problems.append("separator prefix out of step")
        }
        if children.count < (isRoot ? 2 : 1) { problems.append("internal node with \(children.count) children") }
        if children.count > TreeNode.maxChildren { problems.append("overfull internal node") }
        for (index, child) in children.enumerated() {
            let childLower = index > 0 ? separator(at: index - 1) : lower
            let childUpper = index < separatorCount ? separator(at: index) : upper
            child.check(
                depth: depth + 1, lower: childLower, upper: childUpper, isRoot: false, leafDepth: &leafDepth,
                problems: &problems, visit: visit)
        }
    }
}

extension StorageEngine {
    /// One line on how `namespace`'s entries are spread over its levels (for benchmarks).
    package func levelSummary(_ namespace: NamespaceID) -> String {
        guard let space = (try? snapshot())?.state.namespaces[namespace] else { return "no namespace \(namespace)" }
        func count(_ root: TreeNode) -> Int {
            var keys = 0
            root.forEachKey { _ in keys += 1 }
            return keys
        }
        let fresh = space.fresh.map { String(count($0.root)) }.joined(separator: "+")
        return "pending \(count(space.pending.root)), fresh [\(fresh)], recent \(count(space.recent.root)), "
            + "draining \(count(space.draining.root)), main \(count(space.main.tree.root)); filters (bytes): "
            + "recent \(space.recentFilter.words.count * 8), draining \(space.drainingFilter.words.count * 8), "
            + "main \(space.main.filter.words.count * 8); merges under way: \(space.mergesUnderWay)"
    }
}

extension StorageEngine {
    /// Bytes of superseded versions the head still holds in `namespace` (every level), plus the
    /// number of retired subtrees kept for reads at earlier times: what history costs there.
    package func historyFootprint(of namespace: NamespaceID) -> (bytes: Int, retiredSubtrees: Int) {
        guard let state = try? snapshot().state, let space = state.namespaces[namespace] else { return (0, 0) }
        let roots = [space.pending.root] + space.fresh.map(\.root) + [space.recent.root, space.draining.root, space.main.tree.root]
        var bytes = 0
        for root in roots {
            var problems: [String] = []
            var leafDepth: Int?
            root.check(depth: 0, lower: nil, upper: nil, isRoot: true, leafDepth: &leafDepth, problems: &problems) { entry in
                for version in entry.history { bytes += version.value?.count ?? 0 }
            }
        }
        return (bytes, space.retired.count)
    }
}
