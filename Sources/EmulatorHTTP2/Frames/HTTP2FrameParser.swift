/// Splits a byte stream into frames. Feed bytes with ``append(_:)``, then call ``next()`` until it
/// returns nil. Frames longer than `maxFrameSize` are a FRAME_SIZE_ERROR.
///
/// ```swift
/// var parser = HTTP2FrameParser()
/// parser.append(bytes)
/// while let frame = try parser.next() { … }
/// ```
package struct HTTP2FrameParser: Sendable {
    private var buffer: [UInt8] = []
    private var start = 0
    /// Our SETTINGS_MAX_FRAME_SIZE: the largest payload the peer may send.
    package var maxFrameSize: Int

    package init(maxFrameSize: Int = HTTP2Frame.defaultMaxFrameSize) {
        self.maxFrameSize = maxFrameSize
    }

    package mutating func append(_ bytes: [UInt8]) {
        if start > 0, start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Bytes received but not yet parsed into a frame.
    package var bufferedCount: Int { buffer.count - start }

    /// Removes and returns `count` raw bytes (the connection preface), or nil if not all arrived.
    package mutating func take(_ count: Int) -> [UInt8]? {
        guard bufferedCount >= count else { return nil }
        let out = Array(buffer[start..<(start + count)])
        start += count
        return out
    }

    package mutating func next() throws(HTTP2ProtocolError) -> HTTP2Frame? {
        guard bufferedCount >= HTTP2Frame.headerLength else { return nil }
        let b = start
        let length = Int(buffer[b]) << 16 | Int(buffer[b + 1]) << 8 | Int(buffer[b + 2])
        if length > maxFrameSize {
            throw HTTP2ProtocolError(.frameSizeError, "frame of \(length) bytes exceeds the maximum frame size \(maxFrameSize)")
        }
        guard bufferedCount >= HTTP2Frame.headerLength + length else { return nil }
        let type = buffer[b + 3]
        let flags = buffer[b + 4]
        let stream = Self.uint32(buffer, b + 5) & 0x7FFF_FFFF
        let payload = Array(buffer[(b + 9)..<(b + 9 + length)])
        start += HTTP2Frame.headerLength + length
        if start > 65_536, start * 2 > buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
        return try Self.decode(type: type, flags: flags, stream: stream, payload: payload)
    }

    static func uint32(_ bytes: [UInt8], _ i: Int) -> UInt32 {
        UInt32(bytes[i]) << 24 | UInt32(bytes[i + 1]) << 16 | UInt32(bytes[i + 2]) << 8 | UInt32(bytes[i + 3])
    }

    /// Removes the Pad Length byte and the padding of a PADDED frame.
    static func unpad(_ payload: [UInt8], flags: UInt8, stream: UInt32) throws(HTTP2ProtocolError) -> ArraySlice<UInt8> {
        guard flags & HTTP2Frame.Flag.padded != 0 else { return payload[...] }
        guard let padLength = payload.first.map(Int.init), padLength < payload.count else {
            throw HTTP2ProtocolError(.protocolError, "padding is longer than the frame payload")
        }
        return payload[1..<(payload.count - padLength)]
    }

    static func decode(type: UInt8, flags: UInt8, stream: UInt32, payload: [UInt8]) throws(HTTP2ProtocolError) -> HTTP2Frame {
        guard let kind = HTTP2Frame.Kind(rawValue: type) else { return .unknown(type: type, stream: stream) }
        func requireStream() throws(HTTP2ProtocolError) {
            if stream == 0 { throw HTTP2ProtocolError(.protocolError, "\(kind) frame on stream 0") }
        }
        func requireConnection() throws(HTTP2ProtocolError) {
            if stream != 0 { throw HTTP2ProtocolError(.protocolError, "\(kind) frame on stream \(stream)") }
        }
        switch kind {
        case .data:
            try requireStream()
            // Unpadded (as nearly every frame is): the payload itself, not a copy of it.
            let body = flags & HTTP2Frame.Flag.padded == 0 ? payload : Array(try unpad(payload, flags: flags, stream: stream))
            return .data(stream: stream, payload: body, endStream: flags & HTTP2Frame.Flag.endStream != 0,
                         flowControlledLength: payload.count)
        case .headers:
            try requireStream()
            if flags & (HTTP2Frame.Flag.padded | HTTP2Frame.Flag.priority) == 0 {
                return .headers(stream: stream, block: payload, endStream: flags & HTTP2Frame.Flag.endStream != 0,
                                endHeaders: flags & HTTP2Frame.Flag.endHeaders != 0)
            }
            var body = try unpad(payload, flags: flags, stream: stream)
            if flags & HTTP2Frame.Flag.priority != 0 {
                guard body.count >= 5 else { throw HTTP2ProtocolError(.frameSizeError, "HEADERS priority fields truncated") }
                body = body.dropFirst(5)
            }
            return .headers(stream: stream, block: Array(body), endStream: flags & HTTP2Frame.Flag.endStream != 0,
                            endHeaders: flags & HTTP2Frame.Flag.endHeaders != 0)
        case .priority:
            try requireStream()
            guard payload.count == 5 else { throw HTTP2ProtocolError(.frameSizeError, stream: stream, "PRIORITY frame must be 5 bytes") }
            return .priority(stream: stream)
        case .rstStream:
            try requireStream()
            guard payload.count == 4 else { throw HTTP2ProtocolError(.frameSizeError, "RST_STREAM frame must be 4 bytes") }
            return .rstStream(stream: stream, code: HTTP2ErrorCode(uint32(payload, 0)))
        case .settings:
            try requireConnection()
            let ack = flags & HTTP2Frame.Flag.ack != 0
            if ack, !payload.isEmpty { throw HTTP2ProtocolError(.frameSizeError, "SETTINGS ACK with a payload") }
            guard payload.count % 6 == 0 else { throw HTTP2ProtocolError(.frameSizeError, "SETTINGS length is not a multiple of 6") }
            var settings: [HTTP2Setting] = []
            for i in stride(from: 0, to: payload.count, by: 6) {
                settings.append(HTTP2Setting(UInt16(payload[i]) << 8 | UInt16(payload[i + 1]), uint32(payload, i + 2)))
            }
            return .settings(ack: ack, settings)
        case .pushPromise:
            try requireStream()
            let body = try unpad(payload, flags: flags, stream: stream)
            guard body.count >= 4 else { throw HTTP2ProtocolError(.frameSizeError, "PUSH_PROMISE truncated") }
            let promised = uint32(Array(body.prefix(4)), 0) & 0x7FFF_FFFF
            return .pushPromise(stream: stream, promised: promised, block: Array(body.dropFirst(4)),
                                endHeaders: flags & HTTP2Frame.Flag.endHeaders != 0)
        case .ping:
            try requireConnection()
            guard payload.count == 8 else { throw HTTP2ProtocolError(.frameSizeError, "PING frame must be 8 bytes") }
            return .ping(ack: flags & HTTP2Frame.Flag.ack != 0, opaque: payload)
        case .goAway:
            try requireConnection()
            guard payload.count >= 8 else { throw HTTP2ProtocolError(.frameSizeError, "GOAWAY frame truncated") }
            return .goAway(lastStream: uint32(payload, 0) & 0x7FFF_FFFF, code: HTTP2ErrorCode(uint32(payload, 4)),
                           debug: Array(payload.dropFirst(8)))
        case .windowUpdate:
            guard payload.count == 4 else { throw HTTP2ProtocolError(.frameSizeError, "WINDOW_UPDATE frame must be 4 bytes") }
            return .windowUpdate(stream: stream, increment: uint32(payload, 0) & 0x7FFF_FFFF)
        case .continuation:
            try requireStream()
            return .continuation(stream: stream, block: payload, endHeaders: flags & HTTP2Frame.Flag.endHeaders != 0)
        }
    }
}
