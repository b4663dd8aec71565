import EmulatorModel
import EmulatorStorage
import EmulatorSupport
import Synchronization

/// Every namespace of the database emulator, created lazily on first access with the default rules.
final class DatabaseStore: Sendable {
    private let namespaces = Mutex<[String: DatabaseNamespace]>([:])
    private let rulesGate: any DatabaseRulesGate
    private let defaultRules: any DatabaseRules
    let engine: StorageEngine

    let now: @Sendable () -> Int64

    init(engine: StorageEngine, rulesGate: any DatabaseRulesGate, now: @escaping @Sendable () -> Int64) {
        self.engine = engine
        self.now = now
        self.rulesGate = rulesGate
        let source = Array(DatabaseDefaultRules.source.utf8)
        switch rulesGate.compile(source) {
        case .success(let rules): defaultRules = rules
        case .failure: defaultRules = OpenDatabaseRules()  // only for a gate that rejects the open default
        }
    }

    /// The namespace called `name`, created if new.
    func namespace(_ name: String) -> DatabaseNamespace {
        namespaces.withLock { all in
            if let existing = all[name] { return existing }
            let created = DatabaseNamespace(
                name: name, engine: engine, now: now, rulesSource: Array(DatabaseDefaultRules.source.utf8), rules: defaultRules)
            all[name] = created
            return created
        }
    }

    /// Names of the namespaces that exist (used here, or holding data in the engine), sorted.
    var names: [String] {
        var names = Set(namespaces.withLock { Array($0.keys) })
        if let snapshot = try? engine.snapshot() {
            for id in snapshot.namespaces where id.name.hasPrefix("database/") {
                names.insert(String(id.name.dropFirst("database/".count)))
            }
        }
        return names.sorted()
    }

    var all: [DatabaseNamespace] { namespaces.withLock { Array($0.values) } }

    func compileRules(_ source: [UInt8]) -> Result<any DatabaseRules, DatabaseRulesCompileError> {
        rulesGate.compile(source)
    }
}
