import Testing
@testable import EmulatorStorage

/// The engine's table of namespaces: each state sits in a box that copies of the table share, so
/// a change must never reach another copy (a published head, a snapshot), and a commit should
/// copy only the state it changes, once.
@Suite struct NamespaceTableTests {
    /// A state holding `value` at `a/b`.
    private func state(_ value: String) -> NamespaceState {
        var space = NamespaceState()
        space.update(key("a/b").encoded, horizon: 0) { entry in
            entry = VersionedEntry(key: key("a/b").encoded, value: bytes(value), createTime: 1, updateTime: 1)
        }
        return space
    }

    private func read(_ table: NamespaceTable, _ id: NamespaceID) -> String? {
        let snapshot = StorageSnapshot(state: EngineState(namespaces: table, lastCommitTime: 1), readTime: 1, isHead: true)
        return snapshot.get(id, key("a/b")).map { String(decoding: $0.value, as: UTF8.self) }
    }

    @Test func everyWayOfChangingCopiesASharedStateOnceAndNeverChangesACopy() {
        let id: NamespaceID = "one"
        let other: NamespaceID = "two"
        var table = NamespaceTable()
        #expect(table.box(of: id) == nil && read(table, id) == nil)
        table.store(state("first"), for: id)
        table.store(state("untouched"), for: other)
        #expect(read(table, id) == "first")

        // Nothing else holds the box: changed in place. (The test holds boxes weakly: a strong
        // reference would make the table copy them.)
        weak let first = table.box(of: id)
        table.modify(id) { $0 = state("second") }
        #expect(first != nil && table.box(of: id) === first, "modify of an unshared state copies it")
        #expect(read(table, id) == "second")

        // A copy (a published head) shares the boxes: the first change copies the one it
        // changes, later ones change that copy in place, and the copy keeps what it held.
        let published = table
        table.modify(id) { $0.liveCount = 7 }
        weak let copied = table.box(of: id)
        #expect(copied != nil && copied !== published.box(of: id), "modify of a shared state")
        table[id, default: NamespaceState()] = state("third")
        #expect(copied != nil && table.box(of: id) === copied, "the commit's own copy changes in place")
        #expect(table.box(of: other) === published.box(of: other), "an unchanged namespace stays shared")
        #expect(read(table, id) == "third" && read(published, id) == "second")
        #expect(published.withState(id) { $0.liveCount } == 0)

        let held = table
        table[id, default: NamespaceState()].liveCount = 9
        #expect(table.box(of: id) !== held.box(of: id), "subscript of a shared state")
        #expect(held.withState(id) { $0.liveCount } == 0 && table.withState(id) { $0.liveCount } == 9)

        let kept = table
        table.store(state("fourth"), for: id)
        #expect(read(table, id) == "fourth" && table.keys == [id, other])
        #expect(read(kept, id) == "third", "store over a shared state")
    }

    /// Up to eight namespaces are found by comparing IDs, more through the dictionary: both find
    /// each namespace's own state.
    @Test func manyNamespacesEachReadTheirOwn() {
        var table = NamespaceTable()
        for count in 1...12 {
            table.store(state("value \(count)"), for: NamespaceID("ns\(count)"))
            for other in 1...count {
                let box = table.box(of: NamespaceID("ns\(other)"))
                #expect(box?.state.headEntry(key("a/b").encoded)?.value == bytes("value \(other)"), "\(other) of \(count)")
                #expect(read(table, NamespaceID("ns\(other)")) == "value \(other)", "\(other) of \(count)")
            }
            #expect(table.box(of: NamespaceID("ns\(count + 1)")) == nil && read(table, NamespaceID("ns\(count + 1)")) == nil)
        }
    }

    /// Names are equal when their UTF-8 bytes are: a precomposed é and e + combining accent are
    /// two namespaces (Swift's `String ==` would merge them).
    @Test func namespaceIDsCompareBytes() {
        let composed = NamespaceID("caf\u{E9}")
        let decomposed = NamespaceID("cafe\u{301}")
        #expect(composed != decomposed)
        #expect(composed == NamespaceID("caf" + "\u{E9}"))
        #expect(Set([composed, decomposed, NamespaceID("caf\u{E9}")]).count == 2)
        var table = NamespaceTable()
        table.store(state("composed"), for: composed)
        table.store(state("decomposed"), for: decomposed)
        #expect(read(table, composed) == "composed" && read(table, decomposed) == "decomposed")
    }
}
