import Glibc

/// Field names and values most requests carry, kept as literals: a parsed head takes these
/// `String`s instead of making new ones from its bytes (each a UTF-8 validation and a copy, and
/// an allocation past 15 bytes). Only exact byte matches are taken, so a request's fields read
/// exactly as sent.
enum HTTPCommonFieldText {
    /// The literal spelled exactly as `bytes`, or nil when none is.
    static func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        switch bytes.count {
        case 3:
            if same(bytes, "*/*") { return "*/*" }
        case 4:
            if same(bytes, "Host") { return "Host" }
            if same(bytes, "host") { return "host" }
        case 6:
            if same(bytes, "Accept") { return "Accept" }
            if same(bytes, "accept") { return "accept" }
            if same(bytes, "Origin") { return "Origin" }
            if same(bytes, "origin") { return "origin" }
        case 10:
            if same(bytes, "Connection") { return "Connection" }
            if same(bytes, "connection") { return "connection" }
            if same(bytes, "User-Agent") { return "User-Agent" }
            if same(bytes, "user-agent") { return "user-agent" }
            if same(bytes, "keep-alive") { return "keep-alive" }
        case 12:
            if same(bytes, "Content-Type") { return "Content-Type" }
            if same(bytes, "content-type") { return "content-type" }
            if same(bytes, "Bearer owner") { return "Bearer owner" }
        case 13:
            if same(bytes, "Authorization") { return "Authorization" }
            if same(bytes, "authorization") { return "authorization" }
        case 14:
            if same(bytes, "Content-Length") { return "Content-Length" }
            if same(bytes, "content-length") { return "content-length" }
        case 15:
            if same(bytes, "Accept-Encoding") { return "Accept-Encoding" }
            if same(bytes, "accept-encoding") { return "accept-encoding" }
        case 16:
            if same(bytes, "application/json") { return "application/json" }
        case 31:
            if same(bytes, "application/json; charset=utf-8") { return "application/json; charset=utf-8" }
        default:
            break
        }
        return nil
    }

    /// Whether `bytes` (as many as `literal` has) are `literal`'s.
    @inline(__always)
    private static func same(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        return memcmp(base, literal.utf8Start, literal.utf8CodeUnitCount) == 0
    }
}
