package import EmulatorHTTP
package import EmulatorStorage

/// The Firestore emulator: ``FirestoreService`` (the semantics) over the shared storage engine,
/// with its REST face and its WebChannel endpoints (the JS SDK's Listen and Write) on a router. Wire it into the suite in one line:
///
/// ```swift
/// let firestore = FirestoreEmulator(storage: engine, configuration: .init(projectID: "demo"))
/// let router = firestore.router   // /v1/…, /emulator/v1/… and the WebChannel paths
/// ```
package final class FirestoreEmulator: Sendable {
    package let service: FirestoreService
    package let configuration: FirestoreEmulatorConfiguration
    /// Routes for the REST API and the emulator endpoints.
    package let router: Router
    package let rest: FirestoreREST
    package let webChannel: FirestoreWebChannel

    package convenience init(storage: StorageEngine, configuration: FirestoreEmulatorConfiguration = .init()) {
        self.init(
            service: FirestoreService(store: DocumentStore(engine: storage), rules: configuration.rules),
            configuration: configuration)
    }

    /// An emulator over an existing service (tests use this to switch indexes off).
    package init(service: FirestoreService, configuration: FirestoreEmulatorConfiguration) {
        self.configuration = configuration
        self.service = service
        self.rest = FirestoreREST(
            service: service, rulesLoader: configuration.rulesLoader, logger: configuration.logger,
            singleProject: configuration.singleProjectMode ? configuration.projectID : nil)
        self.webChannel = FirestoreWebChannel(service: service, configuration: configuration.webChannel, gate: configuration.replyGate)
        var router = Router()
        rest.register(on: &router)
        webChannel.register(on: &router)
        self.router = router
    }

    /// Back to a new emulator's state: WebChannel sessions closed, then the service reset (no
    /// documents, transactions or rules uploads; the configured rules). For reusing one emulator
    /// across fuzz inputs.
    package func reset() {
        webChannel.listen.closeAll()
        webChannel.write.closeAll()
        service.reset(rules: configuration.rules)
    }
}
