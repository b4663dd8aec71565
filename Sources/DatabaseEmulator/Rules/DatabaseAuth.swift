package import EmulatorSupport

/// Who is asking: an admin (the `owner` token, bypassing rules) or a rules `auth` value
/// (`null` when unauthenticated).
package struct DatabaseAuth: Sendable, Equatable {
    package var isAdmin: Bool
    /// The `auth` variable rules see: `null` or an object with `uid`, `token`, `provider`.
    package var variable: JSONValue

    package init(isAdmin: Bool, variable: JSONValue) {
        self.isAdmin = isAdmin
        self.variable = variable
    }

    package static let admin = DatabaseAuth(isAdmin: true, variable: .null)
    package static let unauthenticated = DatabaseAuth(isAdmin: false, variable: .null)
}
