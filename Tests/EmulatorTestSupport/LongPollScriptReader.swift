import EmulatorSupport

/// Reads the answers of RTDB long-polling (`/.lp`) as the JS SDK's iframe would run them: the
/// `pRTLPCB<cb>(n, JSON.parse("…"))` packets and their messages.
package enum LongPollScriptReader {
    /// Every packet of `text` (one call a line): its number and its messages as compact JSON.
    package static func packets(_ text: String) -> [(number: Int, messages: [String])] {
        text.split(separator: "\n").compactMap { line -> (Int, [String])? in
            let bytes = Array(line.utf8)
            guard let call = find(Array("if(f)f(".utf8), in: bytes), let parse = find(Array(",JSON.parse(".utf8), in: bytes),
                call.upperBound <= parse.lowerBound, let end = find(Array("));})();".utf8), in: bytes, last: true),
                let number = Int(String(decoding: bytes[call.upperBound..<parse.lowerBound], as: UTF8.self)),
                let json = unquote(String(decoding: bytes[parse.upperBound..<end.lowerBound], as: UTF8.self)),
                case .array(let items)? = try? JSONReader.parse(json)
            else { return nil }
            return (number, items.map { JSONWriter.encodeToString($0) })
        }
    }

    /// The text of a JavaScript string literal (`"…"` with `\"`, `\\`, `\n`, `\r`, `\uXXXX`).
    package static func unquote(_ literal: String) -> String? {
        var scalars = Array(literal.unicodeScalars)
        guard scalars.count >= 2, scalars.first == "\"", scalars.last == "\"" else { return nil }
        scalars = Array(scalars.dropFirst().dropLast())
        var out = String.UnicodeScalarView()
        var i = 0
        while i < scalars.count {
            guard scalars[i] == "\\", i + 1 < scalars.count else {
                out.append(scalars[i])
                i += 1
                continue
            }
            switch scalars[i + 1] {
            case "n": out.append("\n")
            case "r": out.append("\r")
            case "u":
                guard i + 5 < scalars.count,
                    let v = UInt32(String(String.UnicodeScalarView(scalars[(i + 2)...(i + 5)])), radix: 16),
                    let scalar = Unicode.Scalar(v)
                else { return nil }
                out.append(scalar)
                i += 4
            default: out.append(scalars[i + 1])
            }
            i += 2
        }
        return String(out)
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], last: Bool = false) -> Range<Int>? {
        guard needle.count <= haystack.count else { return nil }
        let starts = Array(0...(haystack.count - needle.count))
        for start in last ? starts.reversed() : starts where haystack[start..<start + needle.count].elementsEqual(needle) {
            return start..<start + needle.count
        }
        return nil
    }
}
