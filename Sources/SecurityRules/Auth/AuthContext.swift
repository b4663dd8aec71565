package import EmulatorSupport

/// Who is making a request, as rules see it: `request.auth` (Firestore) and `auth` (Realtime
/// Database). nil everywhere means signed out.
package struct AuthContext: Sendable, Hashable {
    /// `request.auth.uid` / `auth.uid`.
    package var uid: String
    /// Every claim of the token, as a JSON object (`request.auth.token`, `auth.token`).
    package var token: JSONValue
    /// A legacy-token object to expose as `auth` in Realtime Database rules instead of
    /// `{uid, provider, token}` (legacy custom tokens put claims directly on `auth`).
    package var legacyDatabaseAuth: JSONValue?

    package init(uid: String, token: JSONValue = .object([]), legacyDatabaseAuth: JSONValue? = nil) {
        self.uid = uid
        self.token = token
        self.legacyDatabaseAuth = legacyDatabaseAuth
    }

    /// `firebase.sign_in_provider`, or `custom` when the token has none.
    package var provider: String {
        if case .string(let p)? = token[member: "firebase"]?[member: "sign_in_provider"] { return p }
        return "custom"
    }

    /// The Realtime Database `auth` object: `{uid, provider, token}` (or the legacy object).
    package var databaseAuth: JSONValue {
        if let legacyDatabaseAuth { return legacyDatabaseAuth }
        return .object([JSONMember("uid", .string(uid)), JSONMember("provider", .string(provider)), JSONMember("token", token)])
    }
}
