package import EmulatorHTTP

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

    /// The router and HTTP/2 hook for `kind`; nil when the registry has no factory for it.
    package func endpoint(for kind: EmulatorKind, context: EmulatorContext) -> EmulatorEndpoint? {
        if let make = endpoints[kind] { return make(context) }
        return routers[kind].map { EmulatorEndpoint(router: $0(context)) }
    }

    /// The registry `emulators start` uses. Firestore serves REST and gRPC on its port.
    package static var standard: EmulatorRegistry {
        EmulatorRegistry(
            routers: [.database: { databaseRouter($0) }],
            endpoints: [.firestore: { firestoreEndpoint($0) }])
    }
}
