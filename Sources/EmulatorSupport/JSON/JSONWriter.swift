/// Serialises JSON into a `[UInt8]` buffer.
///
/// Use `encode(_:)` for a whole `JSONValue`, or the streaming appenders to write JSON without
/// building a tree (commas, colons and pretty-printing indentation are inserted for you):
///
/// ```swift
/// var writer = JSONWriter()
/// writer.beginObject()
/// writer.appendKey("name"); writer.appendString("Ada")
/// writer.appendKey("tags"); writer.beginArray(); writer.appendInt(1); writer.endArray()
/// writer.endObject()
/// writer.bytes // {"name":"Ada","tags":[1]}
/// ```
///
/// Pretty output matches `JSON.stringify(value, null, 2)`: two-space indentation, `"key": value`,
/// and empty containers as `{}` / `[]`. Doubles are written as JavaScript writes numbers
/// (`formatDouble`); non-finite doubles are written as `null`.
package struct JSONWriter: Sendable {
    /// The JSON written so far.
    package var bytes: [UInt8] = []
    /// Whether to indent with two spaces per level and put a space after `:`.
    package let pretty: Bool
    private var depth = 0
    /// True until the current container has its first element.
    private var isFirst = true
    /// True right after `appendKey`, when the next value follows the colon.
    private var afterKey = false

    package init(pretty: Bool = false) {
        self.pretty = pretty
    }

    /// The bytes of `value` as JSON.
    package static func encode(_ value: JSONValue, pretty: Bool = false) -> [UInt8] {
        var writer = JSONWriter(pretty: pretty)
        writer.write(value)
        return writer.bytes
    }

    /// `value` as a JSON string.
    package static func encodeToString(_ value: JSONValue, pretty: Bool = false) -> String {
        String(decoding: encode(value, pretty: pretty), as: UTF8.self)
    }

    /// Appends a whole value.
    package mutating func write(_ value: JSONValue) {
        switch value {
        case .null: appendNull()
        case .bool(let flag): appendBool(flag)
        case .int(let number): appendInt(number)
        case .double(let number): appendDouble(number)
        case .string(let text): appendString(text)
        case .array(let elements):
            beginArray()
            for element in elements { write(element) }
            endArray()
        case .object(let members):
            beginObject()
            for member in members {
                appendKey(member.name)
                write(member.value)
            }
            endObject()
        }
    }

    // MARK: - Structure

    @inline(__always)
    private mutating func newlineAndIndent() {
        bytes.append(0x0A)
        for _ in 0..<depth {
            bytes.append(0x20)
            bytes.append(0x20)
        }
    }

    /// Writes the separator that precedes a value in the current context.
    @inline(__always)
    private mutating func prepareValue() {
        if afterKey {
            afterKey = false
            return
        }
        if depth > 0 {
            if !isFirst { bytes.append(UInt8(ascii: ",")) }
            if pretty { newlineAndIndent() }
        }
        isFirst = false
    }

    package mutating func beginObject() {
        prepareValue()
        bytes.append(UInt8(ascii: "{"))
        depth += 1
        isFirst = true
    }

    package mutating func endObject() {
        depth = max(0, depth - 1)
        if pretty && !isFirst { newlineAndIndent() }
        bytes.append(UInt8(ascii: "}"))
        isFirst = false
    }

    package mutating func beginArray() {
        prepareValue()
        bytes.append(UInt8(ascii: "["))
        depth += 1
        isFirst = true
    }

    package mutating func endArray() {
        depth = max(0, depth - 1)
        if pretty && !isFirst { newlineAndIndent() }
        bytes.append(UInt8(ascii: "]"))
        isFirst = false
    }

    /// Writes an object member name and its colon; the next appended value is the member's value.
    package mutating func appendKey(_ name: String) {
        if !isFirst { bytes.append(UInt8(ascii: ",")) }
        if pretty { newlineAndIndent() }
        isFirst = false
        appendEscaped(name)
        bytes.append(UInt8(ascii: ":"))
        if pretty { bytes.append(0x20) }
        afterKey = true
    }

    /// ``appendKey(_:)`` for a name that needs no escaping (a literal of the caller's, such as a
    /// proto field name): its bytes are copied as they are.
    package mutating func appendPlainKey(_ name: StaticString) {
        if !isFirst { bytes.append(UInt8(ascii: ",")) }
        if pretty { newlineAndIndent() }
        isFirst = false
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        if pretty { bytes.append(0x20) }
        afterKey = true
    }

    // MARK: - Scalars

    package mutating func appendNull() {
        prepareValue()
        bytes.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])  // null
    }

    package mutating func appendBool(_ value: Bool) {
        prepareValue()
        if value {
            bytes.append(contentsOf: [0x74, 0x72, 0x75, 0x65])  // true
        } else {
            bytes.append(contentsOf: [0x66, 0x61, 0x6C, 0x73, 0x65])  // false
        }
    }

    package mutating func appendString(_ value: String) {
        prepareValue()
        appendEscaped(value)
    }

    /// Appends a string whose UTF-8 `body` appends to the buffer, quoted but not escaped: for
    /// text known to need no escaping (timestamps, numbers).
    package mutating func appendUnescapedString(_ body: (inout [UInt8]) -> Void) {
        prepareValue()
        bytes.append(UInt8(ascii: "\""))
        body(&bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends UTF-8 text as a quoted, escaped JSON string (a name assembled from parts without
    /// building a `String`).
    package mutating func appendString(utf8 text: UnsafeBufferPointer<UInt8>) {
        prepareValue()
        Self.appendEscaped(text, to: &bytes)
    }

    package mutating func appendInt(_ value: Int64) {
        prepareValue()
        Self.appendDecimal(value, to: &bytes)
    }

    package mutating func appendInt(_ value: Int) {
        appendInt(Int64(value))
    }

    /// Appends a double as JavaScript would print it; NaN and infinities become `null`.
    package mutating func appendDouble(_ value: Double) {
        prepareValue()
        guard value.isFinite else {
            bytes.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
            return
        }
        Self.appendFormattedDouble(value, to: &bytes)
    }

    /// Appends already-serialised JSON (e.g. a cached document) as the next value, unchecked and
    /// not re-indented.
    package mutating func appendRawJSON(_ json: some Collection<UInt8>) {
        prepareValue()
        bytes.append(contentsOf: json)
    }

    /// ``appendRawJSON(_:)`` for an array: not generic, so a caller in another module does not
    /// step through the bytes by protocol witnesses (thousands of instructions for a cached
    /// answer).
    package mutating func appendRawJSON(_ json: [UInt8]) {
        prepareValue()
        bytes.append(contentsOf: json)
    }

    /// ``appendRawJSON(_:)`` for bytes in memory (not generic, as for an array).
    package mutating func appendRawJSON(_ json: UnsafeBufferPointer<UInt8>) {
        prepareValue()
        bytes.append(contentsOf: json)
    }

    /// Appends the decimal digits of `value`.
    package static func appendDecimal(_ value: Int64, to bytes: inout [UInt8]) {
        var magnitude = value.magnitude
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        if magnitude < 10 {
            bytes.append(UInt8(truncatingIfNeeded: magnitude) &+ UInt8(ascii: "0"))
            return
        }
        // 20 digits hold UInt64.max.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var position = 20
            while magnitude > 0 {
                position -= 1
                let (quotient, remainder) = magnitude.quotientAndRemainder(dividingBy: 10)
                digits[position] = UInt8(truncatingIfNeeded: remainder) &+ UInt8(ascii: "0")
                magnitude = quotient
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[position..<20]))
        }
    }
}
