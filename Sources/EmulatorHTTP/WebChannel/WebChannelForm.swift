import EmulatorSupport

/// A WebChannel request body (`application/x-www-form-urlencoded`), as closure's WebChannel
/// sends it with `sendRawJson`: `count=N&ofs=K&req0___data__=<JSON>&…&req{N-1}___data__=<JSON>`,
/// plus `headers=<"Name:Value\r\n" lines>` on the opening request (`encodeInitMessageHeaders`).
///
/// ```swift
/// let form = try WebChannelForm(parsing: Array("count=1&ofs=0&req0___data__=%7B%7D".utf8))
/// form.offset      // 0
/// form.messages    // [Array("{}".utf8)]
/// ```
package struct WebChannelForm: Sendable, Equatable {
    /// The `headers` lines, in order (empty when the field is absent).
    package var headers: [Header]
    /// `ofs`: the position of the first message in the session's sequence of client messages.
    package var offset: Int
    /// The `req{i}___data__` payloads in index order, still JSON text.
    package var messages: [[UInt8]]

    package struct Header: Sendable, Equatable {
        package var name: String
        package var value: String
        package init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// What is wrong with a body; `message` is the text sent back.
    package struct ParseError: Error, Sendable, Equatable {
        package var message: String
        init(_ message: String) { self.message = message }
    }

    /// More messages than this in one body are refused (closure sends at most 1,000).
    package static let maxMessages = 1_000

    package init(headers: [Header] = [], offset: Int, messages: [[UInt8]]) {
        self.headers = headers
        self.offset = offset
        self.messages = messages
    }

    /// Parses `body`. An empty body is no messages at offset 0 (a terminate carries none).
    package init(parsing body: [UInt8]) throws(ParseError) {
        var count: Int?
        var offset: Int?
        var headers: [Header] = []
        var slots: [[UInt8]?] = []
        var i = 0
        while i < body.count {
            var end = i
            while end < body.count, body[end] != UInt8(ascii: "&") { end += 1 }
            defer { i = end + 1 }
            if end == i { continue }
            var eq = i
            while eq < end, body[eq] != UInt8(ascii: "=") { eq += 1 }
            guard let name = Self.decode(body[i..<eq]), let nameText = String(validating: name, as: UTF8.self) else {
                throw ParseError("Malformed form field name.")
            }
            guard let value = Self.decode(eq < end ? body[(eq + 1)..<end] : []) else {
                throw ParseError("Malformed value of form field \(nameText).")
            }
            switch nameText {
            case "count":
                guard count == nil, let n = Self.integer(value), n <= Self.maxMessages else {
                    throw ParseError("Invalid count.")
                }
                count = n
            case "ofs":
                guard offset == nil, let n = Self.integer(value) else { throw ParseError("Invalid ofs.") }
                offset = n
            case "headers":
                guard let text = String(validating: value, as: UTF8.self) else { throw ParseError("Invalid headers.") }
                headers = Self.headerLines(text)
            default:
                guard nameText.hasPrefix("req"), nameText.hasSuffix("___data__"),
                    let index = Self.integer(Array(nameText.utf8.dropFirst(3).dropLast(9))), index < Self.maxMessages
                else { continue }  // other fields (closure's own) carry nothing for the stream
                if slots.count <= index { slots.append(contentsOf: repeatElement(nil, count: index + 1 - slots.count)) }
                guard slots[index] == nil else { throw ParseError("Duplicate req\(index)___data__.") }
                slots[index] = value
            }
        }
        let n = count ?? 0
        guard slots.count == n, slots.allSatisfy({ $0 != nil }) else {
            throw ParseError("count=\(n) does not match the \(slots.count(where: { $0 != nil })) req{i}___data__ fields sent.")
        }
        guard n == 0 || offset != nil else { throw ParseError("Missing ofs.") }
        self.headers = headers
        self.offset = offset ?? 0
        self.messages = slots.compactMap { $0 }
    }

    /// The value of the first `headers` line called `name` (any case).
    package func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.name.lowercased() == lower }?.value
    }

    /// `Name:Value` lines separated by CRLF (or LF); lines without a colon are skipped.
    static func headerLines(_ text: String) -> [Header] {
        var out: [Header] = []
        for line in text.split(whereSeparator: { $0 == "\r\n" || $0 == "\n" || $0 == "\r" }) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: " \t")
            guard !name.isEmpty else { continue }
            out.append(Header(name: name, value: line[line.index(after: colon)...].trimmingCharacters(in: " \t")))
        }
        return out
    }

    /// A decimal of at most 9 digits.
    private static func integer(_ bytes: [UInt8]) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 9 else { return nil }
        var n = 0
        for b in bytes {
            guard b >= 0x30, b <= 0x39 else { return nil }
            n = n * 10 + Int(b - 0x30)
        }
        return n
    }

    /// Percent-decodes form text (`+` is a space); nil on a malformed escape.
    private static func decode(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var i = text.startIndex
        while i < text.endIndex {
            let byte = text[i]
            if byte == UInt8(ascii: "%") {
                guard i + 2 < text.endIndex, let high = HexDigit.value(text[i + 1]), let low = HexDigit.value(text[i + 2]) else { return nil }
                out.append(high << 4 | low)
                i += 3
            } else {
                out.append(byte == UInt8(ascii: "+") ? 0x20 : byte)
                i += 1
            }
        }
        return out
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var s = self
        while let c = s.first, set.contains(c) { s.removeFirst() }
        while let c = s.last, set.contains(c) { s.removeLast() }
        return String(s)
    }
}
