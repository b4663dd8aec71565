import EmulatorSupport

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
