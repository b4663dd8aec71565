import EmulatorTestSupport
import Testing

@testable import EmulatorHTTP

/// Every byte from a socket is hostile: mutated and random input must never trap, and must end in
/// requests or a single failure.
@Suite struct HostileInputTests {
    static let seeds: [String] = [
        HTTP1RequestParserTests.pipelined,
        "PUT /x HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\ndata",
        "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
    ]

    @Test func mutatedRequestsNeverTrap() {
        var random = SeededGenerator(seed: 42)
        let interesting: [UInt8] = Array("\r\n :;0123456789abcdefABCDEF\t\u{0}\u{7f}\u{ff}".utf8)
        for round in 0..<3000 {
            var bytes = Array(Self.seeds[round % Self.seeds.count].utf8)
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                let position = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[position] = interesting.randomElement(using: &random) ?? 0
                case 1: bytes.remove(at: position)
                default: bytes.insert(interesting.randomElement(using: &random) ?? 0, at: position)
                }
                if bytes.isEmpty { bytes = [0] }
            }
            let split = Int.random(in: 1...max(1, bytes.count), using: &random)
            let seen = parse(bytes, pieces: [split], limits: HTTP1Limits(maxHeadBytes: 256, maxHeaderCount: 8, maxBodyBytes: 64))
            let failures = seen.filter { if case .failure = $0 { true } else { false } }
            #expect(failures.count <= 1)
            if !failures.isEmpty { #expect(seen.last == failures.first) }
        }
    }

    @Test func randomBytesNeverTrap() {
        var random = SeededGenerator(seed: 7)
        for _ in 0..<2000 {
            let count = Int.random(in: 0..<300, using: &random)
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
            _ = parse(bytes, pieces: [Int.random(in: 1...50, using: &random)])
            var decoder = WebSocketFrameDecoder(maxFrameBytes: 1000, requireMasked: Bool.random(using: &random))
            var assembler = WebSocketMessageAssembler(maxMessageBytes: 1000)
            decoder.append(bytes)
            while let event = decoder.next() {
                if case .frame(let frame) = event { _ = assembler.add(frame) }
            }
        }
    }
}
