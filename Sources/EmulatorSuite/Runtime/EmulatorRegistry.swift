package import EmulatorHTTP
import EmulatorStorage
import EmulatorSupport
import FirestoreEmulator

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
            routers: [.database: { _ in notImplemented("The Realtime Database emulator is not implemented yet") }],
            endpoints: [.firestore: firestore])
    }

    /// Firestore: REST on HTTP/1.1 and gRPC (h2c) on the same port, over one service.
    @Sendable static func firestore(_ context: EmulatorContext) -> EmulatorEndpoint {
        var rules = FirestoreRulesGate.allowAll
        if let source = context.firestoreRules, let gate = FirestoreRulesEngine.compile(source.text).gate { rules = gate }
        let emulator = FirestoreEmulator(
            storage: StorageEngine(),
            configuration: FirestoreEmulatorConfiguration(
                projectID: context.projectId, singleProjectMode: context.singleProjectMode, rules: rules,
                rulesLoader: FirestoreRulesEngine.loader))
        return EmulatorEndpoint(router: emulator.router, http2Handler: FirestoreGRPC(service: emulator.service).connectionFactory)
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
