/// A strict RFC 8259 JSON parser over UTF-8 bytes.
///
/// - Numbers: a literal without fraction or exponent that fits `Int64` becomes `.int`; any other
///   number becomes `.double` (so `-0` is `.double(-0.0)` and `18446744073709551616` is a double).
///   A literal whose magnitude overflows `Double` (e.g. `1e400`) is rejected as out of range;
///   underflow rounds to zero.
/// - Strings must be valid UTF-8 without raw control characters; `\u` escapes must form valid
///   scalars (surrogate pairs are joined, lone surrogates are rejected).
/// - Objects keep duplicate member names, in source order (`JSONValue[member:]` finds the first),
///   unless `rejectingDuplicateKeys` is set: then a repeated name in one object is an error
///   (request bodies, where a second value would otherwise be dropped silently).
/// - A leading UTF-8 byte order mark is skipped. Trailing bytes other than whitespace are an error.
/// - Nesting deeper than `maxDepth` arrays/objects is an error, so hostile input cannot overflow
///   the stack. The parser recurses once per level: the default 512 levels fit in a 256 KiB thread
///   stack in release builds, but debug builds need ~2–4 KiB per level (512 levels failed in a
///   1 MiB stack, passed in 8 MiB), so keep `maxDepth` modest on small-stack threads.
/// - With `allowComments: true`, `// …` line comments and `/* … */` block comments count as
///   whitespace (used for RTDB rules files). Everything else stays strict.
///
/// ```swift
/// let value = try JSONReader.parse(#"{"a": [1, 2.5, "x"]}"#)
/// value[member: "a"] // .array([.int(1), .double(2.5), .string("x")])
/// ```
package enum JSONReader {
    /// Parses one JSON document from `bytes`.
    ///
    /// - Parameters:
    ///   - maxDepth: the deepest nesting of arrays and objects accepted.
    ///   - allowComments: treat `//` and `/* */` comments as whitespace (RTDB rules files).
    ///   - rejectingDuplicateKeys: a name repeated within one object is an error
    ///     (`duplicate key "a"`, at the second occurrence).
    /// - Throws: `JSONError` with the 1-based line and byte column of the first problem.
    package static func parse(
        _ bytes: [UInt8], maxDepth: Int = 512, allowComments: Bool = false, rejectingDuplicateKeys: Bool = false
    ) throws(JSONError) -> JSONValue {
        let result: Result<JSONValue, JSONError> = bytes.withUnsafeBufferPointer { buffer in
            parseResult(buffer, maxDepth: maxDepth, allowComments: allowComments, rejectingDuplicateKeys: rejectingDuplicateKeys)
        }
        return try result.get()
    }

    /// Parses one JSON document from a slice (e.g. an HTTP body inside a larger buffer).
    /// Offsets in errors count from the start of the slice.
    package static func parse(
        _ bytes: ArraySlice<UInt8>, maxDepth: Int = 512, allowComments: Bool = false
    ) throws(JSONError) -> JSONValue {
        let result: Result<JSONValue, JSONError> = bytes.withUnsafeBufferPointer { buffer in
            parseResult(buffer, maxDepth: maxDepth, allowComments: allowComments)
        }
        return try result.get()
    }

    /// Parses one JSON document from the UTF-8 of `text`.
    package static func parse(
        _ text: String, maxDepth: Int = 512, allowComments: Bool = false
    ) throws(JSONError) -> JSONValue {
        var text = text
        let result: Result<JSONValue, JSONError> = text.withUTF8 { buffer in
            parseResult(buffer, maxDepth: maxDepth, allowComments: allowComments)
        }
        return try result.get()
    }

    /// Parses one JSON document from a raw buffer (valid for the duration of the call).
    package static func parse(
        _ buffer: UnsafeBufferPointer<UInt8>, maxDepth: Int = 512, allowComments: Bool = false
    ) throws(JSONError) -> JSONValue {
        try parseResult(buffer, maxDepth: maxDepth, allowComments: allowComments).get()
    }

    private static func parseResult(
        _ buffer: UnsafeBufferPointer<UInt8>, maxDepth: Int, allowComments: Bool, rejectingDuplicateKeys: Bool = false
    ) -> Result<JSONValue, JSONError> {
        var parser = JSONParser(bytes: buffer, maxDepth: maxDepth, allowComments: allowComments)
        parser.rejectsDuplicateKeys = rejectingDuplicateKeys
        return Result { () throws(JSONError) -> JSONValue in try parser.parseDocument() }
    }
}
