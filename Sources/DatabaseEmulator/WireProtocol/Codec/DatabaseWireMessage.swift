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
