import EmulatorHTTP
import FirestoreEmulator

extension EmulatorRegistry {
    /// The Firestore emulator's router over the suite's shared engine, with firebase.json's
    /// `firestore.rules` compiled (open rules when none is configured or it does not compile)
    /// and `:securityRules` uploads compiled by the rules engine.
    static func firestoreRouter(_ context: EmulatorContext) -> Router {
        var gate = FirestoreRulesGate.allowAll
        if let rules = context.firestoreRules {
            let compiled = FirestoreRulesEngine.compile(rules.text, fileName: rules.path)
            if let compiledGate = compiled.gate {
                gate = compiledGate
            } else {
                for issue in compiled.issues {
                    context.console.warning("firestore", "\(rules.path):\(issue.line):\(issue.column) - \(issue.severity) \(issue.description)")
                }
            }
        }
        let firestore = FirestoreEmulator(
            storage: context.storage,
            configuration: FirestoreEmulatorConfiguration(
                projectID: context.projectId, singleProjectMode: context.singleProjectMode, rules: gate,
                rulesLoader: FirestoreRulesEngine.loader))
        return firestore.router
    }
}
