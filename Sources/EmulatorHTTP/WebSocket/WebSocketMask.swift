/// The XOR masking of a client frame's payload (RFC 6455 §5.3): byte `i` is XORed with byte
/// `i % 4` of the 4-byte key. Masking and unmasking are the same operation.
///
/// ```swift
/// var bytes: [UInt8] = [0x48, 0x65, 0x6c, 0x6c, 0x6f]
/// bytes.withUnsafeMutableBufferPointer { WebSocketMask.apply((0x37, 0xfa, 0x21, 0x3d), to: $0) }
/// // [0x7f, 0x9f, 0x4d, 0x51, 0x58]
/// ```
package enum WebSocketMask {
    /// XORs `bytes` in place with `key`, the first byte with the key's first byte. Eight bytes
    /// at a time (the key repeats every four, so twice over in a word is the same XOR), then the
    /// tail byte by byte: a server unmasks every client frame and a client masks every frame.
    package static func apply(_ key: (UInt8, UInt8, UInt8, UInt8), to bytes: UnsafeMutableBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        let count = bytes.count
        withUnsafeBytes(of: (key.0, key.1, key.2, key.3, key.0, key.1, key.2, key.3)) { keyBytes in
            let word = keyBytes.loadUnaligned(as: UInt64.self)
            let raw = UnsafeMutableRawPointer(base)
            var offset = 0
            while offset + 8 <= count {
                let value = raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                raw.storeBytes(of: value ^ word, toByteOffset: offset, as: UInt64.self)
                offset += 8
            }
            while offset < count {
                base[offset] ^= keyBytes[offset & 3]
                offset += 1
            }
        }
    }
}
