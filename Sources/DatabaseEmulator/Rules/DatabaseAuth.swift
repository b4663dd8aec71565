package import EmulatorSupport

/// Who is asking: an admin (the `owner` token, bypassing rules) or a rules `auth` value
/// (`null` when unauthenticated).
package struct DatabaseAuth: Sendable, Equatable {
    package var isAdmin: Bool
    /// The `auth` variable rules see: `null` or an object with `uid`, `token`, `provider`.
    package var variable: JSONValue
    /// The token's `exp` (ms since the epoch), echoed in the WebSocket `auth` reply. Never
    /// enforced: emulators do not judge tokens' times (the test library's mock tokens say 1970).
    package var expiresAt: Int64?

    package init(isAdmin: Bool, variable: JSONValue, expiresAt: Int64? = nil) {
        self.isAdmin = isAdmin
        self.variable = variable
        self.expiresAt = expiresAt
    }

    package static let admin = DatabaseAuth(isAdmin: true, variable: .null)
    package static let unauthenticated = DatabaseAuth(isAdmin: false, variable: .null)
}
