import EmulatorSupport

/// One message a client sends over the RTDB wire protocol v5, decoded from its JSON envelope.
///
/// ```swift
/// DatabaseWireMessage.decode(#"{"t":"d","d":{"r":3,"a":"q","b":{"p":"/rooms","h":""}}}"#)
/// // .request(id: 3, action: "q", body: {"p":"/rooms","h":""})
/// DatabaseWireMessage.decode(#"{"t":"c","d":{"t":"p","d":{}}}"#)   // .control(type: "p", data: {})
/// ```
enum DatabaseWireMessage: Equatable, Sendable {
    /// `{"t":"c","d":{"t":type,"d":data}}`: ping (`p`) and transport-upgrade messages.
    case control(type: String, data: JSONValue)
    /// `{"t":"d","d":{"r":id,"a":action,"b":body}}`: a request the server answers with `r`.
    case request(id: Int64, action: String, body: JSONValue)
    /// `{"t":"d","d":{"a":action,"b":body}}` with no `r`: a request that wants no answer.
    case notification(action: String, body: JSONValue)

    /// The message `text` holds, or nil when it is not a well-formed envelope.
    static func decode(_ text: String) -> DatabaseWireMessage? {
        guard let json = try? JSONReader.parse(text), case .object = json,
            case .string(let kind)? = json[member: "t"], let inner = json[member: "d"], case .object = inner
        else { return nil }
        switch kind {
        case "c":
            guard case .string(let type)? = inner[member: "t"] else { return nil }
            return .control(type: type, data: inner[member: "d"] ?? .null)
        case "d":
            guard case .string(let action)? = inner[member: "a"] else { return nil }
            let body = inner[member: "b"] ?? .object([])
            switch inner[member: "r"] {
            case .int(let id)?: return .request(id: id, action: action, body: body)
            case .double(let id)? where id == id.rounded() && abs(id) < 1e15:
                return .request(id: Int64(id), action: action, body: body)
            case nil, .null?: return .notification(action: action, body: body)
            default: return nil
            }
        default:
            return nil
        }
    }
}

extension DatabaseWireMessage {
    /// The request id `r` of a data message that ``decode(_:)`` refused (nesting past the
    /// parser's depth limit, a bad number deep in the body), so the request can be answered with
    /// an error instead of leaving the client waiting for its ack forever; nil when none is found.
    ///
    /// A flat scan, never recursive whatever the nesting: it tracks depth and skips strings, and
    /// takes the integer after the first `"r":` directly inside the envelope's `d` object (depth 2).
    ///
    /// ```swift
    /// DatabaseWireMessage.salvageRequestID(#"{"t":"d","d":{"r":7,"a":"p","b":{"d":[[[[…"#) // 7
    /// ```
    static func salvageRequestID(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        var depth = 0
        var i = 0
        var keyIsR = false
        while i < bytes.count {
            let byte = bytes[i]
            switch byte {
            case UInt8(ascii: "\""):
                let start = i + 1
                i += 1
                while i < bytes.count, bytes[i] != UInt8(ascii: "\"") {
                    i += bytes[i] == UInt8(ascii: "\\") ? 2 : 1
                }
                keyIsR = depth == 2 && i == start + 1 && bytes[start] == UInt8(ascii: "r")
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                keyIsR = false
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                keyIsR = false
            case UInt8(ascii: ":") where keyIsR:
                i += 1
                while i < bytes.count, bytes[i] == UInt8(ascii: " ") || bytes[i] == UInt8(ascii: "\t") { i += 1 }
                var value: Int64 = 0
                var digits = 0
                while i < bytes.count, digits < 16, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) {
                    value = value * 10 + Int64(bytes[i] - UInt8(ascii: "0"))
                    digits += 1
                    i += 1
                }
                return digits > 0 ? value : nil
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                break
            default:
                keyIsR = false
            }
            i += 1
        }
        return nil
    }
}
