import DatabaseEmulator
import EmulatorHTTP
import EmulatorStorage

extension EmulatorRegistry {
    /// The Realtime Database emulator's router, with firebase.json's `database.rules` installed.
    static func databaseRouter(_ context: EmulatorContext) -> Router {
        var configuration = DatabaseEmulatorConfiguration(
            defaultNamespace: "\(context.projectId)-default-rtdb",
            rulesLogger: RulesLoading.logger("database", context), replyGate: context.replyGate)
        configuration.requestLog = context.requestLog
        let database = DatabaseEmulator(storage: context.storage, configuration: configuration)
        for binding in context.databaseRules {
            do {
                try database.setRules(Array(binding.rules.text.utf8), namespace: binding.instance)
            } catch {
                context.console.warning("database", "rules \(binding.rules.path): \(error.message)")
            }
        }
        context.liveRules.attach(database)
        return database.router
    }
}
