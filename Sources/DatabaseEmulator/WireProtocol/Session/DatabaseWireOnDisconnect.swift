import EmulatorModel
import EmulatorSupport

/// An operation queued by `o`/`om`, run when the connection closes.
struct DatabaseWireOnDisconnect: Sendable {
    enum Operation: Sendable {
        /// Set the location to the value (`null` removes); `.priority` paths set a priority.
        case set(JSONValue)
        /// Multi-path update below the location.
        case update([(path: DatabasePath, value: JSONValue)])
    }

    var path: DatabasePath
    var isPriority: Bool
    var operation: Operation
    /// The credentials the operation was queued with (rules are checked again when it runs).
    var auth: DatabaseAuth
}
