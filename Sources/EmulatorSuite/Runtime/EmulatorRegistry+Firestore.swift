import FirestoreEmulator

extension EmulatorRegistry {
    /// Firestore: REST and WebChannel on HTTP/1.1 and gRPC (h2c, prior knowledge) on the same port, both over
    /// one `FirestoreService` and so one rules check. firebase.json's `firestore.rules` is
    /// compiled at start (open rules when none is configured; when it does not compile, its problems
    /// are printed as `path:line:col - ERROR …` and only the owner gets through until it is
    /// fixed), `:securityRules` uploads are compiled by the
    /// rules engine, and the file is hot-reloaded (``LiveRules``).
    static func firestoreEndpoint(_ context: EmulatorContext) -> EmulatorEndpoint {
        // The suite's shared engine: one consistent cut for exports, one journal for --data-dir.
        let emulator = FirestoreEmulator(
            storage: context.storage,
            configuration: FirestoreEmulatorConfiguration(
                projectID: context.projectId, singleProjectMode: context.singleProjectMode,
                rules: RulesLoading.firestoreStartGate(context),
                rulesLoader: FirestoreRulesEngine.loader(
                    logger: RulesLoading.logger("firestore", context), requestLog: context.requestLog),
                replyGate: context.replyGate))
        context.liveRules.attach(emulator)
        return EmulatorEndpoint(router: emulator.router, http2Handler: FirestoreGRPC(service: emulator.service).connectionFactory(gate: context.replyGate))
    }
}
