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
        let status = response.status
        let bodyless = status.code < 200 || status.code == 204 || status.code == 304
        switch response.body {
        case .bytes(let body):
            var lines = FramingLines(contentLength: bodyless ? nil : body.count)
            if context.close {
                lines.connection = "close"
            } else if context.minorVersion == 0 {
                // An HTTP/1.0 client keeps the connection only when told so.
                lines.connection = "keep-alive"
            }
            appendHead(response, lines, keepingConnectionField: false, reservingAfter: body.count, into: &out)
            if !context.isHead, !bodyless { out.append(contentsOf: body) }
            return nil
        case .stream:
            let framing: StreamFraming
            var lines = FramingLines()
            if context.isHead || bodyless {
                framing = .none
                if context.close { lines.connection = "close" }
            } else if context.minorVersion == 0 {
                framing = .closeDelimited
                lines.connection = "close"
            } else {
                framing = .chunked
                lines.chunked = true
                if context.close { lines.connection = "close" }
            }
            appendHead(response, lines, keepingConnectionField: false, into: &out)
            return framing
        case .upgrade:
            // The handler's `Connection: Upgrade` is the upgrade's own.
            appendHead(response, FramingLines(), keepingConnectionField: true, into: &out)
            return nil
        case .deferred:
            // Never encoded: HTTP1Connection waits for the completed response. Defensive only.
            appendHead(response, FramingLines(contentLength: 0), keepingConnectionField: false, into: &out)
            return nil
        }
    }

    /// The lines the encoder writes after the handler's fields.
    private struct FramingLines {
        var contentLength: Int?
        var chunked = false
        var connection: StaticString?
    }

    /// Appends the status line, the handler's fields (less the three the encoder owns: `Connection`
    /// unless `keepingConnectionField`, `Content-Length`, `Transfer-Encoding`), `lines` and the
    /// blank line. The head is composed in temporary memory and copied into `out` at once (an array
    /// append per piece checks the array's uniqueness and capacity every time); `out` first makes
    /// room for it and for `reservingAfter` more bytes (the body that follows).
    private static func appendHead(
        _ response: HTTPResponse, _ lines: FramingLines, keepingConnectionField: Bool, reservingAfter: Int = 0,
        into out: inout [UInt8]
    ) {
        let status = response.status
        let fields = response.headers.fields
        // The status line (at most 32 bytes and the reason), the framing lines (at most 96) and
        // the fields.
        var capacity = 128 + status.reason.utf8.count
        for i in fields.indices { capacity += fields[i].name.utf8.count + fields[i].value.utf8.count + 4 }
        // Doubling when it grows: pipelined answers accumulate in one buffer.
        let needed = out.count + capacity + reservingAfter
        if out.capacity < needed { out.reserveCapacity(max(needed, out.capacity * 2)) }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var head = HeadBytes(buffer: buffer)
            // `==` on a small string compares its bits.
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
                case 10 where !keepingConnectionField && HTTPHeaders.namesMatch(name, "Connection"): continue
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
            if let length = lines.contentLength {
                head.append("Content-Length: ")
                head.appendDecimal(length)
                head.append("\r\n")
            }
            if lines.chunked { head.append("Transfer-Encoding: chunked\r\n") }
            if let connection = lines.connection {
                head.append("Connection: ")
                head.append(connection)
                head.append("\r\n")
            }
            head.append("\r\n")
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<head.count]))
        }
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

    // MARK: - Numbers

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
