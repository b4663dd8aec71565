import EmulatorModel
import EmulatorSupport

/// One pass from the bytes of a commit body to ``Write``s, for the shape bulk loads send
/// (`{"writes":[{"update":{"name","fields"},"updateMask"?,"currentDocument"?} | {"delete"}…],
/// "transaction"?, "database"?}` with lowerCamelCase names and escape-free strings), without
/// building a JSON tree first.
///
/// It answers nil for anything else: other members or spellings, escapes, duplicates, `null`s,
/// numbers written unusually, invalid input of any kind. The general decoder (``JSONReader``,
/// ``JSONObject``, ``RESTDecoding``) then decodes the body and gives the precise error, so this
/// shortcut never changes an answer: where it succeeds it produces exactly what the general path
/// produces.
struct FastWriteDecoder {
    private let bytes: UnsafeBufferPointer<UInt8>
    /// Reads document names; nil where the body holds none (a document's own fields).
    private let names: RESTDecoding.NameParser?
    private var i = 0
    /// Whether the string `stringBytes` read last is all ASCII, so that `string()` makes a
    /// `String` of it without scanning its bytes again (a 1 KB value is most of a body).
    private var lastStringIsASCII = false
    /// Whether everything read so far is written exactly as ``Value/appendFirestoreJSON(to:)``
    /// writes it back (no spaces, fields in order, integers as plain decimal strings, no empty
    /// `fields` or `values`, no doubles or timestamps, whose text has other spellings).
    private var canonical = true
    /// Where the fields of the last depth-0 `fields` object lie, sorted by name.
    private var topSpans: [FieldSpan] = []

    /// Nesting of map and array values handled here (deeper documents take the general path).
    private static let maxDepth = 20

    /// The writes and transaction of a commit body, or nil (see the type's documentation).
    static func commit(_ body: [UInt8], names: RESTDecoding.NameParser) -> (writes: [Write], transaction: [UInt8]?)? {
        body.withUnsafeBufferPointer { buffer in
            var decoder = FastWriteDecoder(bytes: buffer, names: names)
            return decoder.request()
        }
    }

    /// The fields of a createDocument or patch body that holds `fields` and nothing else
    /// (`{"fields":{…}}`), or nil (see the type's documentation).
    static func documentFields(_ body: [UInt8]) -> ValueMap? {
        documentFieldsAndSpans(body)?.fields
    }

    /// Where a field of a `fields` object lies in the body: its name (inside the quotes) and the
    /// whole member (`"name":{…}`).
    typealias FieldSpan = (key: Range<Int>, member: Range<Int>)

    /// ``documentFields(_:)``, and where in `body` each field lies (in the answer's order, by
    /// name) when the body spells every field exactly as the answer writes it back
    /// (``Value/appendFirestoreJSON(to:)`` for each value, no spaces, maps' fields in order), so
    /// an answer can copy those bytes; nil when not, or when there are no fields (the answer then
    /// has no `fields` member). The document's own fields may come in any order.
    static func documentFieldsAndSpans(_ body: [UInt8]) -> (fields: ValueMap, spans: [FieldSpan]?)? {
        body.withUnsafeBufferPointer { buffer in
            var decoder = FastWriteDecoder(bytes: buffer, names: nil)
            var fields: ValueMap?
            let ok = decoder.object { (d: inout FastWriteDecoder, key: UnsafeBufferPointer<UInt8>) -> Bool in
                guard fields == nil, Self.equal(key, "fields"), let f = d.fields(depth: 0) else { return false }
                fields = f
                return true
            }
            guard ok, let fields else { return nil }
            decoder.skipSpace()
            guard decoder.i == buffer.count else { return nil }
            return (fields, decoder.canonical && !fields.isEmpty ? decoder.topSpans : nil)
        }
    }

    private init(bytes: UnsafeBufferPointer<UInt8>, names: RESTDecoding.NameParser?) {
        self.bytes = bytes
        self.names = names
    }

    // MARK: Request structure

    private mutating func request() -> (writes: [Write], transaction: [UInt8]?)? {
        var writes: [Write]?
        var transaction: [UInt8]?
        var sawDatabase = false
        let ok = object { (d: inout FastWriteDecoder, key: UnsafeBufferPointer<UInt8>) -> Bool in
            if Self.equal(key, "writes") {
                guard writes == nil, let w = d.writes() else { return false }
                writes = w
                return true
            }
            if Self.equal(key, "transaction") {
                guard transaction == nil, let s = d.string(), let t = Base64.decode(s, alphabet: nil) else { return false }
                transaction = t
                return true
            }
            if Self.equal(key, "database") {
                guard !sawDatabase, d.string() != nil else { return false }
                sawDatabase = true
                return true
            }
            return false
        }
        guard ok else { return nil }
        skipSpace()
        guard i == bytes.count else { return nil }
        return (writes ?? [], transaction)
    }

    private mutating func writes() -> [Write]? {
        var out: [Write] = []
        out.reserveCapacity(500)
        let ok = array { (d: inout FastWriteDecoder) -> Bool in
            guard let w = d.write() else { return false }
            out.append(w)
            return true
        }
        return ok ? out : nil
    }

    private mutating func write() -> Write? {
        var update: (DocumentName, ValueMap)?
        var delete: DocumentName?
        var mask: [FieldPath]?
        var precondition: WritePrecondition?
        let ok = object { (d: inout FastWriteDecoder, key: UnsafeBufferPointer<UInt8>) -> Bool in
            if Self.equal(key, "update") {
                guard update == nil, let u = d.document() else { return false }
                update = u
            } else if Self.equal(key, "delete") {
                guard delete == nil, let name = d.documentName() else { return false }
                delete = name
            } else if Self.equal(key, "updateMask") {
                guard mask == nil, let m = d.mask() else { return false }
                mask = m
            } else if Self.equal(key, "currentDocument") {
                guard precondition == nil, let p = d.precondition() else { return false }
                precondition = p
            } else {
                return false
            }
            return true
        }
        guard ok else { return nil }
        switch (update, delete) {
        case (let (name, fields)?, nil):
            return Write(.update(name, fields: fields, mask: mask), precondition: precondition ?? .none)
        case (nil, let name?) where mask == nil:
            return Write(.delete(name), precondition: precondition ?? .none)
        default:
            return nil
        }
    }

    private mutating func document() -> (DocumentName, ValueMap)? {
        var name: DocumentName?
        var fields: ValueMap?
        let ok = object { (d: inout FastWriteDecoder, key: UnsafeBufferPointer<UInt8>) -> Bool in
            if Self.equal(key, "name") {
                guard name == nil, let n = d.documentName() else { return false }
                name = n
            } else if Self.equal(key, "fields") {
                guard fields == nil, let f = d.fields(depth: 0) else { return false }
                fields = f
            } else {
                return false
            }
            return true
        }
        guard ok, let name else { return nil }
        return (name, fields ?? ValueMap())
    }

    private mutating func documentName() -> DocumentName? {
        guard let range = stringBytes() else { return nil }
        let slice = UnsafeBufferPointer(rebasing: bytes[range])
        guard slice.count <= DocumentName.maxNameBytes else { return nil }
        guard let names else { return nil }
        return names.root.withUnsafeBufferPointer { root in
            RESTDecoding.fastDocumentName(slice, root: root, database: names.database)
        }
    }

    private mutating func mask() -> [FieldPath]? {
        var paths: [FieldPath]?
        let ok = object { (d: inout FastWriteDecoder, key: UnsafeBufferPointer<UInt8>) -> Bool in
            guard paths == nil, Self.equal(key, "fieldPaths") else { return false }
            var out: [FieldPath] = []
            let listed = d.array { (d: inout FastWriteDecoder) -> Bool in
                guard let s = d.string(), let p = try? FieldPath(parsing: s) else { return false }
                out.append(p)
                return true
            }
            paths = out
            return listed
        }
        guard ok else { return nil }
        return paths ?? []
    }

    private mutating func precondition() -> WritePrecondition? {
        var result: WritePrecondition?
        let ok = object { (d: inout FastWriteDecoder, key: UnsafeBufferPointer<UInt8>) -> Bool in
            guard result == nil, Self.equal(key, "exists"), let b = d.literalBool() else { return false }
            result = .exists(b)
            return true
        }
        guard ok else { return nil }
        return result ?? WritePrecondition.none
    }

    // MARK: Values

    /// A `fields` object. Fields are kept sorted by their raw key bytes as they arrive (an
    /// insertion sort: documents have a handful of fields); a duplicate name makes it answer nil,
    /// so the general decoder refuses the body with its error.
    private mutating func fields(depth: Int) -> ValueMap? {
        var out: [ValueMap.Field] = []
        var keys: [FieldSpan] = []
        out.reserveCapacity(8)
        keys.reserveCapacity(8)
        var duplicate = false
        let base = bytes.baseAddress
        let ok = object { (d: inout FastWriteDecoder, key: UnsafeBufferPointer<UInt8>) -> Bool in
            guard let name = Self.text(key), let v = d.value(depth: depth) else { return false }
            let start = key.baseAddress.map { $0 - (base ?? $0) } ?? 0
            // The member runs from the name's opening quote to the end of the value.
            keys.append((start..<(start + key.count), (start - 1)..<d.i))
            out.append(ValueMap.Field(name, v))
            var j = keys.count - 1
            while j > 0 {
                let c = UTF8Order.compare(UnsafeBufferPointer(rebasing: d.bytes[keys[j - 1].key]), key)
                if c == 0 { duplicate = true }
                if c <= 0 { break }
                // A nested map written out of order is written back sorted; the document's own
                // fields are copied member by member, in sorted order.
                if depth > 0 { d.canonical = false }
                keys.swapAt(j - 1, j)
                out.swapAt(j - 1, j)
                j -= 1
            }
            return true
        }
        guard ok, !duplicate else { return nil }
        if depth == 0 { topSpans = keys }
        return ValueMap(uncheckedSortedFields: out)
    }

    private mutating func value(depth: Int) -> Value? {
        var result: Value?
        let ok = object { (d: inout FastWriteDecoder, key: UnsafeBufferPointer<UInt8>) -> Bool in
            guard result == nil else { return false }
            result = d.typedValue(key, depth: depth)
            return result != nil
        }
        guard ok else { return nil }
        return result
    }

    private mutating func typedValue(_ key: UnsafeBufferPointer<UInt8>, depth: Int) -> Value? {
        skipSpace()
        guard i < bytes.count else { return nil }
        if Self.equal(key, "stringValue") { return string().map { .string($0) } }
        if Self.equal(key, "integerValue") {
            if bytes[i] == 0x22 {
                guard let range = stringBytes() else { return nil }
                let digits = UnsafeBufferPointer(rebasing: bytes[range])
                if let n = Self.decimal(digits) {
                    if !Self.isCanonicalDecimal(digits) { canonical = false }
                    return .integer(n)
                }
                canonical = false
                guard let s = Self.text(digits), let n = Int64(s) else { return nil }
                return .integer(n)
            }
            canonical = false  // a number; the answer writes a string
            guard let n = plainInteger() else { return nil }
            return .integer(n)
        }
        if Self.equal(key, "doubleValue") {
            canonical = false  // a double's text has many spellings
            if bytes[i] == 0x22 {
                guard let s = string() else { return nil }
                switch s {
                case "NaN": return .double(.nan)
                case "Infinity": return .double(.infinity)
                case "-Infinity": return .double(-.infinity)
                default:
                    guard let d = Double(s), d.isFinite else { return nil }
                    return .double(d)
                }
            }
            guard let d = number(), d.isFinite else { return nil }
            return .double(d)
        }
        if Self.equal(key, "booleanValue") { return literalBool().map { .boolean($0) } }
        if Self.equal(key, "nullValue") { return literal("null") ? .null : nil }
        if Self.equal(key, "timestampValue") {
            canonical = false  // so has a timestamp's
            guard let s = string(), let t = try? Timestamp(rfc3339: s) else { return nil }
            return .timestamp(t)
        }
        guard depth < Self.maxDepth else { return nil }
        if Self.equal(key, "mapValue") {
            var map: ValueMap?
            let ok = object { (d: inout FastWriteDecoder, key: UnsafeBufferPointer<UInt8>) -> Bool in
                guard map == nil, Self.equal(key, "fields"), let m = d.fields(depth: depth + 1) else { return false }
                if m.isEmpty { d.canonical = false }  // the answer writes `{"mapValue":{}}`
                map = m
                return true
            }
            return ok ? .map(map ?? ValueMap()) : nil
        }
        if Self.equal(key, "arrayValue") {
            var elements: [Value]?
            let ok = object { (d: inout FastWriteDecoder, key: UnsafeBufferPointer<UInt8>) -> Bool in
                guard elements == nil, Self.equal(key, "values") else { return false }
                var out: [Value] = []
                let listed = d.array { (d: inout FastWriteDecoder) -> Bool in
                    guard let v = d.value(depth: depth + 1) else { return false }
                    out.append(v)
                    return true
                }
                if out.isEmpty { d.canonical = false }  // the answer writes `{"arrayValue":{}}`
                elements = out
                return listed
            }
            return ok ? .array(elements ?? []) : nil
        }
        return nil
    }

    // MARK: Tokens

    private static func equal(_ key: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
        guard key.count == name.utf8CodeUnitCount else { return false }
        return UTF8Order.compare(key, UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)) == 0
    }

    private mutating func skipSpace() {
        guard i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 else { return }
        canonical = false  // the answer has no spaces
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
    }

    /// `{ "key": value, … }`; `member` parses the value after the colon. Keys are escape-free.
    private mutating func object(_ member: (inout FastWriteDecoder, UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        skipSpace()
        guard i < bytes.count, bytes[i] == 0x7B else { return false }
        i += 1
        skipSpace()
        if i < bytes.count, bytes[i] == 0x7D {
            i += 1
            return true
        }
        while true {
            skipSpace()
            guard let key = stringBytes() else { return false }
            skipSpace()
            guard i < bytes.count, bytes[i] == 0x3A else { return false }
            i += 1
            guard member(&self, UnsafeBufferPointer(rebasing: bytes[key])) else { return false }
            skipSpace()
            guard i < bytes.count else { return false }
            if bytes[i] == 0x2C {
                i += 1
                continue
            }
            guard bytes[i] == 0x7D else { return false }
            i += 1
            return true
        }
    }

    /// `[ element, … ]`.
    private mutating func array(_ element: (inout FastWriteDecoder) -> Bool) -> Bool {
        skipSpace()
        guard i < bytes.count, bytes[i] == 0x5B else { return false }
        i += 1
        skipSpace()
        if i < bytes.count, bytes[i] == 0x5D {
            i += 1
            return true
        }
        while true {
            guard element(&self) else { return false }
            skipSpace()
            guard i < bytes.count else { return false }
            if bytes[i] == 0x2C {
                i += 1
                continue
            }
            guard bytes[i] == 0x5D else { return false }
            i += 1
            return true
        }
    }

    /// The byte range inside a string without escapes or control characters.
    private mutating func stringBytes() -> Range<Int>? {
        skipSpace()
        guard i < bytes.count, bytes[i] == 0x22 else { return nil }
        let start = i + 1
        // Eight bytes at a time while none is a quote, backslash, control or non-ASCII byte.
        var j = JSONStringScan.skipPlainASCII(bytes, from: start, to: bytes.count)
        var ascii = true
        while j < bytes.count {
            let c = bytes[j]
            if c == 0x22 {
                i = j + 1
                lastStringIsASCII = ascii
                return start..<j
            }
            if c == 0x5C || c < 0x20 { return nil }
            if c >= 0x80 { ascii = false }
            j += 1
        }
        return nil
    }

    private mutating func string() -> String? {
        guard let range = stringBytes() else { return nil }
        let text = UnsafeBufferPointer(rebasing: bytes[range])
        return lastStringIsASCII ? String(decoding: text, as: UTF8.self) : Self.text(text)
    }

    /// A string of valid UTF-8 (ASCII checked with a plain loop first: the standard library's
    /// validating initializer costs several times more).
    static func text(_ b: UnsafeBufferPointer<UInt8>) -> String? {
        var k = JSONStringScan.skipPlainASCII(b, from: 0, to: b.count)
        while k < b.count {
            if b[k] >= 0x80 { return UTF8Validation.isValid(b) ? String(decoding: b, as: UTF8.self) : nil }
            k += 1
        }
        return String(decoding: b, as: UTF8.self)
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        skipSpace()
        let n = word.utf8CodeUnitCount
        guard i + n <= bytes.count,
            UTF8Order.compare(UnsafeBufferPointer(rebasing: bytes[i..<(i + n)]), UnsafeBufferPointer(start: word.utf8Start, count: n)) == 0
        else { return false }
        // The literal must end there (`truex` is not `true`).
        if i + n < bytes.count, Self.isWordByte(bytes[i + n]) { return false }
        i += n
        return true
    }

    private mutating func literalBool() -> Bool? {
        if literal("true") { return true }
        if literal("false") { return false }
        return nil
    }

    private static func isWordByte(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2E || c == 0x2B || c == 0x2D
    }

    /// A JSON number token's bytes: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
    private mutating func numberToken() -> (range: Range<Int>, isInteger: Bool)? {
        skipSpace()
        let start = i
        var j = i
        if j < bytes.count, bytes[j] == 0x2D { j += 1 }
        guard j < bytes.count, bytes[j] >= 0x30 && bytes[j] <= 0x39 else { return nil }
        if bytes[j] == 0x30 {
            j += 1
        } else {
            while j < bytes.count, bytes[j] >= 0x30 && bytes[j] <= 0x39 { j += 1 }
        }
        var isInteger = true
        if j < bytes.count, bytes[j] == 0x2E {
            isInteger = false
            j += 1
            let digits = j
            while j < bytes.count, bytes[j] >= 0x30 && bytes[j] <= 0x39 { j += 1 }
            guard j > digits else { return nil }
        }
        if j < bytes.count, bytes[j] == 0x65 || bytes[j] == 0x45 {
            isInteger = false
            j += 1
            if j < bytes.count, bytes[j] == 0x2B || bytes[j] == 0x2D { j += 1 }
            let digits = j
            while j < bytes.count, bytes[j] >= 0x30 && bytes[j] <= 0x39 { j += 1 }
            guard j > digits else { return nil }
        }
        if j < bytes.count, Self.isWordByte(bytes[j]) { return nil }
        i = j
        return (start..<j, isInteger)
    }

    /// An integer literal that fits `Int64` (as the JSON reader makes `.int` of it).
    private mutating func plainInteger() -> Int64? {
        guard let (range, isInteger) = numberToken(), isInteger else { return nil }
        // "-0" is a double to the JSON reader (and so an integer 0 there too); keep it simple.
        var value: Int64 = 0
        var k = range.lowerBound
        let negative = bytes[k] == 0x2D
        if negative { k += 1 }
        if negative && range.upperBound - k == 1 && bytes[k] == 0x30 { return nil }
        while k < range.upperBound {
            let digit = Int64(bytes[k] - 0x30)
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (s, o2) = negative ? m.subtractingReportingOverflow(digit) : m.addingReportingOverflow(digit)
            if o1 || o2 { return nil }
            value = s
            k += 1
        }
        return value
    }

    /// Whether `b` (which ``decimal(_:)`` read) is how `Int64`'s description spells its value:
    /// no leading zero, no `-0`.
    private static func isCanonicalDecimal(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let digits = b.first == 0x2D ? 1 : 0
        guard digits < b.count else { return false }
        if b[digits] == 0x30 { return b.count == 1 }
        return true
    }

    /// `-?[0-9]+` that fits `Int64` (what `Int64(String)` accepts in that form); nil otherwise.
    private static func decimal(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        var k = 0
        let negative = b.first == 0x2D
        if negative { k = 1 }
        guard k < b.count else { return nil }
        var value: Int64 = 0
        while k < b.count {
            let c = b[k]
            guard c >= 0x30 && c <= 0x39 else { return nil }
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let digit = Int64(c - 0x30)
            let (s, o2) = negative ? m.subtractingReportingOverflow(digit) : m.addingReportingOverflow(digit)
            if o1 || o2 { return nil }
            value = s
            k += 1
        }
        return value
    }

    private mutating func number() -> Double? {
        guard let (range, _) = numberToken(),
            let text = Self.text(UnsafeBufferPointer(rebasing: bytes[range]))
        else { return nil }
        return Double(text)
    }
}
