import Synchronization
import EmulatorModel
import EmulatorStorage
import EmulatorSupport

extension DatabaseWireSession {
    /// `q` (and legacy `l`): `{"p":path[,"q":query,"t":tag][,"h":hash]}`. Sends the current data
    /// (the query result for a filtered listen, with its tag), then answers ok; denied reads answer
    /// `permission_denied` and send nothing. The client's hash is not used: data always goes out.
    func listen(_ body: JSONValue) -> Answer {
        guard let (path, _) = Self.location(body[member: "p"]) else { return .failure(.invalid("Invalid path")) }
        var query = DatabaseQueryParams.all
        var wireQuery: JSONValue?
        if let q = body[member: "q"], q != .null {
            guard let parsed = DatabaseQueryParams(wire: q) else { return .failure(.invalid("Invalid query")) }
            query = parsed
            if !parsed.isIdentity { wireQuery = q }
        }
        var tag: Int64?
        if case .int(let t)? = body[member: "t"] { tag = t }
        if query.isIdentity { tag = nil }  // the whole location: a default listen
        return state.withLock { s -> Answer in
            if s.isClosed { return .success(.object([])) }
            // Observing before reading the data: no commit after the read can be missed.
            if s.observer == nil {
                s.observer = namespace.addObserver { [weak self] event in self?.observe(event) }
            }
            let snapshot = namespace.head
            do throws(DatabaseFailure) {
                try service.checkRead(path, query: query, in: namespace, auth: s.auth, data: snapshot)
            } catch {
                return .failure(error)
            }
            let view = query.apply(to: snapshot.node(at: path))
            let listen = DatabaseWireListen(
                path: path, query: query, wireQuery: wireQuery, tag: tag, lastView: view,
                openedAt: snapshot.snapshot.readTime)
            s.listens.removeAll { $0.matches(path: path, query: query, tag: tag) }
            s.listens.append(listen)
            // Data first, then the ok (sent by the caller): the ok marks the client's cache complete.
            send(.data("d", path: listen.wirePath, data: view.json(export: true), tag: tag))
            return .success(.object([]))
        }
    }

    /// `n` (and legacy `u`): `{"p":path[,"q":query,"t":tag]}` stops the matching listen.
    func unlisten(_ body: JSONValue) -> Answer {
        guard let (path, _) = Self.location(body[member: "p"]) else { return .failure(.invalid("Invalid path")) }
        var query = DatabaseQueryParams.all
        if let q = body[member: "q"], q != .null, let parsed = DatabaseQueryParams(wire: q) { query = parsed }
        var tag: Int64?
        if case .int(let t)? = body[member: "t"], !query.isIdentity { tag = t }
        state.withLock { s in s.listens.removeAll { $0.matches(path: path, query: query, tag: tag) } }
        return .success(.string(""))
    }

    /// `g`: `{"p":path,"q":query}`, a one-shot read of the (query-filtered) value.
    func get(_ body: JSONValue) -> Answer {
        guard let (path, _) = Self.location(body[member: "p"]) else { return .failure(.invalid("Invalid path")) }
        var query = DatabaseQueryParams.all
        if let q = body[member: "q"], q != .null {
            guard let parsed = DatabaseQueryParams(wire: q) else { return .failure(.invalid("Invalid query")) }
            query = parsed
        }
        do throws(DatabaseFailure) {
            return .success(try service.query(path, query, in: namespace, auth: auth).json(export: true))
        } catch {
            return .failure(error)
        }
    }

    /// Re-checks every listen against the current credentials and rules; revoked ones get `c`.
    func recheckListens() {
        state.withLock { s in
            let snapshot = namespace.head
            let rules = namespace.rules
            let time = service.now()
            let auth = s.auth
            s.listens.removeAll { listen in
                if rules.mayRead(listen.path, query: listen.query, auth: auth, now: time, data: snapshot) { return false }
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
