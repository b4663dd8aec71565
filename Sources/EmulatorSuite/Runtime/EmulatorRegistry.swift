package import EmulatorHTTP
import EmulatorSupport

/// Which router (and, for gRPC, which HTTP/2 handler) serves each emulator's port. Wiring a real
/// emulator is one line in `standard`:
///
/// ```swift
/// registry.routers[.database] = { context in DatabaseEmulator(context: …).router }
/// registry.endpoints[.firestore] = { context in EmulatorEndpoint(router: …, http2Handler: …) }
/// ```
package struct EmulatorRegistry: Sendable {
    package typealias RouterFactory = @Sendable (EmulatorContext) -> Router

    package typealias EndpointFactory = @Sendable (EmulatorContext) -> EmulatorEndpoint

    package var routers: [EmulatorKind: RouterFactory]
    /// Emulators that serve more than HTTP/1.1 on their port (Firestore's gRPC); an entry here
    /// takes precedence over `routers`.
    package var endpoints: [EmulatorKind: EndpointFactory]

    package init(routers: [EmulatorKind: RouterFactory] = [:], endpoints: [EmulatorKind: EndpointFactory] = [:]) {
        self.routers = routers
        self.endpoints = endpoints
    }

    /// The router and HTTP/2 hook for `kind`.
    package func endpoint(for kind: EmulatorKind, context: EmulatorContext) -> EmulatorEndpoint {
        if let make = endpoints[kind] { return make(context) }
        return EmulatorEndpoint(router: router(for: kind, context: context))
    }

    /// The registry `emulators start` uses. Emulators that have not landed answer 501 on every path.
    /// Firestore serves REST and gRPC on its port.
    package static var standard: EmulatorRegistry {
        EmulatorRegistry(
            routers: [.database: { databaseRouter($0) }],
            endpoints: [.firestore: { firestoreEndpoint($0) }])
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
