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
    func authenticate(_ body: JSONValue) -> Answer {
        guard case .string(let token)? = body[member: "cred"], !token.isEmpty else {
            return .failure(.invalidToken)
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
            return .failure(.invalidToken)
        }
        state.withLock { $0.auth = auth }
        recheckListens()
        var reply = [JSONMember("auth", auth.variable)]
        if auth.isAdmin { reply.append(JSONMember("admin", .bool(true))) }
        if let expiry = auth.expiresAt { reply.append(JSONMember("expires", .int(expiry / 1000))) }
        return .success(.object(reply))
    }

    /// `unauth`: back to unauthenticated.
    func unauthenticate() -> Answer {
        state.withLock { $0.auth = .unauthenticated }
        recheckListens()
        return .success(.string(""))
    }

    // MARK: onDisconnect

    /// `o` (`{"p","d"}`, null removes) and `om` (`{"p","d":{relPath:value}}`): checked now against
    /// the rules (as if written now), queued, and run in order when the connection closes.
    func queueOnDisconnect(_ body: JSONValue, merge: Bool) -> Answer {
        let auth = self.auth
        let operation: DatabaseDeferredWrite
        do throws(DatabaseFailure) {
            if merge {
                guard let (path, _) = Self.location(body[member: "p"]) else { throw .invalid("Invalid path") }
                let updates = try Self.updates(body[member: "d"], at: path)
                operation = DatabaseDeferredWrite(path: path, isPriority: false, operation: .update(updates), auth: auth)
            } else {
                guard let (path, isPriority) = Self.location(body[member: "p"], allowPriority: true) else {
                    throw .invalid("Invalid path")
                }
                let data = body[member: "d"] ?? .null
                try Self.validate(data, isPriority: isPriority, at: path)
                operation = DatabaseDeferredWrite(path: path, isPriority: isPriority, operation: .set(data), auth: auth)
            }
            try service.check(operation, in: namespace)
        } catch {
            return .failure(error)
        }
        state.withLock { $0.onDisconnect.append(operation) }
        return .success(.string(""))
    }

    /// `oc`: `{"p":path}` drops queued operations at the location and below.
    func cancelOnDisconnect(_ body: JSONValue) -> Answer {
        guard let (path, _) = Self.location(body[member: "p"]) else { return .failure(.invalid("Invalid path")) }
        state.withLock { s in s.onDisconnect.removeAll { path.isAncestor(of: $0.path) } }
        return .success(.string(""))
    }
}
