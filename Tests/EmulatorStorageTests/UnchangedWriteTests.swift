import Testing
@testable import EmulatorStorage

/// A write that changes nothing (the same bytes again, or a refused precondition) must leave the
/// namespace's pending tree as the published head holds it: copying the path to the key on
/// every such write is what made an unchanged overwrite cost as much as a real one.
@Suite struct UnchangedWriteTests {
    /// The pending tree's root in the published head.
    private func pendingRoot(_ engine: StorageEngine) throws -> ObjectIdentifier? {
        try engine.snapshot().state.namespaces.withState(testNamespace) { ObjectIdentifier($0.pending.root) }
    }

    @Test func theSameBytesAgainKeepThePendingTreeAndTheTimes() throws {
        let engine = StorageEngine()
        let written = try engine.put([("d/1", "same"), ("d/2", "other")])
        let root = try pendingRoot(engine)
        let result = try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
            try txn.put(testNamespace, key("d/1"), bytes("same"))
        }
        #expect(result.changes.isEmpty)
        #expect(try pendingRoot(engine) == root)
        let entry = try engine.snapshot().get(testNamespace, key("d/1"))
        #expect(entry?.updateTime == written && entry?.createTime == written)
    }

    @Test func aRefusedPreconditionKeepsThePendingTree() throws {
        let engine = StorageEngine()
        try engine.put([("d/1", "old")])
        let root = try pendingRoot(engine)
        // The commit catches the refusal and goes on, so its state is published.
        var refused: StorageError.Code?
        try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
            do throws(StorageError) {
                try txn.put(testNamespace, key("d/1"), bytes("new"), precondition: .missing)
            } catch {
                refused = error.code
            }
        }
        #expect(refused == .alreadyExists)
        #expect(try pendingRoot(engine) == root)
        #expect(try engine.value("d/1") == "old")
    }

    /// The paths that do change still land in `pending`, in order, within one commit.
    @Test func changesWithinOneCommitStillApply() throws {
        let engine = StorageEngine()
        let first = try engine.put([("d/1", "a")])
        let result = try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
            try txn.put(testNamespace, key("d/1"), bytes("a"))  // unchanged
            try txn.put(testNamespace, key("d/1"), bytes("b"))  // changed
            try txn.put(testNamespace, key("d/1"), bytes("b"))  // the commit's own bytes again
            try txn.put(testNamespace, key("d/1"), bytes("a"))  // back to where it was: no net change
        }
        #expect(result.changes.isEmpty)
        #expect(try engine.value("d/1") == "a")
        #expect(try engine.snapshot().get(testNamespace, key("d/1"))?.updateTime == first)
        let second = try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
            try txn.put(testNamespace, key("d/1"), bytes("c"))
        }
        #expect(second.changes.count == 1)
        #expect(try engine.value("d/1") == "c")
        #expect(try engine.value("d/1", at: first) == "a")
    }
}
