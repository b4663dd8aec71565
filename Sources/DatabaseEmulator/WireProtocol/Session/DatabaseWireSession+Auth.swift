import Synchronization
import EmulatorModel
import EmulatorSupport

extension DatabaseWireSession {
    /// `auth` / `gauth`: `{"cred":token}`. `owner` (any case) is the admin; a JWT (signed or not)
    /// becomes a user whose claims are rules' `auth`, whatever its `iat`/`exp` say (emulators do not
    /// judge tokens' times: the test library's tokens expire in 1970); anything else is
    /// `invalid_token`. An admin may
    /// add `"authvar":{…}` (rules run with that `auth`) or `"noauth":true` (unauthenticated).
    /// Listens the new credentials may not read are revoked.
    func authenticate(_ body: JSONValue) -> DatabaseWireResult {
        guard case .string(let token)? = body[member: "cred"], !token.isEmpty else {
            return .failure("invalid_token", "Could not parse auth token.")
        }
        var auth: DatabaseAuth
        if token.utf8.count == 5, token.lowercased() == "owner" {
            auth = .admin
            if case .object = body[member: "authvar"] {
                auth = DatabaseAuth(isAdmin: false, variable: body[member: "authvar"] ?? .null)
            } else if body[member: "noauth"] == .bool(true) {
                auth = .unauthenticated
            }
        } else if let user = DatabaseRequestAuth.decodedTokens.user(token) {
            auth = user
        } else {
            return .failure("invalid_token", "Could not parse auth token.")
        }
        state.withLock { $0.auth = auth }
        recheckListens()
        var reply = [JSONMember("auth", auth.variable)]
        if auth.isAdmin { reply.append(JSONMember("admin", .bool(true))) }
        if let expiry = auth.expiresAt { reply.append(JSONMember("expires", .int(expiry / 1000))) }
        return .ok(.object(reply))
    }

    /// `unauth`: back to unauthenticated.
    func unauthenticate() -> DatabaseWireResult {
        state.withLock { $0.auth = .unauthenticated }
        recheckListens()
        return .ok(.string(""))
    }

    // MARK: onDisconnect

    /// `o` (`{"p","d"}`, null removes) and `om` (`{"p","d":{relPath:value}}`): checked now against
    /// the rules (as if written now), queued, and run in order when the connection closes.
    func queueOnDisconnect(_ body: JSONValue, merge: Bool) -> DatabaseWireResult {
        let auth = self.auth
        let operation: DatabaseWireOnDisconnect
        if merge {
            guard let (path, _) = Self.location(body[member: "p"]) else { return .invalid("Invalid path") }
            do {
                let updates = try Self.updates(body[member: "d"], at: path)
                operation = DatabaseWireOnDisconnect(path: path, isPriority: false, operation: .update(updates), auth: auth)
            } catch {
                return error.result
            }
        } else {
            guard let (path, isPriority) = Self.location(body[member: "p"], allowPriority: true) else {
                return .invalid("Invalid path")
            }
            let data = body[member: "d"] ?? .null
            if let failure = Self.validate(data, at: path, isPriority: isPriority) { return failure }
            operation = DatabaseWireOnDisconnect(path: path, isPriority: isPriority, operation: .set(data), auth: auth)
        }
        guard mayRun(operation) else { return .permissionDenied }
        state.withLock { $0.onDisconnect.append(operation) }
        return .ok(.string(""))
    }

    /// `oc`: `{"p":path}` drops queued operations at the location and below.
    func cancelOnDisconnect(_ body: JSONValue) -> DatabaseWireResult {
        guard let (path, _) = Self.location(body[member: "p"]) else { return .invalid("Invalid path") }
        state.withLock { s in s.onDisconnect.removeAll { path.isAncestor(of: $0.path) } }
        return .ok(.string(""))
    }

    /// Whether the rules would allow `operation` against the current data.
    private func mayRun(_ operation: DatabaseWireOnDisconnect) -> Bool {
        let time = now()
        let auth = operation.auth
        if auth.isAdmin { return true }
        return namespace.read { data, rules in
            let write: DatabaseWrite
            switch operation.operation {
            case .set(let json):
                let node = DatabaseNode.build(json, existing: data.node(at: operation.path), now: time)
                write = .set(operation.isPriority ? operation.path.child(".priority") : operation.path, node)
                let newData = DatabaseOverlaySource(base: data, write: write)
                return auth.mayWrite([operation.path], now: time, data: data, newData: newData, rules: rules)
            case .update(let updates):
                let resolved = updates.map { ($0.path, DatabaseNode.build($0.value, existing: .empty, now: time)) }
                write = .update(base: operation.path, resolved)
                let newData = DatabaseOverlaySource(base: data, write: write)
                return auth.mayWrite(write.locations, now: time, data: data, newData: newData, rules: rules)
            }
        }
    }

    /// Runs one queued operation (server values resolve now; rules are checked again).
    @discardableResult
    func run(_ operation: DatabaseWireOnDisconnect) -> DatabaseWireResult {
        switch operation.operation {
        case .set(let json):
            commitSet(json, at: operation.path, isPriority: operation.isPriority, expectedHash: nil, auth: operation.auth)
        case .update(let updates):
            commitUpdate(updates, at: operation.path, auth: operation.auth)
        }
    }
}
