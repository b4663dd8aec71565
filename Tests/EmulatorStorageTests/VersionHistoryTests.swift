import EmulatorTestSupport
import Testing
@testable import EmulatorStorage

/// The chunked history behaves as the array of versions it stands for.
@Suite struct VersionHistoryTests {
    @Test func matchesAnArrayUnderRandomEdits() {
        var generator = SeededGenerator(seed: 0x5EED)
        for _ in 0..<40 {
            var model: [CommitTime] = []
            var history = VersionHistory()
            var time: CommitTime = 0
            for _ in 0..<400 {
                let shared = history  // as a published tree shares it: edits copy
                switch generator.next() % 10 {
                case 0..<6:
                    time += 1
                    model.append(time)
                    history.append(EntryVersion(time: time, createTime: 1, value: [UInt8(truncatingIfNeeded: time)]))
                case 6, 7:
                    let k = Int(generator.next() % UInt64(model.count / 3 + 2))
                    model.removeFirst(min(k, model.count))
                    history.removeFirst(k)
                default:
                    if !model.isEmpty {
                        model.removeLast()
                        history.removeLast()
                    }
                }
                #expect(history.count == model.count)
                #expect(history.map(\.time) == model)
                #expect(history.last?.time == model.last)
                _ = shared
            }
        }
    }

    @Test func literalsAndEmptiness() {
        let empty: VersionHistory = []
        #expect(empty.isEmpty)
        let one: VersionHistory = [EntryVersion(time: 3, createTime: 1, value: nil)]
        #expect(one.count == 1 && one[0].time == 3 && one.first?.value == nil)
    }
}
