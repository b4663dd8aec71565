import Testing

@testable import EmulatorSupport

/// The string scans (`JSONStringScan`): runs of 16 bytes or more go to the C shim's SSE2 loop,
/// shorter ones to the Swift word loop. Both must stop no later than the first byte a JSON string
/// must look at, and skip only plain bytes; the shim stops exactly there.
@Suite struct JSONStringScanTests {
    /// Bytes a scan must stop at (`"`, `\`, controls; non-ASCII for `skipPlainASCII`) and bytes it
    /// must pass over (space, DEL, `/`, letters).
    static let probes: [UInt8] = [0x22, 0x5C, 0x00, 0x09, 0x1F, 0x20, 0x2F, 0x7E, 0x7F, 0x80, 0xC3, 0xFF]

    static func stops(_ byte: UInt8, ascii: Bool) -> Bool {
        byte == 0x22 || byte == 0x5C || byte < 0x20 || (ascii && byte >= 0x80)
    }

    /// The first index at or after `start` where a scan must stop, or `end`.
    static func reference(_ bytes: [UInt8], from start: Int, to end: Int, ascii: Bool) -> Int {
        var i = start
        while i < end, !stops(bytes[i], ascii: ascii) { i += 1 }
        return i
    }

    static func scan(_ bytes: [UInt8], from start: Int, to end: Int, ascii: Bool) -> Int {
        bytes.withUnsafeBufferPointer { b in
            ascii
                ? JSONStringScan.skipPlainASCII(b, from: start, to: end)
                : JSONStringScan.skipUnescaped(b, from: start, to: end)
        }
    }

    @Test("one probe byte at every place of runs of 0 to 70 bytes", arguments: probes, [false, true])
    func probeEverywhere(_ probe: UInt8, _ ascii: Bool) {
        for length in 0...70 {
            for place in 0..<max(length, 1) {
                var bytes = [UInt8](repeating: UInt8(ascii: "x"), count: length)
                if place < length { bytes[place] = probe }
                for start in [0, 1, 5] where start <= length {
                    let expected = Self.reference(bytes, from: start, to: length, ascii: ascii)
                    let got = Self.scan(bytes, from: start, to: length, ascii: ascii)
                    #expect(got >= start && got <= expected, "\(probe) at \(place) of \(length) from \(start): \(got)")
                    if length - start >= JSONStringScan.shimThreshold {
                        // The shim's answer is exact (the word loop's stops at the word's start).
                        #expect(got == expected, "\(probe) at \(place) of \(length) from \(start): \(got) != \(expected)")
                    }
                }
            }
        }
    }

    @Test("random bytes, random bounds", arguments: [3, 4] as [UInt64])
    func randomRuns(_ seed: UInt64) {
        var state = seed &* 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        for _ in 0..<2000 {
            let length = Int(next() % 200)
            // Mostly plain bytes, now and then a probe, so runs are long enough to reach the shim.
            let bytes = (0..<length).map { _ in next() % 23 == 0 ? Self.probes[Int(next() % UInt64(Self.probes.count))] : UInt8(0x41 + next() % 26) }
            let start = length == 0 ? 0 : Int(next() % UInt64(length))
            let end = start + Int(next() % UInt64(length - start + 1))
            for ascii in [false, true] {
                let expected = Self.reference(bytes, from: start, to: end, ascii: ascii)
                let got = Self.scan(bytes, from: start, to: end, ascii: ascii)
                #expect(got >= start && got <= expected)
                if end - start >= JSONStringScan.shimThreshold { #expect(got == expected) }
            }
        }
    }

    @Test("the writer escapes exactly the bytes JSON requires, wherever they sit in a long string (raw bytes are copied)")
    func writerAgreesWithByteRules() {
        for probe in Self.probes {
            for place in [0, 7, 8, 15, 16, 17, 31, 63, 64, 899] {
                var text = [UInt8](repeating: UInt8(ascii: "y"), count: 900)
                text[place] = probe
                var escaped: [UInt8] = []
                text.withUnsafeBufferPointer { JSONWriter.appendEscaped($0, to: &escaped) }
                var expected: [UInt8] = [0x22]
                for b in text {
                    switch b {
                    case 0x22: expected += [0x5C, 0x22]
                    case 0x5C: expected += [0x5C, 0x5C]
                    case 0x09: expected += [0x5C, UInt8(ascii: "t")]
                    case 0x00: expected += Array("\\u0000".utf8)
                    case 0x1F: expected += Array("\\u001f".utf8)
                    default: expected.append(b)
                    }
                }
                expected.append(0x22)
                #expect(escaped == expected, "probe \(probe) at \(place)")
                var inside: [UInt8] = []
                text.withUnsafeBufferPointer { JSONWriter.appendEscapedContents($0, to: &inside) }
                #expect(inside == Array(expected.dropFirst().dropLast()))
            }
        }
    }
}
