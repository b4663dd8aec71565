package import EmulatorHTTP
import EmulatorSupport

/// Which router serves each emulator's port. Wiring a real emulator is one line in `standard`:
///
/// ```swift
/// registry.routers[.firestore] = { context in FirestoreEmulator(context: …).router }
/// ```
package struct EmulatorRegistry: Sendable {
    package typealias RouterFactory = @Sendable (EmulatorContext) -> Router

    package var routers: [EmulatorKind: RouterFactory]

    package init(routers: [EmulatorKind: RouterFactory] = [:]) {
        self.routers = routers
    }

    /// The registry `emulators start` uses. Emulators that have not landed answer 501 on every path.
    package static var standard: EmulatorRegistry {
        EmulatorRegistry(routers: [
            .firestore: { _ in notImplemented("The Firestore emulator is not implemented yet") },
            .database: { databaseRouter($0) },
        ])
    }

    /// The router for `kind`; a kind with no factory answers 501.
    package func router(for kind: EmulatorKind, context: EmulatorContext) -> Router {
        routers[kind].map { $0(context) } ?? Self.notImplemented("The \(kind.description) is not implemented yet")
    }

    /// A router that answers every request with `501 {"error": message}`.
    package static func notImplemented(_ message: String) -> Router {
        var router = Router()
        let body = JSONWriter.encode(.object([JSONMember("error", .string(message))]))
        router.setFallback { _ in HTTPResponse.json(body, status: .notImplemented) }
        return router
    }
}
