import EmulatorSupport
import Testing

/// The shared cache of encoded answers: a kept answer is taken only for the stamp it was made
/// from, and memory stays within the budget.
@Suite struct EncodedAnswerCacheTests {
    struct Stamp: AnswerStamp {
        var version: Int
        var heldBytes: Int { 0 }
    }

    @Test func anAnswerIsReusedOnlyForItsStamp() {
        let cache = EncodedAnswerCache<String, Stamp>()
        var made = 0
        func read(_ key: String, _ version: Int) -> [UInt8]? {
            cache.answer(key, current: Stamp(version: version)) { () -> [UInt8]? in
                made += 1
                return Array("\(key)@\(version)".utf8)
            }
        }
        #expect(read("a", 1) == Array("a@1".utf8))
        #expect(read("a", 1) == Array("a@1".utf8))
        #expect(made == 1)
        // A new version is made again and replaces the kept one.
        #expect(read("a", 2) == Array("a@2".utf8))
        #expect(made == 2)
        #expect(cache.count == 1)
        #expect(read("b", 2) == Array("b@2".utf8))
        #expect(made == 3)
    }

    @Test func nothingIsKeptWhenMakeGivesNilOrTooMuch() {
        let cache = EncodedAnswerCache<Int, Stamp>(budgetBytes: 4096, maxAnswerBytes: 100)
        #expect(cache.answer(1, current: Stamp(version: 0)) { nil } == nil)
        #expect(cache.answer(2, current: Stamp(version: 0)) { [UInt8](repeating: 1, count: 101) }?.count == 101)
        #expect(cache.count == 0)
        #expect(cache.answer(3, current: Stamp(version: 0)) { [UInt8](repeating: 1, count: 100) }?.count == 100)
        #expect(cache.count == 1)
    }

    @Test func twoGenerationsBoundMemoryAndKeepWhatIsReadOften() throws {
        // Each answer costs 100 + 128 bytes: a generation of 2,048 bytes holds 8.
        let cache = EncodedAnswerCache<Int, Stamp>(budgetBytes: 4096, maxAnswerBytes: 100)
        var made = 0
        func read(_ key: Int) {
            _ = cache.answer(key, current: Stamp(version: 0)) { () -> [UInt8]? in
                made += 1
                return [UInt8](repeating: 0, count: 100)
            }
        }
        for key in 0..<100 {
            read(key)
            read(0)  // read often: moved to the newer generation whenever it ages
        }
        #expect(cache.count <= 16)
        let before = made
        read(0)
        #expect(made == before)
        read(1)  // long dropped
        #expect(made == before + 1)
    }
}
