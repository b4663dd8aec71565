import EmulatorHTTP
import FirestoreEmulator

extension EmulatorRegistry {
    /// The Firestore emulator's router over the suite's shared engine, with firebase.json's
    /// `firestore.rules` compiled (open rules when none is configured or it does not compile),
    /// `:securityRules` uploads compiled by the rules engine, and the rules file hot-reloaded.
    static func firestoreRouter(_ context: EmulatorContext) -> Router {
        let firestore = FirestoreEmulator(
            storage: context.storage,
            configuration: FirestoreEmulatorConfiguration(
                projectID: context.projectId, singleProjectMode: context.singleProjectMode,
                rules: RulesLoading.firestoreStartGate(context),
                rulesLoader: FirestoreRulesEngine.loader(logger: RulesLoading.logger("firestore", context))))
        context.liveRules.attach(firestore)
        return firestore.router
    }
}
