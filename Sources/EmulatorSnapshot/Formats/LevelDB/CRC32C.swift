import CEmulatorLinux

/// CRC-32C (Castagnoli), as LevelDB log records use it, plus LevelDB's checksum masking.
///
/// ```swift
/// CRC32C.checksum(Array("123456789".utf8)) // 0xE3069283
/// ```
package enum CRC32C {
    /// Slicing-by-8 tables: `tables[0]` is the classic byte table.
    private static let tables: [[UInt32]] = {
        var tables = [[UInt32]](repeating: [UInt32](repeating: 0, count: 256), count: 8)
        for i in 0..<256 {
            var crc = UInt32(i)
            for _ in 0..<8 { crc = (crc & 1) != 0 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
            tables[0][i] = crc
        }
        for i in 0..<256 {
            for t in 1..<8 {
                let previous = tables[t - 1][i]
                tables[t][i] = (previous >> 8) ^ tables[0][Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    /// Extends `crc` (a finished checksum, 0 to start) with `bytes`: the CPU's `crc32`
    /// instruction where there is one (SSE4.2), else `updateSoftware`.
    package static func update(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard let base = bytes.baseAddress else { return crc }
        return cemu_crc32c(crc, base.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count))
    }

    /// The portable slicing-by-8 form of `update` (tests check the two agree).
    package static func updateSoftware(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var c = ~crc
        var i = 0
        let n = bytes.count
        tables.withUnsafeBufferPointer { t in
            let t0 = t[0], t1 = t[1], t2 = t[2], t3 = t[3], t4 = t[4], t5 = t[5], t6 = t[6], t7 = t[7]
            while n - i >= 8 {
                let lo = c ^ (UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24)
                c = t7[Int(lo & 0xFF)] ^ t6[Int((lo >> 8) & 0xFF)] ^ t5[Int((lo >> 16) & 0xFF)] ^ t4[Int(lo >> 24)]
                    ^ t3[Int(bytes[i + 4])] ^ t2[Int(bytes[i + 5])] ^ t1[Int(bytes[i + 6])] ^ t0[Int(bytes[i + 7])]
                i += 8
            }
            while i < n {
                c = t0[Int((c ^ UInt32(bytes[i])) & 0xFF)] ^ (c >> 8)
                i += 1
            }
        }
        return ~c
    }

    /// The checksum of `bytes`.
    package static func checksum(_ bytes: some Collection<UInt8>) -> UInt32 {
        if let result = bytes.withContiguousStorageIfAvailable({ update(0, UnsafeRawBufferPointer($0)) }) {
            return result
        }
        let copy = Array(bytes)
        return copy.withUnsafeBytes { update(0, $0) }
    }

    /// LevelDB stores checksums masked, so a checksum of data that embeds checksums stays strong.
    package static func mask(_ crc: UInt32) -> UInt32 {
        ((crc >> 15) | (crc << 17)) &+ 0xA282_EAD8
    }

    /// The inverse of `mask`.
    package static func unmask(_ masked: UInt32) -> UInt32 {
        let rotated = masked &- 0xA282_EAD8
        return (rotated >> 17) | (rotated << 15)
    }
}
