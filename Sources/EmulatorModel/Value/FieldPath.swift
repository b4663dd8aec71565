/// A path to a field inside a document: `a.b`, `` `x.y`.z ``, or `__name__` (the document key).
///
/// A segment is written bare when it matches `[_a-zA-Z][_a-zA-Z0-9]*`, otherwise inside backticks
/// where `\` escapes `` ` `` and `\`. The parser accepts the server format: any bare characters
/// except `.`, `` ` `` quoting, and `\` escapes anywhere.
///
/// ```swift
/// let p = try FieldPath(parsing: "a.`b.c`.d")   // segments ["a", "b.c", "d"]
/// p.canonicalString                              // "a.`b.c`.d"
/// ```
package struct FieldPath: Sendable, Hashable, CustomStringConvertible {
    package private(set) var segments: [String]

    /// Maximum UTF-8 bytes of a field path or field name.
    package static let maxBytes = 1500

    /// The document key pseudo-field `__name__`.
    package static let documentID = FieldPath(["__name__"])

    /// A path of raw (unescaped) segments.
    package init(_ segments: [String]) { self.segments = segments }

    /// Parses the server format (update masks, `fieldPath` of filters and orders, transforms).
    /// Throws `INVALID_ARGUMENT` for an empty path or segment, a leading, trailing or doubled dot,
    /// a trailing `\`, an unterminated backtick, or a path over 1,500 bytes.
    package init(parsing text: String) throws(EmulatorError) {
        let bytes = Array(text.utf8)
        if bytes.isEmpty { throw .invalidArgument("Invalid field path: the path must not be empty.") }
        if bytes.count > Self.maxBytes {
            throw .invalidArgument("Invalid field path \"\(text)\": longer than \(Self.maxBytes) bytes.")
        }
        var segments: [String] = []
        var current: [UInt8] = []
        var quoted = false
        var sawQuote = false
        var i = 0
        while i < bytes.count {
            let c = bytes[i]
            switch c {
            case 0x5C:  // backslash
                guard i + 1 < bytes.count else {
                    throw .invalidArgument("Invalid field path \"\(text)\": trailing escape character is not allowed.")
                }
                current.append(bytes[i + 1])
                i += 2
                continue
            case 0x60:  // backtick
                quoted.toggle()
                sawQuote = true
            case 0x2E where !quoted:  // dot
                guard !current.isEmpty || sawQuote else {
                    throw .invalidArgument("Invalid field path \"\(text)\": paths must not contain empty segments.")
                }
                segments.append(String(decoding: current, as: UTF8.self))
                current.removeAll(keepingCapacity: true)
                sawQuote = false
            default:
                current.append(c)
            }
            i += 1
        }
        if quoted { throw .invalidArgument("Invalid field path \"\(text)\": unterminated ` in path.") }
        guard !current.isEmpty || sawQuote else {
            throw .invalidArgument("Invalid field path \"\(text)\": paths must not contain empty segments.")
        }
        segments.append(String(decoding: current, as: UTF8.self))
        if segments.contains(where: \.utf8.isEmpty) {
            throw .invalidArgument("Invalid field path \"\(text)\": paths must not contain empty segments.")
        }
        self.segments = segments
    }

    package var isEmpty: Bool { segments.isEmpty }
    package var count: Int { segments.count }
    /// True for `__name__`.
    package var isDocumentID: Bool { segments.count == 1 && UTF8Order.equal(segments[0], "__name__") }
    package var firstSegment: String? { segments.first }
    package var lastSegment: String? { segments.last }
    /// The path without its last segment.
    package var parent: FieldPath { FieldPath(Array(segments.dropLast())) }
    /// The path without its first segment.
    package var droppingFirst: FieldPath { FieldPath(Array(segments.dropFirst())) }

    package func appending(_ segment: String) -> FieldPath { FieldPath(segments + [segment]) }

    /// True when `self` is a (non-strict) prefix of `other`.
    package func isPrefix(of other: FieldPath) -> Bool {
        guard segments.count <= other.segments.count else { return false }
        for i in segments.indices where !UTF8Order.equal(segments[i], other.segments[i]) { return false }
        return true
    }

    /// True when the segment can be written without backticks: `[_a-zA-Z][_a-zA-Z0-9]*`.
    package static func isSimpleSegment(_ s: String) -> Bool {
        var first = true
        for c in s.utf8 {
            let letter = (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F
            let digit = c >= 0x30 && c <= 0x39
            if !(letter || (!first && digit)) { return false }
            first = false
        }
        return !first
    }

    /// The canonical server form: simple segments bare, others backquoted with `\` and `` ` `` escaped.
    package var canonicalString: String {
        var out: [UInt8] = []
        for (n, s) in segments.enumerated() {
            if n > 0 { out.append(0x2E) }
            if FieldPath.isSimpleSegment(s) {
                out.append(contentsOf: s.utf8)
            } else {
                out.append(0x60)
                for c in s.utf8 {
                    if c == 0x5C || c == 0x60 { out.append(0x5C) }
                    out.append(c)
                }
                out.append(0x60)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    package var description: String { canonicalString }

    /// Segment by segment (UTF-8 bytes), then by length: the order of implicit inequality orderings.
    package static func compare(_ a: FieldPath, _ b: FieldPath) -> Int {
        let n = min(a.segments.count, b.segments.count)
        for i in 0..<n {
            let c = UTF8Order.compare(a.segments[i], b.segments[i])
            if c != 0 { return c }
        }
        return a.segments.count == b.segments.count ? 0 : (a.segments.count < b.segments.count ? -1 : 1)
    }

    package static func == (a: FieldPath, b: FieldPath) -> Bool { compare(a, b) == 0 }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(segments.count)
        for s in segments { Value.hashUTF8(s, into: &hasher) }
    }
}
