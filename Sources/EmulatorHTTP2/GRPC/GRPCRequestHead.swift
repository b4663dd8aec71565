/// The validated request headers of a gRPC call.
struct GRPCRequestHead: Sendable {
    var path: String
    var metadata: [HeaderField]
    var timeoutNanoseconds: Int64?

    /// Why a stream's headers are not a gRPC request: the HTTP status to answer with.
    struct Rejection: Error {
        var status: String
        var grpc: GRPCStatus?
    }

    init(_ fields: [HeaderField]) throws(Rejection) {
        guard fields.first(":method") == "POST" else {
            throw Rejection(status: "405", grpc: GRPCStatus(GRPCStatus.Code.internal, "gRPC requires method POST"))
        }
        guard let path = fields.first(":path"), path.hasPrefix("/") else {
            throw Rejection(status: "400", grpc: GRPCStatus(GRPCStatus.Code.internal, "missing :path"))
        }
        guard let type = fields.first("content-type"), type.hasPrefix("application/grpc") else {
            throw Rejection(status: "415", grpc: nil)
        }
        if let encoding = fields.first("grpc-encoding"), encoding != "identity" {
            throw Rejection(status: "200", grpc: GRPCStatus(GRPCStatus.Code.unimplemented, "Unsupported grpc-encoding \(encoding); only identity is supported."))
        }
        self.path = path
        self.metadata = fields.filter { !$0.name.hasPrefix(":") }
        self.timeoutNanoseconds = fields.first("grpc-timeout").flatMap(Self.parseTimeout)
    }

    /// `grpc-timeout`: up to 8 digits and a unit (H, M, S, m, u, n).
    static func parseTimeout(_ s: String) -> Int64? {
        let bytes = Array(s.utf8)
        guard bytes.count >= 2, bytes.count <= 9, let unit = bytes.last else { return nil }
        var value: Int64 = 0
        for b in bytes.dropLast() {
            guard b >= 0x30, b <= 0x39 else { return nil }
            value = value * 10 + Int64(b - 0x30)
        }
        let scale: Int64
        switch unit {
        case UInt8(ascii: "H"): scale = 3_600_000_000_000
        case UInt8(ascii: "M"): scale = 60_000_000_000
        case UInt8(ascii: "S"): scale = 1_000_000_000
        case UInt8(ascii: "m"): scale = 1_000_000
        case UInt8(ascii: "u"): scale = 1_000
        case UInt8(ascii: "n"): scale = 1
        default: return nil
        }
        let (product, overflow) = value.multipliedReportingOverflow(by: scale)
        return overflow ? Int64.max : product
    }
}
