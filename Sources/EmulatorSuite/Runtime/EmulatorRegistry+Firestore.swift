import EmulatorStorage
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
        // Its own engine until EmulatorContext carries the suite's shared one.
        let emulator = FirestoreEmulator(
            storage: StorageEngine(),
            configuration: FirestoreEmulatorConfiguration(
                projectID: context.projectId, singleProjectMode: context.singleProjectMode, rules: rules,
                rulesLoader: FirestoreRulesEngine.loader))
        return EmulatorEndpoint(router: emulator.router, http2Handler: FirestoreGRPC(service: emulator.service).connectionFactory)
    }
}
