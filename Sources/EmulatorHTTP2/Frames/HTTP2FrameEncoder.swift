/// Serialises frames (RFC 7540 §4.1). Callers split payloads to the peer's maximum frame size;
/// ``headerFrames(stream:block:endStream:maxFrameSize:)`` does so for header blocks.
package enum HTTP2FrameEncoder {
    package static func frame(type: UInt8, flags: UInt8, stream: UInt32, payload: some Collection<UInt8>, into out: inout [UInt8]) {
        frameHeader(type: type, flags: flags, stream: stream, length: payload.count, into: &out)
        out.append(contentsOf: payload)
    }

    /// The 9-byte frame header of a payload of `length` bytes, which the caller appends next.
    static func frameHeader(type: UInt8, flags: UInt8, stream: UInt32, length n: Int, into out: inout [UInt8]) {
        out.append(UInt8(truncatingIfNeeded: n >> 16))
        out.append(UInt8(truncatingIfNeeded: n >> 8))
        out.append(UInt8(truncatingIfNeeded: n))
        out.append(type)
        out.append(flags)
        appendUInt32(stream & 0x7FFF_FFFF, to: &out)
    }

    static func appendUInt32(_ v: UInt32, to out: inout [UInt8]) {
        out.append(UInt8(truncatingIfNeeded: v >> 24))
        out.append(UInt8(truncatingIfNeeded: v >> 16))
        out.append(UInt8(truncatingIfNeeded: v >> 8))
        out.append(UInt8(truncatingIfNeeded: v))
    }

    /// Encodes one frame; `padding` adds a Pad Length byte and that many zero bytes to DATA and HEADERS.
    package static func encode(_ f: HTTP2Frame, padding: Int? = nil) -> [UInt8] {
        var out: [UInt8] = []
        func padded(_ body: [UInt8]) -> (UInt8, [UInt8]) {
            guard let padding else { return (0, body) }
            return (HTTP2Frame.Flag.padded, [UInt8(clamping: padding)] + body + [UInt8](repeating: 0, count: padding))
        }
        switch f {
        case .data(let stream, let payload, let endStream, _):
            let (flag, body) = padded(payload)
            Self.frame(type: 0, flags: flag | (endStream ? HTTP2Frame.Flag.endStream : 0), stream: stream, payload: body, into: &out)
        case .headers(let stream, let block, let endStream, let endHeaders):
            let (flag, body) = padded(block)
            let flags = flag | (endStream ? HTTP2Frame.Flag.endStream : 0) | (endHeaders ? HTTP2Frame.Flag.endHeaders : 0)
            Self.frame(type: 1, flags: flags, stream: stream, payload: body, into: &out)
        case .priority(let stream):
            Self.frame(type: 2, flags: 0, stream: stream, payload: [0, 0, 0, 0, 16], into: &out)
        case .rstStream(let stream, let code):
            var p: [UInt8] = []
            appendUInt32(code.rawValue, to: &p)
            Self.frame(type: 3, flags: 0, stream: stream, payload: p, into: &out)
        case .settings(let ack, let settings):
            var p: [UInt8] = []
            for s in settings {
                p.append(UInt8(s.identifier >> 8))
                p.append(UInt8(truncatingIfNeeded: s.identifier))
                appendUInt32(s.value, to: &p)
            }
            Self.frame(type: 4, flags: ack ? HTTP2Frame.Flag.ack : 0, stream: 0, payload: p, into: &out)
        case .pushPromise(let stream, let promised, let block, let endHeaders):
            var p: [UInt8] = []
            appendUInt32(promised, to: &p)
            p.append(contentsOf: block)
            Self.frame(type: 5, flags: endHeaders ? HTTP2Frame.Flag.endHeaders : 0, stream: stream, payload: p, into: &out)
        case .ping(let ack, let opaque):
            Self.frame(type: 6, flags: ack ? HTTP2Frame.Flag.ack : 0, stream: 0, payload: opaque, into: &out)
        case .goAway(let lastStream, let code, let debug):
            var p: [UInt8] = []
            appendUInt32(lastStream, to: &p)
            appendUInt32(code.rawValue, to: &p)
            p.append(contentsOf: debug)
            Self.frame(type: 7, flags: 0, stream: 0, payload: p, into: &out)
        case .windowUpdate(let stream, let increment):
            var p: [UInt8] = []
            appendUInt32(increment, to: &p)
            Self.frame(type: 8, flags: 0, stream: stream, payload: p, into: &out)
        case .continuation(let stream, let block, let endHeaders):
            Self.frame(type: 9, flags: endHeaders ? HTTP2Frame.Flag.endHeaders : 0, stream: stream, payload: block, into: &out)
        case .unknown(let type, let stream):
            Self.frame(type: type, flags: 0, stream: stream, payload: [UInt8](), into: &out)
        }
        return out
    }

    /// A HEADERS frame followed by as many CONTINUATION frames as `block` needs.
    package static func headerFrames(stream: UInt32, block: [UInt8], endStream: Bool, maxFrameSize: Int, into out: inout [UInt8]) {
        if block.count <= maxFrameSize {
            // One frame (every response block this server makes): no slicing.
            let flags = HTTP2Frame.Flag.endHeaders | (endStream ? HTTP2Frame.Flag.endStream : 0)
            frameHeader(type: 1, flags: flags, stream: stream, length: block.count, into: &out)
            out.append(contentsOf: block)
            return
        }
        var rest = block[...]
        let first = rest.prefix(maxFrameSize)
        rest = rest.dropFirst(first.count)
        var flags: UInt8 = endStream ? HTTP2Frame.Flag.endStream : 0
        if rest.isEmpty { flags |= HTTP2Frame.Flag.endHeaders }
        frame(type: 1, flags: flags, stream: stream, payload: first, into: &out)
        while !rest.isEmpty {
            let chunk = rest.prefix(maxFrameSize)
            rest = rest.dropFirst(chunk.count)
            Self.frame(type: 9, flags: rest.isEmpty ? HTTP2Frame.Flag.endHeaders : 0, stream: stream, payload: chunk, into: &out)
        }
    }
}
