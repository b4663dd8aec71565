import Testing
@testable import EmulatorStorage

/// Values in these tests are "city:score" strings; the index key is the city, a 0x00, then the
/// score as 4 big-endian bytes (order-preserving).
private func cityScore(_ value: [UInt8]) -> [UInt8]? {
    let text = String(decoding: value, as: UTF8.self)
    let parts = text.split(separator: ":")
    guard parts.count == 2, let score = UInt32(parts[1]) else { return nil }
    return Array(parts[0].utf8) + [0] + [UInt8(score >> 24), UInt8(score >> 16 & 0xFF), UInt8(score >> 8 & 0xFF), UInt8(score & 0xFF)]
}

private let byCityScore = IndexDefinition(
    id: "docs/city,score", scope: StorageKey("docs"), includes: { $0.depth == 2 },
    extract: { _, value in cityScore(value).map { [$0] } ?? [] })

@Suite struct IndexTests {
    @Test func equalityPlusOrderPlusLimitReadsOnlyTheHits() throws {
        let engine = StorageEngine()
        try engine.put([("docs/a", "b:5"), ("docs/b", "a:9"), ("docs/c", "b:1"), ("docs/d", "b:3"), ("docs/d/sub/x", "b:0"), ("other/e", "b:2")])
        engine.ensureIndex(testNamespace, byCityScore)
        try engine.put([("docs/e", "b:4"), ("docs/a", "c:5")])
        let snapshot = try engine.snapshot()
        let hits = try snapshot.scanIndex(testNamespace, byCityScore.id, .prefix(Array("b".utf8) + [0]))
        #expect(hits.map(\.key) == [key("docs/c"), key("docs/d"), key("docs/e")])
        let top2 = try snapshot.scanIndex(testNamespace, byCityScore.id, .prefix(Array("b".utf8) + [0]), reverse: true).prefix(2)
        #expect(top2.map(\.key) == [key("docs/e"), key("docs/d")])
        #expect(engine.invariantViolations() == [])
    }

    @Test func rangeBoundsOnIndexKeys() throws {
        let engine = StorageEngine()
        engine.ensureIndex(testNamespace, byCityScore)
        try engine.put([("docs/1", "b:1"), ("docs/2", "b:2"), ("docs/3", "b:3"), ("docs/4", "bb:1")])
        let two = cityScore(bytes("b:2")) ?? []
        let snapshot = try engine.snapshot()
        #expect(try snapshot.scanIndex(testNamespace, byCityScore.id, IndexRange(from: .excluding(two), to: .unbounded)).map(\.key)
            == [key("docs/3"), key("docs/4")])
        #expect(try snapshot.scanIndex(testNamespace, byCityScore.id, IndexRange(from: .unbounded, to: .including(two))).map(\.key)
            == [key("docs/1"), key("docs/2")])
        #expect(try snapshot.scanIndex(testNamespace, byCityScore.id, IndexRange(from: .including(two), to: .excluding(two))).map(\.key)
            == [])
        #expect(try snapshot.scanIndex(testNamespace, byCityScore.id).map(\.indexKey).first == cityScore(bytes("b:1")))
    }

    @Test func indexesFollowDeletesAndClearsAndRefuseOldReadTimes() throws {
        let engine = StorageEngine()
        engine.ensureIndex(testNamespace, byCityScore)
        let time = try engine.put([("docs/1", "b:1"), ("docs/2", "b:2")])
        try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in try txn.delete(testNamespace, key("docs/1")) }
        #expect(try engine.snapshot().scanIndex(testNamespace, byCityScore.id).map(\.key) == [key("docs/2")])
        #expect(throws: StorageError.self) { try engine.snapshot(at: time).scanIndex(testNamespace, byCityScore.id) }
        engine.clear(testNamespace, subtree: key("docs/2"))
        #expect(try engine.snapshot().scanIndex(testNamespace, byCityScore.id).map(\.key) == [])
        try engine.put([("docs/3", "b:3")])
        engine.clear(testNamespace)
        #expect(try engine.snapshot().scanIndex(testNamespace, byCityScore.id).map(\.key) == [])
        try engine.put([("docs/4", "b:4")])
        #expect(try engine.snapshot().scanIndex(testNamespace, byCityScore.id).map(\.key) == [key("docs/4")])
        #expect(engine.invariantViolations() == [])
    }

    @Test func severalKeysPerEntryAreAllIndexed() throws {
        let engine = StorageEngine()
        engine.ensureIndex(testNamespace, IndexDefinition(id: "tags", scope: .root) { _, value in
            value.split(separator: UInt8(ascii: ",")).map(Array.init)
        })
        try engine.put([("p/1", "red,blue"), ("p/2", "blue")])
        let blue = try engine.snapshot().scanIndex(testNamespace, "tags", IndexRange(from: .including(bytes("blue")), to: .including(bytes("blue"))))
        #expect(blue.map(\.key) == [key("p/1"), key("p/2")])
        try engine.put([("p/1", "red")])
        #expect(try engine.snapshot().scanIndex(testNamespace, "tags").map(\.indexKey) == [bytes("blue"), bytes("red")])
    }
}
