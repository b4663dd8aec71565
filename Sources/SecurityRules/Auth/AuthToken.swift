import EmulatorSupport

/// Reads the ID tokens clients send to emulators. Signatures are not checked (emulators accept
/// unsigned `alg: none` tokens and tokens signed with any key).
package enum AuthToken {
    /// What the Realtime Database emulator answers for a token it cannot decode
    /// (`{"error": "Could not parse auth token."}`, firebase-tools#3274). This is the message of
    /// the `.invalidToken` error `parse` returns.
    package static let malformedMessage = "Could not parse auth token."

    /// What the Firestore emulator answers instead: HTTP 400, status `INVALID_ARGUMENT`,
    /// message `invalid jwt` (firebase-tools#2010).
    package static let firestoreMalformedMessage = "invalid jwt"

    /// Decodes `Bearer <jwt>` (or a bare `<jwt>`): base64url JSON header and payload.
    ///
    /// - Returns: nil for an empty token (signed out); the auth context with `uid` taken from
    ///   `user_id` or `sub` and `token` holding every claim; or an `.invalidToken` error.
    ///   `Bearer owner` (admin bypass) is the emulators' concern: pass only other tokens here.
    ///
    /// ```swift
    /// let auth = try AuthToken.parse(bearer: request.headers["authorization"] ?? "").get()
    /// ```
    package static func parse(bearer: String) -> Result<AuthContext?, RulesError> {
        var text = Substring(bearer)
        while text.first == " " { text = text.dropFirst() }
        if text.count >= 7, text.prefix(7).lowercased() == "bearer " { text = text.dropFirst(7) }
        while text.first == " " { text = text.dropFirst() }
        while text.last == " " { text = text.dropLast() }
        if text.isEmpty { return .success(nil) }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 || parts.count == 2 else { return .failure(malformed) }
        guard let headerBytes = RulesEncoding.decodeBase64(parts[0]),
            let payloadBytes = RulesEncoding.decodeBase64(parts[1]),
            case .success(let header) = LenientJSONParser.parse(String(decoding: headerBytes, as: UTF8.self)),
            case .object = header.kind,
            case .success(let payload) = LenientJSONParser.parse(String(decoding: payloadBytes, as: UTF8.self)),
            case .object = payload.kind
        else { return .failure(malformed) }
        let claims = payload.jsonValue
        var uid: String?
        if case .string(let id)? = claims[member: "user_id"] { uid = id }
        if uid == nil, case .string(let sub)? = claims[member: "sub"] { uid = sub }
        guard let uid, !uid.isEmpty else { return .failure(malformed) }
        return .success(AuthContext(uid: uid, token: claims))
    }

    private static var malformed: RulesError { RulesError(.invalidToken, malformedMessage) }
}
