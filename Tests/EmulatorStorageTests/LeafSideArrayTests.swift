import EmulatorTestSupport
import Testing
@testable import EmulatorStorage

/// A leaf's side arrays (large values, histories) are chunked so that a commit overwriting one
/// large value in a leaf the published tree shares copies one chunk of the leaf's values, not
/// all of them (a retain each, and a release each when the old leaf goes).
@Suite struct LeafSideArrayTests {
    @Test func matchesAnArrayUnderRandomEdits() {
        var generator = SeededGenerator(seed: 0x51DE)
        for _ in 0..<20 {
            var model: [Int] = []
            var side = LeafSideArray<Int>()
            for step in 0..<300 {
                let shared = side  // as the published leaf shares it: edits copy
                if model.isEmpty || generator.next() % 3 == 0 {
                    model.append(step)
                    side.append(step)
                } else {
                    let index = Int(generator.next() % UInt64(model.count))
                    model[index] = -step
                    side[index] = -step
                }
                #expect(side.count == model.count && !side.isEmpty)
                #expect((0..<side.count).map { side[$0] } == model)
                withExtendedLifetime(shared) {}
            }
        }
    }

    @Test func anOverwriteInACopiedLeafCopiesOneChunkOfItsValues() throws {
        // The published leaf is copied (not the tree the last commit replaced, `PendingSpare`).
        let engine = StorageEngine(recyclesPending: false)
        // 48 values too large for the arena, in one leaf of the pending tree.
        let large = String(repeating: "v", count: TreeNode.inlineValueLimit + 1)
        try engine.put((0..<48).map { ("d/" + ($0 < 10 ? "0" : "") + String($0), large) })
        let before = try pendingRoot(engine)
        #expect(before.isLeaf && before.externals.count == 48)
        try engine.put([("d/20", large + "!")])
        let after = try pendingRoot(engine)
        #expect(after !== before, "the published leaf is copied, not changed")
        let chunk = 20 / LeafSideArray<[UInt8]>.chunkSize
        for index in 0..<(48 / LeafSideArray<[UInt8]>.chunkSize) {
            #expect(after.externals.sharesChunk(index, with: before.externals) == (index != chunk), "chunk \(index)")
        }
        #expect(try engine.value("d/20") == large + "!" && engine.value("d/21") == large)
        #expect(before.value(at: 20) == bytes(large), "the published leaf keeps its value")
    }

    private func pendingRoot(_ engine: StorageEngine) throws -> TreeNode {
        try #require(try engine.snapshot().state.namespaces.withState(testNamespace) { $0.pending.root })
    }
}
