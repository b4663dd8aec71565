import Testing
@testable import EmulatorStorage

@Suite struct ConcurrencyTests {
    /// Each commit sets every key to the commit's number, so a consistent snapshot shows one number.
    @Test func readersSeeWholeCommitsAndTheirSnapshotsNeverChange() async throws {
        let engine = StorageEngine()
        let keys = (0..<200).map { key("c/\($0)") }
        try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
            for key in keys { try txn.put(testNamespace, key, [0, 0]) }
        }
        let problems = await withTaskGroup(of: [String].self) { group in
            group.addTask {
                for round in 1...300 {
                    _ = try? engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
                        for key in keys { try txn.put(testNamespace, key, [UInt8(round >> 8), UInt8(round & 0xFF)]) }
                    }
                }
                return []
            }
            for _ in 0..<2 {
                group.addTask {
                    var problems: [String] = []
                    var held: [(StorageSnapshot, [UInt8])] = []
                    for _ in 0..<200 {
                        guard let snapshot = try? engine.snapshot() else { return ["snapshot failed"] }
                        let values = Set(snapshot.scan(testNamespace).map(\.value))
                        if values.count != 1 { problems.append("torn read: \(values.count) values") }
                        if let value = values.first { held.append((snapshot, value)) }
                        await Task.yield()
                    }
                    for (snapshot, value) in held where snapshot.scan(testNamespace).contains(where: { $0.value != value }) {
                        problems.append("snapshot changed")
                    }
                    return problems
                }
            }
            var all: [String] = []
            for await problems in group { all += problems }
            return all
        }
        #expect(problems == [])
        #expect(try engine.snapshot().get(testNamespace, key("c/0"))?.value == [1, 44])  // round 300
        #expect(engine.invariantViolations() == [])
    }
}
