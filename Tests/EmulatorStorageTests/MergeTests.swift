import EmulatorTestSupport
import Testing
@testable import EmulatorStorage

/// `VersionedTree.merge` rebuilds each leaf that takes entries from copied slot bytes instead of
/// inserting entries one by one; these check it against a dictionary of entries: keys that
/// tie, nest and straddle leaf bounds, merges cut into stretches, inline and external values,
/// histories and tombstones pruned at a horizon, and the tree's structure after each stretch.
@Suite struct MergeTests {
    /// An entry for `key` with a value of `size` bytes and, when `versions` > 0, that many older
    /// versions (the current one made at `time`; a nil value makes it a tombstone).
    static func entry(_ key: [UInt8], time: CommitTime, size: Int, versions: Int, live: Bool) -> VersionedEntry {
        var entry = VersionedEntry(
            key: key, value: live ? [UInt8](repeating: UInt8(truncatingIfNeeded: time), count: size) : nil,
            createTime: time, updateTime: time)
        for version in 0..<versions {
            let at = time - CommitTime(versions - version) * 10
            entry.history.append(EntryVersion(time: at, createTime: at, value: version % 3 == 2 ? nil : [UInt8(version)]))
        }
        return entry
    }

    static func randomEntries(
        _ count: Int, time: CommitTime, history: Bool, _ rng: inout SeededGenerator
    ) -> [[UInt8]: VersionedEntry] {
        var entries: [[UInt8]: VersionedEntry] = [:]
        let head = Array("docs\u{0}".utf8)
        for _ in 0..<count {
            let key = LeafSearchTests.trickyKey(&rng, head: head)
            let versions = history && Int.random(in: 0..<4, using: &rng) == 0 ? Int.random(in: 1...3, using: &rng) : 0
            let live = versions == 0 || Int.random(in: 0..<3, using: &rng) > 0
            // Mostly inline values, some larger than a leaf keeps inline.
            let size = Int.random(in: 0..<10, using: &rng) == 0 ? 300 : Int.random(in: 0...40, using: &rng)
            entries[key] = entry(key, time: time, size: size, versions: versions, live: live)
        }
        return entries
    }

    static func sorted(_ entries: [[UInt8]: VersionedEntry]) -> [VersionedEntry] {
        entries.values.sorted { ByteOrder.less($0.key, $1.key) }
    }

    static func contents(_ tree: VersionedTree) -> [VersionedEntry] {
        var cursor = TreeCursor(root: tree.root)
        cursor.seek(atLeast: [])
        var entries: [VersionedEntry] = []
        while let entry = cursor.current {
            entries.append(entry)
            cursor.next()
        }
        return entries
    }

    static func structureProblems(_ tree: VersionedTree) -> [String] {
        var problems: [String] = []
        var depth: Int?
        tree.root.check(depth: 0, lower: nil, upper: nil, isRoot: true, leafDepth: &depth, problems: &problems) { _ in }
        return problems
    }

    static func same(_ lhs: VersionedEntry, _ rhs: VersionedEntry) -> Bool {
        lhs.key == rhs.key && lhs.value == rhs.value && lhs.createTime == rhs.createTime && lhs.updateTime == rhs.updateTime
            && lhs.history.map(\.time) == rhs.history.map(\.time) && lhs.history.map(\.value) == rhs.history.map(\.value)
    }

    /// Target and source sizes from empty to several tree levels; the merge is cut into
    /// stretches of random length, and after each the tree holds exactly the target with the
    /// merged part of the source laid over it, in order, with sound structure.
    @Test(arguments: [(0, 1), (0, 5_000), (40, 30), (3_000, 200), (3_000, 3_000), (20_000, 700), (20_000, 9_000), (500, 20_000)])
    func mergeLaysTheSourceOverTheTree(sizes: (target: Int, source: Int)) {
        var rng = SeededGenerator(seed: UInt64(sizes.target * 31 + sizes.source))
        let target = MergeTests.randomEntries(sizes.target, time: 100, history: false, &rng)
        let source = MergeTests.randomEntries(sizes.source, time: 200, history: false, &rng)
        var tree = VersionedTree(sorted: MergeTests.sorted(target))
        let held = tree  // a reader's copy: must not change
        let sourceTree = VersionedTree(sorted: MergeTests.sorted(source))
        var cursor = TreeCursor(root: sourceTree.root)
        cursor.seek(atLeast: [])
        var expected = target
        var notes: [([UInt8], Bool)] = []
        let ordered = MergeTests.sorted(source)
        var done = 0
        while done < ordered.count {
            let stretch = Int.random(in: 1...max(1, ordered.count / 3), using: &rng)
            let taken = tree.merge(&cursor, limit: stretch, horizon: 0) { leaf, index, replaced in
                notes.append((leaf.key(at: index), replaced != nil))
            }
            #expect(taken == min(stretch, ordered.count - done))
            for entry in ordered[done..<done + taken] { expected[entry.key] = entry }
            done += taken
            let problems = MergeTests.structureProblems(tree)
            #expect(problems.isEmpty, "after \(done): \(problems.prefix(3))")
            let merged = MergeTests.contents(tree)
            let want = MergeTests.sorted(expected)
            #expect(merged.count == want.count)
            #expect(zip(merged, want).allSatisfy(MergeTests.same), "after \(done) of \(ordered.count)")
        }
        #expect(cursor.currentSlot == nil)
        #expect(notes.map(\.0) == ordered.map(\.key))
        #expect(notes.map(\.1) == ordered.map { target[$0.key] != nil })
        #expect(MergeTests.contents(held).count == target.count)
        #expect(zip(MergeTests.contents(held), MergeTests.sorted(target)).allSatisfy(MergeTests.same))
    }

    /// With a horizon, entries in rebuilt leaves lose the versions no read at or after it can
    /// see (tombstones left with nothing leave the tree); every read at or after the horizon
    /// still sees what it saw.
    @Test(arguments: 1...6)
    func mergeAtAHorizonKeepsWhatReadsCanSee(seed: Int) {
        var rng = SeededGenerator(seed: UInt64(seed) * 977)
        let target = MergeTests.randomEntries(4_000, time: 100, history: true, &rng)
        let source = MergeTests.randomEntries(1_500 * seed, time: 200, history: true, &rng)
        var tree = VersionedTree(sorted: MergeTests.sorted(target))
        let sourceTree = VersionedTree(sorted: MergeTests.sorted(source))
        var cursor = TreeCursor(root: sourceTree.root)
        cursor.seek(atLeast: [])
        let horizon: CommitTime = 175
        let original = tree
        tree.merge(&cursor, horizon: horizon) { _, _, _ in }
        var expected = target
        for (key, entry) in source { expected[key] = entry }
        let problems = MergeTests.structureProblems(tree)
        #expect(problems.isEmpty, "\(problems.prefix(3))")
        let merged = Dictionary(uniqueKeysWithValues: MergeTests.contents(tree).map { ($0.key, $0) })
        for time in [horizon, 180, 195, 200, 250] as [CommitTime] {
            for (key, entry) in expected {
                let seen = merged[key]?.visible(at: time)
                let want = entry.visible(at: time)
                #expect(seen?.value == want?.value && seen?.updateTime == want?.updateTime, "\(key) at \(time)")
            }
        }
        // Leaves the merge built hold nothing expired; leaves it did not touch are shared.
        var before = Set<ObjectIdentifier>()
        MergeTests.forEachLeaf(original.root) { before.insert(ObjectIdentifier($0)) }
        var rebuilt = 0
        MergeTests.forEachLeaf(tree.root) { leaf in
            guard !before.contains(ObjectIdentifier(leaf)) else { return }
            rebuilt += 1
            for index in 0..<leaf.count {
                let entry = leaf.entry(at: index)
                var pruned = entry
                let kept = pruned.prune(horizon: horizon)
                #expect(kept, "dead entry kept")
                #expect(pruned.history.count == entry.history.count, "expired versions kept")
            }
        }
        #expect(rebuilt > 0)
    }

    static func forEachLeaf(_ node: TreeNode, _ body: (TreeNode) -> Void) {
        if node.isLeaf { body(node) } else { for child in node.children { forEachLeaf(child, body) } }
    }

    /// Several trees merged as one source: each key once, from the newest tree holding it.
    @Test func slotMergeTakesEachKeyFromTheNewestTree() {
        var rng = SeededGenerator(seed: 5)
        var layers: [[[UInt8]: VersionedEntry]] = []
        for layer in 0..<5 {
            layers.append(MergeTests.randomEntries(Int.random(in: 0...900, using: &rng), time: CommitTime(500 - layer), history: false, &rng))
        }
        var expected: [[UInt8]: VersionedEntry] = [:]
        for layer in layers.reversed() { expected.merge(layer) { _, newer in newer } }
        var source = SlotMerge(layers.map { VersionedTree(sorted: MergeTests.sorted($0)).root })
        var seen: [VersionedEntry] = []
        while let (leaf, index) = source.currentSlot {
            seen.append(leaf.takeUnretainedValue().entry(at: index))
            source.next()
        }
        let want = MergeTests.sorted(expected)
        #expect(seen.count == want.count)
        #expect(zip(seen, want).allSatisfy(MergeTests.same))
    }
}
