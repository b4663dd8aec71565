/// One HTTP/2 frame (RFC 7540 §6), with padding and priority fields already removed.
package enum HTTP2Frame: Sendable, Equatable {
    /// `flowControlledLength` is the whole payload length, padding included, which is what
    /// flow control counts.
    case data(stream: UInt32, payload: [UInt8], endStream: Bool, flowControlledLength: Int)
    case headers(stream: UInt32, block: [UInt8], endStream: Bool, endHeaders: Bool)
    case priority(stream: UInt32)
    case rstStream(stream: UInt32, code: HTTP2ErrorCode)
    case settings(ack: Bool, [HTTP2Setting])
    case pushPromise(stream: UInt32, promised: UInt32, block: [UInt8], endHeaders: Bool)
    case ping(ack: Bool, opaque: [UInt8])
    case goAway(lastStream: UInt32, code: HTTP2ErrorCode, debug: [UInt8])
    case windowUpdate(stream: UInt32, increment: UInt32)
    case continuation(stream: UInt32, block: [UInt8], endHeaders: Bool)
    /// A frame of an unknown type: ignored (RFC 7540 §4.1).
    case unknown(type: UInt8, stream: UInt32)

    /// The frame type codes.
    package enum Kind: UInt8, Sendable {
        case data = 0, headers, priority, rstStream, settings, pushPromise, ping, goAway, windowUpdate, continuation
    }

    package enum Flag {
        package static let endStream: UInt8 = 0x1
        package static let ack: UInt8 = 0x1
        package static let endHeaders: UInt8 = 0x4
        package static let padded: UInt8 = 0x8
        package static let priority: UInt8 = 0x20
    }

    /// The 9-byte frame header length.
    package static let headerLength = 9
    /// The smallest SETTINGS_MAX_FRAME_SIZE and the default (2^14).
    package static let defaultMaxFrameSize = 16_384
}

/// One SETTINGS parameter.
package struct HTTP2Setting: Sendable, Equatable {
    package var identifier: UInt16
    package var value: UInt32

    package init(_ identifier: UInt16, _ value: UInt32) {
        self.identifier = identifier
        self.value = value
    }

    package static let headerTableSize: UInt16 = 0x1
    package static let enablePush: UInt16 = 0x2
    package static let maxConcurrentStreams: UInt16 = 0x3
    package static let initialWindowSize: UInt16 = 0x4
    package static let maxFrameSize: UInt16 = 0x5
    package static let maxHeaderListSize: UInt16 = 0x6
}
