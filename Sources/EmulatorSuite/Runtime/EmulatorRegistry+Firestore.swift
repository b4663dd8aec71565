import FirestoreEmulator

extension EmulatorRegistry {
    /// Firestore: REST on HTTP/1.1 and gRPC (h2c, prior knowledge) on the same port, both over
    /// one `FirestoreService`. An unparsable firestore.rules leaves the rules open (the loader
    /// reports issues when rules are uploaded).
    static func firestoreEndpoint(_ context: EmulatorContext) -> EmulatorEndpoint {
        var rules = FirestoreRulesGate.allowAll
        if let source = context.firestoreRules {
            let (gate, issues) = FirestoreRulesEngine.compile(source.text)
            if let gate { rules = gate }
            for issue in issues { context.console.warning("firestore", "rules \(source.path):\(issue.line):\(issue.column): \(issue.description)") }
        }
        // The suite's shared engine: one consistent cut for exports, one journal for --data-dir.
        let emulator = FirestoreEmulator(
            storage: context.storage,
            configuration: FirestoreEmulatorConfiguration(
                projectID: context.projectId, singleProjectMode: context.singleProjectMode, rules: rules,
                rulesLoader: FirestoreRulesEngine.loader))
        return EmulatorEndpoint(router: emulator.router, http2Handler: FirestoreGRPC(service: emulator.service).connectionFactory)
    }
}
