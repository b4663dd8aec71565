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

/// What the server sends: the hello, pongs, request answers and pushes, each encoded as one
/// compact JSON message (`bytes`), before framing.
enum DatabaseWireReply: Equatable, Sendable {
    /// `{"t":"c","d":{"t":"h","d":{"ts":…,"v":"5","h":host,"s":session}}}`.
    case hello(timestamp: Int64, host: String, session: String)
    /// `{"t":"c","d":{"t":"o","d":{}}}`: the answer to a ping.
    case pong
    /// `{"t":"c","d":{"t":"r","d":host}}`: reconnect to `host`.
    case reset(host: String)
    /// `{"t":"c","d":{"t":"s","d":reason}}`: shut down, do not reconnect.
    case shutdown(reason: String)
    /// `{"t":"d","d":{"r":id,"b":{"s":status,"d":data}}}`.
    case response(id: Int64, status: String, data: JSONValue)
    /// `{"t":"d","d":{"a":action,"b":body}}`: `d`/`m` data, `c` listen revoked, `ac` auth revoked.
    case push(action: String, body: JSONValue)

    /// The JSON envelope.
    var json: JSONValue {
        switch self {
        case .hello(let timestamp, let host, let session):
            return Self.control(
                "h",
                .object([
                    JSONMember("ts", .int(timestamp)), JSONMember("v", .string("5")), JSONMember("h", .string(host)),
                    JSONMember("s", .string(session)),
                ]))
        case .pong: return Self.control("o", .object([]))
        case .reset(let host): return Self.control("r", .string(host))
        case .shutdown(let reason): return Self.control("s", .string(reason))
        case .response(let id, let status, let data):
            return Self.data([
                JSONMember("r", .int(id)),
                JSONMember("b", .object([JSONMember("s", .string(status)), JSONMember("d", data)])),
            ])
        case .push(let action, let body):
            return Self.data([JSONMember("a", .string(action)), JSONMember("b", body)])
        }
    }

    /// Compact UTF-8 JSON, one message.
    var bytes: [UInt8] { JSONWriter.encode(json) }

    /// `{"s":"ok","d":data}` for request `id`.
    static func ok(_ id: Int64, _ data: JSONValue = .string("")) -> DatabaseWireReply {
        .response(id: id, status: "ok", data: data)
    }

    /// A data push: `{"p":path,"d":data[,"t":tag]}` with `action` `d` (overwrite) or `m` (merge).
    static func data(_ action: String, path: String, data: JSONValue, tag: Int64?) -> DatabaseWireReply {
        var body = [JSONMember("p", .string(path)), JSONMember("d", data)]
        if let tag { body.append(JSONMember("t", .int(tag))) }
        return .push(action: action, body: .object(body))
    }

    private static func control(_ type: String, _ data: JSONValue) -> JSONValue {
        .object([
            JSONMember("t", .string("c")), JSONMember("d", .object([JSONMember("t", .string(type)), JSONMember("d", data)])),
        ])
    }

    private static func data(_ members: [JSONMember]) -> JSONValue {
        .object([JSONMember("t", .string("d")), JSONMember("d", .object(members))])
    }
}
