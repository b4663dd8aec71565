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
        appendStatusLine(status, into: &out)
        let isUpgrade: Bool
        if case .upgrade = response.body { isUpgrade = true } else { isUpgrade = false }
        for field in response.headers {
            if HTTPHeaders.namesMatch(field.name, "Content-Length") || HTTPHeaders.namesMatch(field.name, "Transfer-Encoding") {
                continue
            }
            if !isUpgrade, HTTPHeaders.namesMatch(field.name, "Connection") { continue }
            appendField(field.name, field.value, into: &out)
        }
        let bodyless = status.code < 200 || status.code == 204 || status.code == 304
        switch response.body {
        case .bytes(let body):
            if !bodyless {
                out.append(contentsOf: "Content-Length: ".utf8)
                appendDecimal(body.count, into: &out)
                out.append(contentsOf: "\r\n".utf8)
            }
            if context.close {
                out.append(contentsOf: "Connection: close\r\n".utf8)
            } else if context.minorVersion == 0 {
                // An HTTP/1.0 client keeps the connection only when told so.
                out.append(contentsOf: "Connection: keep-alive\r\n".utf8)
            }
            out.append(contentsOf: "\r\n".utf8)
            if !context.isHead, !bodyless { out.append(contentsOf: body) }
            return nil
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
        out.append(contentsOf: "HTTP/1.1 ".utf8)
        appendDecimal(status.code, into: &out)
        out.append(.space)
        out.append(contentsOf: status.reason.utf8)
        out.append(contentsOf: "\r\n".utf8)
    }

    private static func appendField(_ name: String, _ value: String, into out: inout [UInt8]) {
        out.append(contentsOf: name.utf8)
        out.append(contentsOf: ": ".utf8)
        // Never let a handler's value split the head: CR and LF become spaces (copied whole when
        // there are none, the usual case).
        if value.utf8.contains(where: { $0 == .cr || $0 == .lf }) {
            for byte in value.utf8 { out.append(byte == .cr || byte == .lf ? .space : byte) }
        } else {
            out.append(contentsOf: value.utf8)
        }
        out.append(contentsOf: "\r\n".utf8)
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
