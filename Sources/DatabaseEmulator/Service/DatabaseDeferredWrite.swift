import EmulatorModel
import EmulatorSupport

/// A write to run later (a wire connection's onDisconnect, queued by `o`/`om`): checked against
/// the rules when queued (`DatabaseService.check`) and again when it runs (`perform`).
struct DatabaseDeferredWrite: Sendable {
    enum Operation: Sendable {
        /// Set the location to the value (`null` removes); with `isPriority`, its priority.
        case set(JSONValue)
        /// Multi-path update below the location.
        case update([(path: DatabasePath, value: JSONValue)])
    }

    var path: DatabasePath
    var isPriority: Bool
    var operation: Operation
    /// The credentials the write was queued with.
    var auth: DatabaseAuth
}
