import EmulatorHTTP
import EmulatorSupport
import SecurityRules
import Synchronization

/// Reads the credentials of a REST request: `Authorization: Bearer <token>`, `access_token=` or
/// `auth=`. `owner` (in any case) is the admin token; an unsigned or signed JWT gives a user whose claims become
/// rules' `auth`; `auth_variable_override` (admin only) replaces `auth` and drops admin rights.
enum DatabaseRequestAuth {
    static func resolve(_ request: HTTPRequest, query items: [(name: String, value: String)]) throws(DatabaseFailure)
        -> DatabaseAuth
    {
        var token: String?
        var owner = false
        if let header = request.headers["Authorization"] {
            // `Bearer owner`, what admin clients send with every request, decided on the bytes.
            owner = isOwnerCredential(header)
            if !owner { token = bearerToken(header) }
        }
        var override: String?
        for (name, value) in items {
            switch name {
            case "access_token", "auth": if !owner { token = token ?? value }
            case "auth_variable_override": override = value
            default: continue
            }
        }
        var auth = DatabaseAuth.unauthenticated
        if owner {
            auth = .admin
        } else if let token, !token.isEmpty {
            if token.utf8.count == 5, HTTPHeaders.namesMatch(token, "owner") {
                auth = .admin
            } else if let user = decodedTokens.user(token) {
                auth = user
            } else {
                throw .invalidToken
            }
        }
        if auth.isAdmin, let override {
            guard let value = try? JSONReader.parse(override) else {
                throw .invalid("auth_variable_override must be a valid JSON object or null")
            }
            switch value {
            case .null, .object: auth = DatabaseAuth(isAdmin: false, variable: value)
            default: throw .invalid("auth_variable_override must be a valid JSON object or null")
            }
        }
        return auth
    }

    /// Whether `header` is `Bearer owner` or `Firebase owner` (scheme and token in any case,
    /// spaces and tabs around the token): what ``bearerToken(_:)`` reads as the admin token,
    /// checked on the bytes (an ASCII header; anything else is left to `bearerToken`).
    static func isOwnerCredential(_ header: String) -> Bool {
        let utf8 = header.utf8
        guard utf8.count >= 12, utf8.count <= 64 else { return false }
        return utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard let space = bytes.firstIndex(of: UInt8(ascii: " ")) else { return false }
            guard asciiLowercaseEquals(bytes, 0, space, "bearer") || asciiLowercaseEquals(bytes, 0, space, "firebase") else {
                return false
            }
            var lower = space + 1
            var upper = bytes.count
            while lower < upper, bytes[lower] == 0x20 || bytes[lower] == 0x09 { lower += 1 }
            while upper > lower, bytes[upper - 1] == 0x20 || bytes[upper - 1] == 0x09 { upper -= 1 }
            return asciiLowercaseEquals(bytes, lower, upper, "owner")
        } ?? false
    }

    /// Whether `bytes[lower..<upper]` is `lowercase` (ASCII letters only, lower case) in any case.
    private static func asciiLowercaseEquals(
        _ bytes: UnsafeBufferPointer<UInt8>, _ lower: Int, _ upper: Int, _ lowercase: StaticString
    ) -> Bool {
        guard upper - lower == lowercase.utf8CodeUnitCount else { return false }
        let expected = lowercase.utf8Start
        for i in 0..<(upper - lower) where bytes[lower + i] | 0x20 != expected[i] { return false }
        return true
    }

    /// The token of `Bearer <token>` or `Firebase <token>` (scheme in any case).
    static func bearerToken(_ header: String) -> String? {
        let bytes = header.utf8
        // A header value is ASCII in practice: split on the byte, unless what follows the space
        // is not ASCII (a combining mark would make the space part of a character).
        if let space = bytes.firstIndex(of: UInt8(ascii: " ")), space != bytes.startIndex {
            let after = bytes.index(after: space)
            if after == bytes.endIndex || bytes[after] < 0x80 {
                let scheme = bytes[..<space]
                guard HTTPFieldName.matches(scheme, "bearer") || HTTPFieldName.matches(scheme, "firebase") else { return nil }
                let rest = header[after...]
                guard !rest.isEmpty else { return nil }
                return String(rest.trimmingSpaces)
            }
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" || parts[0].lowercased() == "firebase" else { return nil }
        return String(parts[1].trimmingSpaces)
    }

    /// Tokens already decoded (clients send the same token with every request).
    static let decodedTokens = DecodedTokens()

    /// The user a JWT names (decoded as Firestore decodes it: `AuthToken`); nil when `token` is
    /// not one. Its `exp` is kept for the WebSocket `auth` reply, never enforced.
    static func user(_ token: String) -> DatabaseAuth? {
        guard case .success(let context?) = AuthToken.parse(bearer: token) else { return nil }
        let claims = context.token
        var expiresAt: Int64?
        switch claims[member: "exp"] {
        case .int(let seconds)?: expiresAt = seconds.multipliedReportingOverflow(by: 1000).partialValue
        case .double(let seconds)? where seconds.isFinite && abs(seconds) < 1e15: expiresAt = Int64(seconds * 1000)
        default: expiresAt = nil
        }
        return DatabaseAuth(isAdmin: false, variable: authVariable(claims), expiresAt: expiresAt)
    }

    /// `{uid, token, provider}` from ID-token claims.
    static func authVariable(_ claims: JSONValue) -> JSONValue {
        var members: [JSONMember] = []
        if let uid = claims[member: "user_id"] ?? claims[member: "sub"] { members.append(JSONMember("uid", uid)) }
        members.append(JSONMember("token", claims))
        if let firebase = claims[member: "firebase"], let provider = firebase[member: "sign_in_provider"] {
            members.append(JSONMember("provider", provider))
        }
        return .object(members)
    }
}


/// Users decoded from tokens, by token text (at most 1,024; emptied when full).
final class DecodedTokens: Sendable {
    private let entries = Mutex<[String: DatabaseAuth]>([:])

    func user(_ token: String) -> DatabaseAuth? {
        if let hit = entries.withLock({ $0[token] }) { return hit }
        guard let user = DatabaseRequestAuth.user(token) else { return nil }
        entries.withLock {
            if $0.count >= 1024 { $0.removeAll(keepingCapacity: true) }
            $0[token] = user
        }
        return user
    }
}
