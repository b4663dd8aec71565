/// A gRPC status: a `google.rpc.Code` number and a message, sent as the `grpc-status` and
/// `grpc-message` trailers.
///
/// ```swift
/// GRPCStatus(.unimplemented, "Method not found: /pkg.Service/Method")
/// ```
package struct GRPCStatus: Error, Sendable, Equatable {
    package var code: Int32
    package var message: String

    package init(_ code: Int32, _ message: String = "") {
        self.code = code
        self.message = message
    }

    package static let ok = GRPCStatus(0)

    package enum Code {
        package static let ok: Int32 = 0
        package static let cancelled: Int32 = 1
        package static let unknown: Int32 = 2
        package static let invalidArgument: Int32 = 3
        package static let notFound: Int32 = 5
        package static let resourceExhausted: Int32 = 8
        package static let unimplemented: Int32 = 12
        package static let `internal`: Int32 = 13
        package static let unavailable: Int32 = 14
    }

    /// The trailers that carry this status.
    package var trailers: [HeaderField] {
        var out = [HeaderField("grpc-status", String(code))]
        if !message.isEmpty { out.append(HeaderField("grpc-message", Self.percentEncode(message))) }
        return out
    }

    /// Percent-encodes the bytes of `message` outside printable ASCII, and `%` itself, as the
    /// gRPC HTTP/2 protocol requires for `grpc-message`.
    package static func percentEncode(_ message: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for b in message.utf8 {
            if b >= 0x20, b <= 0x7E, b != 0x25 {
                out.append(b)
            } else {
                out.append(0x25)
                out.append(hex[Int(b >> 4)])
                out.append(hex[Int(b & 0xF)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
