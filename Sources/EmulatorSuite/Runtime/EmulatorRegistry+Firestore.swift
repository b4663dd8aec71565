import EmulatorHTTP
import FirestoreEmulator

extension EmulatorRegistry {
    /// The Firestore emulator's router over the suite's shared engine. Rules: allow-all until the
    /// suite wires firestore.rules through the rules engine.
    static func firestoreRouter(_ context: EmulatorContext) -> Router {
        let firestore = FirestoreEmulator(
            storage: context.storage,
            configuration: FirestoreEmulatorConfiguration(projectID: context.projectId, singleProjectMode: context.singleProjectMode))
        return firestore.router
    }
}
