/// SHA-1 (FIPS 180-4), for the WebSocket handshake (`Sec-WebSocket-Accept`) and the Realtime
/// Database node hash, which the wire protocol defines with SHA-1. Not for security.
///
/// ```swift
/// SHA1.hash(Array("abc".utf8))  // a9993e36 4706816a ba3e2571 7850c26c 9cd0d89d
/// ```
package enum SHA1 {
    /// The 20-byte digest of `message`.
    package static func hash(_ message: [UInt8]) -> [UInt8] {
        var h: (UInt32, UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0)
        // The message, 0x80, zeros up to 56 mod 64, then its length in bits (big-endian).
        let blockCount = (message.count + 8) / 64 + 1
        var padded = message
        padded.reserveCapacity(blockCount * 64)
        padded.append(0x80)
        padded.append(contentsOf: repeatElement(0, count: blockCount * 64 - 8 - padded.count))
        let bitLength = UInt64(message.count) &* 8
        for shift in stride(from: 56, through: 0, by: -8) { padded.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }

        // The rounds in four runs of 20, each with its function and constant, so that no round
        // asks which run it is in (the RTDB hashes every node a listen or transaction compares).
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 80) { w in
            for blockStart in stride(from: 0, to: padded.count, by: 64) {
                for i in 0..<16 {
                    let j = blockStart + i * 4
                    w[i] = UInt32(padded[j]) << 24 | UInt32(padded[j + 1]) << 16 | UInt32(padded[j + 2]) << 8 | UInt32(padded[j + 3])
                }
                for i in 16..<80 { w[i] = rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1) }
                var (a, b, c, d, e) = h
                @inline(__always) func step(_ f: UInt32, _ k: UInt32, _ word: UInt32) {
                    let temp = rotl(a, 5) &+ f &+ e &+ k &+ word
                    e = d
                    d = c
                    c = rotl(b, 30)
                    b = a
                    a = temp
                }
                for i in 0..<20 { step((b & c) | (~b & d), 0x5A82_7999, w[i]) }
                for i in 20..<40 { step(b ^ c ^ d, 0x6ED9_EBA1, w[i]) }
                for i in 40..<60 { step((b & c) | (b & d) | (c & d), 0x8F1B_BCDC, w[i]) }
                for i in 60..<80 { step(b ^ c ^ d, 0xCA62_C1D6, w[i]) }
                h = (h.0 &+ a, h.1 &+ b, h.2 &+ c, h.3 &+ d, h.4 &+ e)
            }
        }
        var digest: [UInt8] = []
        digest.reserveCapacity(20)
        for word in [h.0, h.1, h.2, h.3, h.4] {
            digest.append(UInt8(truncatingIfNeeded: word >> 24))
            digest.append(UInt8(truncatingIfNeeded: word >> 16))
            digest.append(UInt8(truncatingIfNeeded: word >> 8))
            digest.append(UInt8(truncatingIfNeeded: word))
        }
        return digest
    }

    private static func rotl(_ x: UInt32, _ n: UInt32) -> UInt32 {
        (x << n) | (x >> (32 - n))
    }
}
