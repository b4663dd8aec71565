import Synchronization
import EmulatorModel
import EmulatorStorage
import EmulatorSupport

extension DatabaseWireSession {
    /// `q` (and legacy `l`): `{"p":path[,"q":query,"t":tag][,"h":hash]}`. Sends the current data
    /// (the query result for a filtered listen, with its tag), then answers ok; denied reads answer
    /// `permission_denied` and send nothing. The client's hash is not used: data always goes out.
    func listen(_ body: JSONValue) -> DatabaseWireResult {
        guard let (path, _) = Self.location(body[member: "p"]) else { return .invalid("Invalid path") }
        var query = DatabaseQuery.all
        var wireQuery: JSONValue?
        if let q = body[member: "q"], q != .null {
            guard let parsed = DatabaseQuery(wire: q) else { return .invalid("Invalid query") }
            query = parsed
            if !parsed.isIdentity { wireQuery = q }
        }
        var tag: Int64?
        if case .int(let t)? = body[member: "t"] { tag = t }
        if query.isIdentity { tag = nil }  // the whole location: a default listen
        let time = now()
        return state.withLock { s -> DatabaseWireResult in
            if s.isClosed { return .ok(.object([])) }
            let auth = s.auth
            let snapshot = namespace.head
            let rules = namespace.rules.rules
            guard auth.mayRead(path, query: query, now: time, data: snapshot, rules: rules) else {
                return .permissionDenied
            }
            if s.subscription == nil {
                s.subscription = engine.subscribe(namespace.id) { [weak self] batch in self?.deliver(batch) }
            }
            let view = query.apply(to: snapshot.node(at: path))
            let listen = DatabaseWireListen(
                path: path, query: query, wireQuery: wireQuery, tag: tag, lastView: view,
                openedAt: snapshot.snapshot.readTime)
            s.listens.removeAll { $0.matches(path: path, query: query, tag: tag) }
            s.listens.append(listen)
            // Data first, then the ok (sent by the caller): the ok marks the client's cache complete.
            send(.data("d", path: listen.wirePath, data: view.json(export: true), tag: tag))
            return .ok(.object([]))
        }
    }

    /// `n` (and legacy `u`): `{"p":path[,"q":query,"t":tag]}` stops the matching listen.
    func unlisten(_ body: JSONValue) -> DatabaseWireResult {
        guard let (path, _) = Self.location(body[member: "p"]) else { return .invalid("Invalid path") }
        var query = DatabaseQuery.all
        if let q = body[member: "q"], q != .null, let parsed = DatabaseQuery(wire: q) { query = parsed }
        var tag: Int64?
        if case .int(let t)? = body[member: "t"], !query.isIdentity { tag = t }
        state.withLock { s in s.listens.removeAll { $0.matches(path: path, query: query, tag: tag) } }
        return .ok(.string(""))
    }

    /// `g`: `{"p":path,"q":query}`, a one-shot read of the (query-filtered) value.
    func get(_ body: JSONValue) -> DatabaseWireResult {
        guard let (path, _) = Self.location(body[member: "p"]) else { return .invalid("Invalid path") }
        var query = DatabaseQuery.all
        if let q = body[member: "q"], q != .null {
            guard let parsed = DatabaseQuery(wire: q) else { return .invalid("Invalid query") }
            query = parsed
        }
        let auth = self.auth
        let time = now()
        return namespace.read { data, rules in
            guard auth.mayRead(path, query: query, now: time, data: data, rules: rules) else { return .permissionDenied }
            return .ok(query.apply(to: data.node(at: path)).json(export: true))
        }
    }

    /// Re-checks every listen against the current credentials; revoked ones get `c`.
    func recheckListens() {
        let time = now()
        state.withLock { s in
            let snapshot = namespace.head
            let rules = namespace.rules.rules
            let auth = s.auth
            s.listens.removeAll { listen in
                if auth.mayRead(listen.path, query: listen.query, now: time, data: snapshot, rules: rules) { return false }
                send(Self.revocation(listen))
                return true
            }
        }
    }

    /// `c`: the listen was cancelled (rules no longer allow the read). `q` is a list holding the
    /// query object, as the JS SDK matches it.
    static func revocation(_ listen: DatabaseWireListen) -> DatabaseWireReply {
        var body = [JSONMember("p", .string(listen.wirePath))]
        if let q = listen.wireQuery { body.append(JSONMember("q", .array([q]))) }
        if let tag = listen.tag { body.append(JSONMember("t", .int(tag))) }
        return .push(action: "c", body: .object(body))
    }
}
