/// Serializes responses: status line, header fields and body into one contiguous buffer, so the
/// transport can send each response with a single `write` (no Nagle/delayed-ACK stall).
///
/// The encoder owns framing: it drops handler-set `Content-Length`, `Transfer-Encoding` and
/// `Connection` fields and writes its own.
///
/// ```swift
/// var out: [UInt8] = []
/// HTTP1ResponseEncoder.encode(.text("hi"), context: .init(), into: &out)
/// // "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 2\r\n\r\nhi"
/// ```
package enum HTTP1ResponseEncoder {
    /// What the encoder needs to know about the request being answered.
    package struct Context: Sendable, Hashable {
        /// A HEAD request gets the headers of the response but no body.
        package var isHead: Bool
        /// 0 for HTTP/1.0 (streams are then close-delimited), 1 for HTTP/1.1.
        package var minorVersion: Int
        /// Whether the connection closes after this response (adds `Connection: close`).
        package var close: Bool

        package init(isHead: Bool = false, minorVersion: Int = 1, close: Bool = false) {
            self.isHead = isHead
            self.minorVersion = minorVersion
            self.close = close
        }
    }

    /// How the body of a streamed response is framed.
    package enum StreamFraming: Sendable, Hashable {
        /// HTTP/1.1 chunked transfer coding.
        case chunked
        /// HTTP/1.0: raw bytes, the end is the connection closing.
        case closeDelimited
        /// HEAD: no body at all.
        case none
    }

    /// Appends the complete response for a `.bytes` body, or the head for `.stream` / `.upgrade`.
    /// Returns the framing of a stream body (`nil` for other bodies).
    @discardableResult
    package static func encode(_ response: HTTPResponse, context: Context, into out: inout [UInt8]) -> StreamFraming? {
        if case .bytes(let body) = response.body {
            encodeWhole(response, body, context: context, into: &out)
            return nil
        }
        let status = response.status
        let isUpgrade: Bool
        if case .upgrade = response.body { isUpgrade = true } else { isUpgrade = false }
        appendStatusLine(status, into: &out)
        for field in response.headers {
            // Only these three names are the encoder's; their lengths tell most names apart.
            switch field.name.utf8.count {
            case 10 where !isUpgrade && HTTPHeaders.namesMatch(field.name, "Connection"): continue
            case 14 where HTTPHeaders.namesMatch(field.name, "Content-Length"): continue
            case 17 where HTTPHeaders.namesMatch(field.name, "Transfer-Encoding"): continue
            default: appendField(field.name, field.value, into: &out)
            }
        }
        let bodyless = status.code < 200 || status.code == 204 || status.code == 304
        switch response.body {
        case .bytes:
            return nil  // encoded whole above
        case .stream:
            let framing: StreamFraming
            if context.isHead || bodyless {
                framing = .none
                if context.close { out.append(contentsOf: "Connection: close\r\n".utf8) }
            } else if context.minorVersion == 0 {
                framing = .closeDelimited
                out.append(contentsOf: "Connection: close\r\n".utf8)
            } else {
                framing = .chunked
                out.append(contentsOf: "Transfer-Encoding: chunked\r\n".utf8)
                if context.close { out.append(contentsOf: "Connection: close\r\n".utf8) }
            }
            out.append(contentsOf: "\r\n".utf8)
            return framing
        case .upgrade:
            out.append(contentsOf: "\r\n".utf8)
            return nil
        case .deferred:
            // Never encoded: HTTP1Connection waits for the completed response. Defensive only.
            out.append(contentsOf: "Content-Length: 0\r\n\r\n".utf8)
            return nil
        }
    }

    /// ``encode(_:context:into:)`` for a complete body: the head is composed in temporary memory
    /// and copied into `out` at once (an array append per piece checks the array's uniqueness
    /// and capacity every time), then the body.
    private static func encodeWhole(_ response: HTTPResponse, _ body: [UInt8], context: Context, into out: inout [UInt8]) {
        let status = response.status
        let fields = response.headers.fields
        // Status line (at most 32 bytes and the reason), framing lines (at most 64) and fields.
        var capacity = 128 + status.reason.utf8.count
        for i in fields.indices { capacity += fields[i].name.utf8.count + fields[i].value.utf8.count + 4 }
        // Doubling when it grows: pipelined answers accumulate in one buffer.
        let needed = out.count + capacity + body.count
        if out.capacity < needed { out.reserveCapacity(max(needed, out.capacity * 2)) }
        let bodyless = status.code < 200 || status.code == 204 || status.code == 304
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var head = HeadBytes(buffer: buffer)
            // `==` on a small string compares its bits (`utf8Equal` walks the view).
            if status.code == 200, status.reason == "OK" {
                head.append("HTTP/1.1 200 OK\r\n")
            } else {
                head.append("HTTP/1.1 ")
                head.appendDecimal(status.code)
                head.append(" ")
                head.append(status.reason)
                head.append("\r\n")
            }
            for i in fields.indices {
                let name = fields[i].name
                // Only these three names are the encoder's; their lengths tell most names apart.
                switch name.utf8.count {
                case 10 where HTTPHeaders.namesMatch(name, "Connection"): continue
                case 14 where HTTPHeaders.namesMatch(name, "Content-Length"): continue
                case 17 where HTTPHeaders.namesMatch(name, "Transfer-Encoding"): continue
                default: break
                }
                head.append(name)
                head.append(": ")
                // Never let a handler's value split the head: CR and LF become spaces.
                let start = head.count
                head.append(fields[i].value)
                for k in start..<head.count where buffer[k] == .cr || buffer[k] == .lf { buffer[k] = .space }
                head.append("\r\n")
            }
            if !bodyless {
                head.append("Content-Length: ")
                head.appendDecimal(body.count)
                head.append("\r\n")
            }
            if context.close {
                head.append("Connection: close\r\n")
            } else if context.minorVersion == 0 {
                // An HTTP/1.0 client keeps the connection only when told so.
                head.append("Connection: keep-alive\r\n")
            }
            head.append("\r\n")
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<head.count]))
        }
        if !context.isHead, !bodyless { out.append(contentsOf: body) }
    }

    /// A response head written into memory sized for it by the caller.
    private struct HeadBytes {
        let buffer: UnsafeMutableBufferPointer<UInt8>
        var count = 0

        mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard let source = bytes.baseAddress, let base = buffer.baseAddress else { return }
            (base + count).update(from: source, count: bytes.count)
            count += bytes.count
        }

        mutating func append(_ text: StaticString) {
            append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }

        mutating func append(_ text: String) {
            if text.utf8.withContiguousStorageIfAvailable({ append($0) }) == nil {
                for byte in text.utf8 {
                    buffer[count] = byte
                    count += 1
                }
            }
        }

        mutating func appendDecimal(_ value: Int) {
            var digits: [UInt8] = []
            if value < 0 || value >= 1_000_000 {
                HTTP1ResponseEncoder.appendDecimal(value, into: &digits)
                digits.withUnsafeBufferPointer { append($0) }
                return
            }
            // Up to six digits, written in place.
            var n = value
            var width = 1
            var power = 10
            while power <= n {
                width += 1
                power *= 10
            }
            var k = count + width
            repeat {
                k -= 1
                buffer[k] = UInt8(ascii: "0") + UInt8(n % 10)
                n /= 10
            } while n > 0
            count += width
        }
    }

    /// Appends one piece of a streamed body with the given framing. Empty pieces are skipped
    /// (an empty chunk would end a chunked body).
    package static func appendBodyPiece(_ bytes: [UInt8], framing: StreamFraming, into out: inout [UInt8]) {
        guard !bytes.isEmpty else { return }
        switch framing {
        case .chunked:
            appendHex(bytes.count, into: &out)
            out.append(contentsOf: "\r\n".utf8)
            out.append(contentsOf: bytes)
            out.append(contentsOf: "\r\n".utf8)
        case .closeDelimited:
            out.append(contentsOf: bytes)
        case .none:
            break
        }
    }

    /// Appends the end of a streamed body (`0\r\n\r\n` when chunked).
    package static func appendBodyEnd(framing: StreamFraming, into out: inout [UInt8]) {
        if framing == .chunked { out.append(contentsOf: "0\r\n\r\n".utf8) }
    }

    /// `HTTP/1.1 100 Continue\r\n\r\n`.
    package static let continueBytes: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// A minimal error response that closes the connection (used for parse failures).
    package static func errorResponse(_ status: HTTPStatus, into out: inout [UInt8]) {
        encode(HTTPResponse.text(status.reason, status: status), context: Context(close: true), into: &out)
    }

    // MARK: - Pieces

    private static func appendStatusLine(_ status: HTTPStatus, into out: inout [UInt8]) {
        if status.code == 200, utf8Equal(status.reason, "OK") {
            append("HTTP/1.1 200 OK\r\n", into: &out)
            return
        }
        append("HTTP/1.1 ", into: &out)
        appendDecimal(status.code, into: &out)
        out.append(.space)
        append(status.reason, into: &out)
        append("\r\n", into: &out)
    }

    private static func appendField(_ name: String, _ value: String, into out: inout [UInt8]) {
        append(name, into: &out)
        append(": ", into: &out)
        // Never let a handler's value split the head: CR and LF become spaces. Copied whole, then
        // the copy is checked (a handler may pass on a value that came from a request).
        let start = out.count
        append(value, into: &out)
        out.withUnsafeMutableBufferPointer { bytes in
            for i in start..<bytes.count where bytes[i] == .cr || bytes[i] == .lf { bytes[i] = .space }
        }
        append("\r\n", into: &out)
    }

    /// Appends a literal's bytes (a copy of its memory, not a walk of a string view).
    private static func append(_ text: StaticString, into out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends `text`'s UTF-8 bytes, copied from its contiguous storage when it has some.
    private static func append(_ text: String, into out: inout [UInt8]) {
        if text.utf8.withContiguousStorageIfAvailable({ out.append(contentsOf: $0) }) == nil {
            out.append(contentsOf: text.utf8)
        }
    }

    /// Whether `text` is exactly `literal`'s bytes.
    private static func utf8Equal(_ text: String, _ literal: StaticString) -> Bool {
        let bytes = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        return text.utf8.withContiguousStorageIfAvailable { $0.elementsEqual(bytes) } ?? text.utf8.elementsEqual(bytes)
    }

    static func appendDecimal(_ value: Int, into out: inout [UInt8]) {
        if value == 0 {
            out.append(UInt8(ascii: "0"))
            return
        }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var n = value.magnitude
        var count = 0
        withUnsafeMutableBytes(of: &digits) { raw in
            while n > 0 {
                raw[count] = UInt8(ascii: "0") + UInt8(n % 10)
                n /= 10
                count += 1
            }
            if value < 0 { out.append(UInt8(ascii: "-")) }
            for i in stride(from: count - 1, through: 0, by: -1) { out.append(raw[i]) }
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    static func appendHex(_ value: Int, into out: inout [UInt8]) {
        var shift = (Int.bitWidth - value.leadingZeroBitCount + 3) / 4 * 4 - 4
        if shift < 0 { shift = 0 }
        while shift >= 0 {
            out.append(hexDigits[(value >> shift) & 0xF])
            shift -= 4
        }
    }
}
