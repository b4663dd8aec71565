import Testing
@testable import EmulatorStorage

/// The engine's table of namespaces: reads go through a view of each namespace's state made when
/// the engine publishes, so every way of changing a state must drop its view (a stale one would
/// serve old data), and a read without a view must still see the state.
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

    @Test func everyChangeDropsTheViewAndReadsSeeTheChange() {
        let id: NamespaceID = "one"
        var table = NamespaceTable()
        #expect(table.view(of: id) == nil && read(table, id) == nil)
        table.store(state("first"), for: id)
        #expect(table.view(of: id) == nil, "store")
        #expect(read(table, id) == "first", "a read without a view")
        table.refreshViews()
        #expect(table.view(of: id) != nil)
        #expect(read(table, id) == "first", "a read through the view")

        table.modify(id) { $0 = state("second") }
        #expect(table.view(of: id) == nil, "modify")
        #expect(read(table, id) == "second")
        table.refreshViews()
        #expect(read(table, id) == "second")

        table[id, default: NamespaceState()] = state("third")
        #expect(table.view(of: id) == nil, "subscript")
        #expect(read(table, id) == "third")
        table.refreshViews()

        let held = table
        table.store(state("fourth"), for: id)
        #expect(table.view(of: id) == nil, "store over a state")
        #expect(read(table, id) == "fourth" && table.keys == [id])
        #expect(read(held, id) == "third", "a copy of the table keeps its states and views")
    }

    /// Up to eight namespaces are found by comparing IDs, more through the dictionary: both find
    /// each namespace's own view.
    @Test func manyNamespacesEachReadTheirOwn() {
        var table = NamespaceTable()
        for count in 1...12 {
            table.store(state("value \(count)"), for: NamespaceID("ns\(count)"))
            table.refreshViews()
            for other in 1...count {
                let view = table.view(of: NamespaceID("ns\(other)"))
                #expect(view?.state.headEntry(key("a/b").encoded)?.value == bytes("value \(other)"), "\(other) of \(count)")
                #expect(read(table, NamespaceID("ns\(other)")) == "value \(other)", "\(other) of \(count)")
            }
            #expect(table.view(of: NamespaceID("ns\(count + 1)")) == nil && read(table, NamespaceID("ns\(count + 1)")) == nil)
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
        table.refreshViews()
        #expect(read(table, composed) == "composed" && read(table, decomposed) == "decomposed")
    }
}
