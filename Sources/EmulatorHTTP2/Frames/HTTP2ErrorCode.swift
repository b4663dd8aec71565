/// An HTTP/2 error code (RFC 7540 §7), as sent in RST_STREAM and GOAWAY. Extensible: unknown codes
/// received from a peer survive.
package struct HTTP2ErrorCode: Sendable, Hashable, CustomStringConvertible {
    package var rawValue: UInt32
    package init(_ rawValue: UInt32) { self.rawValue = rawValue }

    package static let noError = Self(0x0)
    package static let protocolError = Self(0x1)
    package static let internalError = Self(0x2)
    package static let flowControlError = Self(0x3)
    package static let settingsTimeout = Self(0x4)
    package static let streamClosed = Self(0x5)
    package static let frameSizeError = Self(0x6)
    package static let refusedStream = Self(0x7)
    package static let cancel = Self(0x8)
    package static let compressionError = Self(0x9)
    package static let connectError = Self(0xA)
    package static let enhanceYourCalm = Self(0xB)

    package var description: String { "0x\(String(rawValue, radix: 16))" }
}

/// A protocol violation: a connection error (`stream == 0`, answered with GOAWAY) or a stream
/// error (answered with RST_STREAM on `stream`).
package struct HTTP2ProtocolError: Error, Sendable, Equatable {
    package var code: HTTP2ErrorCode
    package var stream: UInt32
    package var reason: String

    package init(_ code: HTTP2ErrorCode, stream: UInt32 = 0, _ reason: String) {
        self.code = code
        self.stream = stream
        self.reason = reason
    }

    package var isConnectionError: Bool { stream == 0 }
}
