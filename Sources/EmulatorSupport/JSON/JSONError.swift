/// A JSON syntax error with its position in the input.
///
/// `line` and `column` are 1-based. The column counts **bytes** of UTF-8 from the start of the
/// line, so a multi-byte character before the error advances it by more than one.
///
/// ```swift
/// do { _ = try JSONReader.parse("{\"a\": 1 \"b\": 2}") }
/// catch { print(error) } // line 1, column 9: expected ',' or '}' after object member
/// ```
package struct JSONError: Error, Sendable, CustomStringConvertible, Equatable {
    /// Byte offset of the error from the start of the input (0-based).
    package var offset: Int
    /// 1-based line number (lines end at `\n`).
    package var line: Int
    /// 1-based column, in bytes.
    package var column: Int
    /// What went wrong, e.g. `expected ':' after object key`.
    package var message: String

    package init(offset: Int, line: Int, column: Int, message: String) {
        self.offset = offset
        self.line = line
        self.column = column
        self.message = message
    }

    /// Builds an error for `offset` in `bytes`, computing line and column.
    package init(at offset: Int, in bytes: UnsafeBufferPointer<UInt8>, message: String) {
        var line = 1
        var lineStart = 0
        let end = min(offset, bytes.count)
        var index = 0
        while index < end {
            if bytes[index] == UInt8(ascii: "\n") {
                line += 1
                lineStart = index + 1
            }
            index += 1
        }
        self.init(offset: offset, line: line, column: offset - lineStart + 1, message: message)
    }

    package var description: String {
        "line \(line), column \(column): \(message)"
    }
}
