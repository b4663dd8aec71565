import Glibc

/// One parser or state machine driven by arbitrary bytes: the unit the fuzz driver runs.
///
/// A target must not trap, hang or grow memory from one input to the next, whatever the bytes:
/// every failure is an error value the code under test already handles. An input must do the
/// same whatever ran before it (a reproducer is replayed alone): state that lives longer than
/// one input (an emulator) is reset after each (`ReusedEmulator`).
///
/// ```swift
/// FuzzTargets.named("hpack")?.run(bytes)
/// ```
package struct FuzzTarget: Sendable {
    /// The name used on the command line and as the corpus folder (`Tests/Fuzz/corpus/<name>`).
    package let name: String
    /// What the target feeds the bytes to.
    package let summary: String
    package let run: @Sendable ([UInt8]) -> Void
    /// For a target that reuses an emulator across inputs: what an input got back (coarsely),
    /// from the reused emulator (`true`) or from a new one (`false`). The two must be equal.
    package let outcomes: (@Sendable (_ input: [UInt8], _ reused: Bool) -> [String])?

    package init(
        _ name: String, _ summary: String, run: @escaping @Sendable ([UInt8]) -> Void,
        outcomes: (@Sendable ([UInt8], Bool) -> [String])? = nil
    ) {
        self.name = name
        self.summary = summary
        self.run = run
        self.outcomes = outcomes
    }
}

/// Every fuzz target, in the order the driver lists them.
package enum FuzzTargets {
    package static let all: [FuzzTarget] =
        httpTargets + http2Targets + dataTargets + rulesTargets + snapshotTargets + emulatorTargets

    package static func named(_ name: String) -> FuzzTarget? {
        all.first { $0.name == name }
    }
}

/// Cuts an input into pieces, so streaming parsers see their input arrive in parts: the first
/// byte picks the piece size (1…256 bytes), the rest is the data.
enum FuzzPieces {
    static func split(_ input: [UInt8]) -> [[UInt8]] {
        guard let first = input.first else { return [] }
        let size = Int(first) + 1
        var pieces: [[UInt8]] = []
        var start = 1
        while start < input.count {
            let end = min(start + size, input.count)
            pieces.append(Array(input[start..<end]))
            start = end
        }
        return pieces
    }

    /// The input cut at every `separator` byte (each part without it), at most `limit` parts
    /// (the first ones). The separators are found by `memchr`: a byte loop of ours is compiled
    /// with libFuzzer's comparison tracing, a call per byte.
    static func records(_ input: [UInt8], separator: UInt8 = 0x0A, limit: Int = .max) -> [[UInt8]] {
        var parts: [[UInt8]] = []
        input.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            var start = 0
            while parts.count < limit {
                guard let found = memchr(base + start, Int32(separator), buffer.count - start) else {
                    parts.append(Array(buffer[start...]))
                    return
                }
                let end = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
                parts.append(Array(buffer[start..<end]))
                start = end + 1
            }
        }
        return input.isEmpty && limit > 0 ? [[]] : parts
    }
}
