/// Base64 (RFC 4648) in the standard (`+/`) and URL-safe (`-_`) alphabets.
///
/// ```swift
/// Base64.encode(Array("hi".utf8))                 // "aGk="
/// Base64.decode("aGk")                            // [0x68, 0x69] (padding optional)
/// Base64.decode("3q2-7w", alphabet: .urlSafe)     // [0xDE, 0xAD, 0xBE, 0xEF]
/// ```
package enum Base64 {
    package enum Alphabet: Sendable {
        /// `A–Z a–z 0–9 + /`
        case standard
        /// `A–Z a–z 0–9 - _`
        case urlSafe
    }

    private static let standardTable: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let urlSafeTable: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// 0xFF marks bytes outside the alphabet.
    private static func decodeTable(_ alphabet: Alphabet?) -> [UInt8] {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in standardTable.enumerated().prefix(62) { table[Int(byte)] = UInt8(index) }
        switch alphabet {
        case .standard:
            table[Int(UInt8(ascii: "+"))] = 62
            table[Int(UInt8(ascii: "/"))] = 63
        case .urlSafe:
            table[Int(UInt8(ascii: "-"))] = 62
            table[Int(UInt8(ascii: "_"))] = 63
        case nil:
            table[Int(UInt8(ascii: "+"))] = 62
            table[Int(UInt8(ascii: "/"))] = 63
            table[Int(UInt8(ascii: "-"))] = 62
            table[Int(UInt8(ascii: "_"))] = 63
        }
        return table
    }

    /// 16 random bytes from the system generator as URL-safe base64 without padding (22 characters
    /// of letters, digits, `-`, `_`): two draws, one `getrandom` each, not one per byte.
    package static func randomToken() -> String {
        var rng = SystemRandomNumberGenerator()
        let words = (rng.next() as UInt64, rng.next() as UInt64)
        return encode(withUnsafeBytes(of: words) { Array($0) }, alphabet: .urlSafe, padding: false)
    }

    private static let standardDecode = decodeTable(.standard)
    private static let urlSafeDecode = decodeTable(.urlSafe)
    private static let eitherDecode = decodeTable(nil)

    /// Encodes `bytes`; `padding` appends `=` to a multiple of four characters.
    package static func encode(
        _ bytes: some Collection<UInt8>, alphabet: Alphabet = .standard, padding: Bool = true
    ) -> String {
        let table = alphabet == .standard ? standardTable : urlSafeTable
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var iterator = bytes.makeIterator()
        while let first = iterator.next() {
            let second = iterator.next()
            let third = iterator.next()
            let group = UInt32(first) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
            output.append(table[Int(group >> 18 & 0x3F)])
            output.append(table[Int(group >> 12 & 0x3F)])
            if second != nil {
                output.append(table[Int(group >> 6 & 0x3F)])
            } else if padding {
                output.append(UInt8(ascii: "="))
            }
            if third != nil {
                output.append(table[Int(group & 0x3F)])
            } else if padding {
                output.append(UInt8(ascii: "="))
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes `text`, or returns nil if it is not base64 in `alphabet` (nil accepts both).
    /// Padding is optional, but when present it must be correct; whitespace is not accepted, nor
    /// are non-zero bits left over in the final character.
    package static func decode(_ text: String, alphabet: Alphabet? = .standard) -> [UInt8]? {
        decode(Array(text.utf8), alphabet: alphabet)
    }

    /// Decodes base64 `input` bytes; see `decode(_:alphabet:)`.
    package static func decode(_ input: [UInt8], alphabet: Alphabet? = .standard) -> [UInt8]? {
        let table: [UInt8]
        switch alphabet {
        case .standard: table = standardDecode
        case .urlSafe: table = urlSafeDecode
        case nil: table = eitherDecode
        }
        var end = input.count
        if end % 4 == 0 && end > 0 {
            if input[end - 1] == UInt8(ascii: "=") { end -= 1 }
            if input[end - 1] == UInt8(ascii: "=") { end -= 1 }
        }
        if end % 4 == 1 { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(end / 4 * 3 + 2)
        var accumulator: UInt32 = 0
        var bits = 0
        for index in 0..<end {
            let sextet = table[Int(input[index])]
            if sextet == 0xFF { return nil }
            accumulator = accumulator << 6 | UInt32(sextet)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        if accumulator != 0 { return nil }
        return output
    }
}
