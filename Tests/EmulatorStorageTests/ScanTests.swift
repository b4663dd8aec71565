import Testing
@testable import EmulatorStorage

@Suite struct ScanTests {
    let paths = ["a", "a/b", "a/b/c", "a/c", "a/c/d/e", "ab", "b", "b/x"]

    func engine() throws -> StorageEngine {
        let engine = StorageEngine()
        try engine.put(paths.reversed().map { ($0, "v:" + $0) })
        return engine
    }

    @Test func scansEverythingInKeyOrderBothWays() throws {
        let snapshot = try engine().snapshot()
        #expect(snapshot.scan(testNamespace).map(\.key.description) == paths.map { "/" + $0 })
        #expect(snapshot.scan(testNamespace, reverse: true).map(\.key.description) == paths.reversed().map { "/" + $0 })
    }

    @Test(arguments: [
        (StorageKeyRange.subtree(of: StorageKey("a")), ["a", "a/b", "a/b/c", "a/c", "a/c/d/e"]),
        (.descendants(of: StorageKey("a")), ["a/b", "a/b/c", "a/c", "a/c/d/e"]),
        (.subtree(of: StorageKey("a/c")), ["a/c", "a/c/d/e"]),
        (.subtree(of: StorageKey("nothing")), []),
        (StorageKeyRange(from: .excluding(StorageKey("a/b")), to: .excluding(StorageKey("b"))), ["a/b/c", "a/c", "a/c/d/e", "ab"]),
        (StorageKeyRange(from: .including(StorageKey("a/c")), to: .including(StorageKey("b"))), ["a/c", "a/c/d/e", "ab", "b"]),
    ])
    func rangeScans(range: StorageKeyRange, expected: [String]) throws {
        let snapshot = try engine().snapshot()
        #expect(snapshot.scan(testNamespace, range).map(\.key.description) == expected.map { "/" + $0 })
        #expect(snapshot.scan(testNamespace, range, reverse: true).map(\.key.description) == expected.reversed().map { "/" + $0 })
    }

    @Test(arguments: [
        ("", ["a", "ab", "b"], [true, true, true]),
        ("a", ["a/b", "a/c"], [true, true]),
        ("a/c", ["a/c/d"], [false]),       // a child that only has descendants
        ("a/b/c", [], []),
        ("zzz", [], []),
    ])
    func childrenSkipGrandchildren(parent: String, expected: [String], hasOwnEntry: [Bool]) throws {
        let snapshot = try engine().snapshot()
        let children = Array(snapshot.children(testNamespace, of: key(parent)))
        #expect(children.map(\.key.description) == expected.map { "/" + $0 })
        #expect(children.map { $0.entry != nil } == hasOwnEntry)
        let reversed = Array(snapshot.children(testNamespace, of: key(parent), reverse: true))
        #expect(reversed.map(\.key) == children.reversed().map(\.key))
        #expect(reversed.map(\.entry) == children.reversed().map(\.entry))
    }

    @Test func childrenWithinARange() throws {
        let snapshot = try engine().snapshot()
        let range = StorageKeyRange(from: .excluding(key("a")), to: .unbounded)
        #expect(snapshot.children(testNamespace, of: .root, in: range).map(\.key) == [key("ab"), key("b")])
        let upTo = StorageKeyRange(from: .unbounded, to: .excluding(key("b")))
        #expect(snapshot.children(testNamespace, of: .root, in: upTo, reverse: true).map(\.key) == [key("ab"), key("a")])
    }

    @Test func largeTreesScanInOrderAcrossLeaves() throws {
        let engine = StorageEngine()
        var expected: [StorageKey] = []
        for batch in 0..<20 {
            try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
                for item in 0..<250 {
                    let id = (batch * 7919 + item * 104_729) % 100_003
                    try txn.put(testNamespace, key("c/\(id)"), bytes("\(id)"))
                }
            }
        }
        for batch in 0..<20 { for item in 0..<250 { expected.append(key("c/\((batch * 7919 + item * 104_729) % 100_003)")) } }
        expected = Array(Set(expected)).sorted()
        let snapshot = try engine.snapshot()
        #expect(snapshot.scan(testNamespace).map(\.key) == expected)
        #expect(snapshot.scan(testNamespace, reverse: true).map(\.key) == expected.reversed())
        #expect(snapshot.children(testNamespace, of: key("c")).map(\.key) == expected)
        #expect(snapshot.count(testNamespace) == expected.count)
        #expect(engine.invariantViolations() == [])
    }
}
