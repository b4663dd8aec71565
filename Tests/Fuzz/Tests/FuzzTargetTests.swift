import EmulatorFuzzTargets
import EmulatorTestSupport
import Foundation
import Testing

/// Every fuzz target over its seed corpus and a few thousand cheap mutations of it, without the
/// sanitizers: what a fresh clone can run in seconds. `Tests/Fuzz/run` fuzzes for real.
@Suite struct FuzzTargetTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("corpus")

    static func seeds(_ target: String, handWrittenOnly: Bool = false, campaignOnly: Bool = false) -> [[UInt8]] {
        let folder = corpus.appendingPathComponent(target)
        var names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        if handWrittenOnly { names = names.filter { !isSHA1($0) } }
        if campaignOnly { names = names.filter(isSHA1) }
        return names.sorted().compactMap { name in
            (try? Data(contentsOf: folder.appendingPathComponent(name))).map { Array($0) }
        }
    }

    /// libFuzzer names the entries it adds by their SHA-1.
    static func isSHA1(_ name: String) -> Bool {
        name.utf8.count == 40 && name.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    @Test func everyTargetHasSeeds() {
        for target in FuzzTargets.all {
            #expect(!Self.seeds(target.name).isEmpty, "no seeds in Tests/Fuzz/corpus/\(target.name); run Tests/Fuzz/make-seeds")
        }
        #expect(Set(FuzzTargets.all.map(\.name)).count == FuzzTargets.all.count, "two targets share a name")
    }

    @Test(arguments: FuzzTargets.all.map(\.name))
    func seedsAndMutationsRunCleanly(_ name: String) throws {
        let target = try #require(FuzzTargets.named(name))
        var generator = SeededGenerator(seed: 0x5EED)
        // A budget of mutations per target, spread over its seeds (campaigns add hundreds).
        let seeds = Self.seeds(name)
        let budget = name.hasPrefix("http-") || name.hasPrefix("firestore") || name.hasPrefix("rtdb") ? 600 : 8_000
        let rounds = max(1, budget / max(1, seeds.count))
        for seed in seeds {
            target.run(seed)
            for _ in 0..<rounds { target.run(Mutator.mutate(seed, &generator)) }
        }
        target.run([])
    }

    /// A target that reuses an emulator answers each input as a new emulator does, whatever ran
    /// before it: otherwise a reproducer libFuzzer saves would not replay alone.
    @Test(arguments: FuzzTargets.all.filter { $0.outcomes != nil }.map(\.name))
    func reusedEmulatorAnswersAsANewOne(_ name: String) throws {
        let target = try #require(FuzzTargets.named(name))
        let outcomes = try #require(target.outcomes)
        var generator = SeededGenerator(seed: 0x0DD)
        var inputs: [[UInt8]] = []
        // The hand-written seeds with mutations of each, then a sample of the campaign's entries
        // (named by their SHA-1; `emulators-fuzz compare <target> <folder>` checks them all).
        for seed in Self.seeds(name, handWrittenOnly: true) {
            inputs.append(seed)
            for _ in 0..<6 { inputs.append(Mutator.mutate(seed, &generator)) }
        }
        let campaign = Self.seeds(name, campaignOnly: true)
        let step = max(1, campaign.count / 48)
        inputs += stride(from: 0, to: campaign.count, by: step).map { campaign[$0] }
        // Every input twice, so that each follows inputs that wrote, opened sessions, set rules.
        for input in inputs + inputs.reversed() {
            let reused = outcomes(input, true)
            let fresh = outcomes(input, false)
            #expect(reused == fresh, "\(name): input \(input.prefix(80)) got \(reused) from the reused emulator, \(fresh) from a new one")
        }
    }
}


/// libFuzzer's simplest moves: flip, overwrite with an interesting byte, insert, delete, cut, repeat.
enum Mutator {
    static let interesting: [UInt8] = [0, 1, 0x7F, 0x80, 0xFF, 0x22, 0x5C, 0x7B, 0x7D, 0x0A, 0x0D, 0x25]

    static func mutate(_ input: [UInt8], _ g: inout SeededGenerator) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...4, using: &g) {
            let at = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &g)
            switch Int.random(in: 0..<6, using: &g) {
            case 0 where !bytes.isEmpty: bytes[at] ^= 1 << UInt8.random(in: 0..<8, using: &g)
            case 1 where !bytes.isEmpty: bytes[at] = interesting.randomElement(using: &g) ?? 0
            case 2: bytes.insert(interesting.randomElement(using: &g) ?? 0, at: at)
            case 3 where !bytes.isEmpty: bytes.remove(at: at)
            case 4: bytes = Array(bytes.prefix(at))
            default:
                let end = min(bytes.count, at + Int.random(in: 1...16, using: &g))
                bytes.insert(contentsOf: bytes[at..<end], at: at)
            }
        }
        return bytes
    }
}
