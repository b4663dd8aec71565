/// The framing of every WebChannel answer body (closure's `goog.labs.net.webchannel`, protocol
/// version 8): `<length>\n<JSON>`, where the length counts the UTF-16 code units of the JSON
/// text (what a browser's `String.length` says), not its bytes.
///
/// ```swift
/// WebChannelFrame.frame(Array(#"[[1,["noop"]]]"#.utf8))   // "14\n[[1,[\"noop\"]]]"
/// WebChannelFrame.utf16Length(Array("😀".utf8))           // 2
/// ```
package enum WebChannelFrame {
    /// `<UTF-16 length>\n<json>`.
    package static func frame(_ json: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(json.count + 8)
        HTTP1ResponseEncoder.appendDecimal(utf16Length(json), into: &out)
        out.append(0x0A)
        out.append(contentsOf: json)
        return out
    }

    /// The UTF-16 code units of well-formed UTF-8 text: one per scalar, two for a scalar past the
    /// Basic Multilingual Plane (a 4-byte sequence). Continuation bytes count nothing.
    package static func utf16Length(_ utf8: some Collection<UInt8>) -> Int {
        var units = 0
        for byte in utf8 {
            if byte & 0xC0 == 0x80 { continue }
            units += byte >= 0xF0 ? 2 : 1
        }
        return units
    }

    /// The JSON of numbered messages, `[[id,[payload]],…]`: each payload is one message's JSON.
    package static func messages(_ items: some Sequence<(id: Int, payload: [UInt8])>) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "[")]
        var first = true
        for item in items {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            out.append(UInt8(ascii: "["))
            HTTP1ResponseEncoder.appendDecimal(item.id, into: &out)
            out.append(contentsOf: Array(",[".utf8))
            out.append(contentsOf: item.payload)
            out.append(contentsOf: Array("]]".utf8))
        }
        out.append(UInt8(ascii: "]"))
        return out
    }

    /// The JSON texts of a body made of frames, or nil when it is not one (a length that is not
    /// a decimal, a missing newline, a length past the end or in the middle of a character).
    package static func split(_ body: [UInt8]) -> [[UInt8]]? {
        var frames: [[UInt8]] = []
        var i = 0
        while i < body.count {
            var length = 0
            var digits = 0
            while i < body.count, body[i] >= 0x30, body[i] <= 0x39, digits < 10 {
                length = length * 10 + Int(body[i] - 0x30)
                digits += 1
                i += 1
            }
            guard digits > 0, i < body.count, body[i] == 0x0A else { return nil }
            i += 1
            let start = i
            var units = 0
            while units < length {
                guard i < body.count else { return nil }
                let byte = body[i]
                let size = byte < 0x80 ? 1 : byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2
                units += size == 4 ? 2 : 1
                i += size
            }
            guard units == length, i <= body.count else { return nil }
            frames.append(Array(body[start..<i]))
        }
        return frames
    }
}
