import EmulatorModel
import EmulatorStorage
import EmulatorSupport
import SecurityRules
import Synchronization

/// Every namespace of the database emulator, created lazily on first access with the default rules.
final class DatabaseStore: Sendable {
    private let namespaces = Mutex<[String: DatabaseNamespace]>([:])
    /// Where rules denials are logged (nil: nowhere).
    let rulesLogger: Logger?
    /// Where rules decisions go for the Emulator UI (nil: nowhere).
    let requestLog: RulesRequestLog?
    let engine: StorageEngine
    /// How many namespaces reads alone may make known (``namespaceForReading(_:)``).
    let namespacesKeptForReads: Int

    let now: @Sendable () -> Int64

    init(
        engine: StorageEngine, rulesLogger: Logger?, requestLog: RulesRequestLog? = nil, namespacesKeptForReads: Int = 10_000,
        now: @escaping @Sendable () -> Int64
    ) {
        self.engine = engine
        self.namespacesKeptForReads = namespacesKeptForReads
        self.now = now
        self.rulesLogger = rulesLogger
        self.requestLog = requestLog
    }

    /// The namespace called `name`, created if new.
    func namespace(_ name: String) -> DatabaseNamespace {
        namespaces.withLock { all in
            if let existing = all[name] { return existing }
            // Each namespace its own default rules, so that its coverage counts its own requests.
            let rules = DatabaseRules.standard(logger: rulesLogger, requestLog: requestLog)
            let created = DatabaseNamespace(name: name, engine: engine, now: now, rules: rules)
            all[name] = created
            return created
        }
    }

    /// The namespace called `name` for a read that changes nothing. As in the official emulator
    /// a read makes the namespace known (`/.inspect/databases.json` lists it, its coverage counts
    /// the read) — until ``namespacesKeptForReads`` are known: past that, a read of a new name that
    /// holds no data gets a namespace made for that read and not kept, so a client naming a new
    /// namespace in every read cannot grow the store without end (a kept namespace holds its
    /// compiled rules and state, about a kilobyte).
    func namespaceForReading(_ name: String) -> DatabaseNamespace {
        let kept = namespaces.withLock { all -> (namespace: DatabaseNamespace?, full: Bool) in
            (all[name], all.count >= namespacesKeptForReads)
        }
        if let existing = kept.namespace { return existing }
        if !kept.full { return namespace(name) }
        if let snapshot = try? engine.snapshot(), snapshot.holds(DatabaseStorageMapping.namespaceID(name)) {
            return namespace(name)
        }
        return DatabaseNamespace(name: name, engine: engine, now: now, rules: .standard(logger: rulesLogger, requestLog: requestLog))
    }

    /// The namespace called `name` if something used it; nil creates nothing.
    func existingNamespace(_ name: String) -> DatabaseNamespace? {
        namespaces.withLock { $0[name] }
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

    /// Forgets every namespace and drops its data from the engine (`StorageEngine.drop`): the
    /// next use of a name creates it afresh, empty, with the default rules.
    func removeAll() {
        let removed = namespaces.withLock { all in
            defer { all = [:] }
            return Array(all.values)
        }
        withExtendedLifetime(removed) {}
        guard let snapshot = try? engine.snapshot() else { return }
        for id in snapshot.namespaces where id.name.hasPrefix("database/") { engine.drop(id) }
    }

    func compileRules(_ source: [UInt8]) -> Result<DatabaseRules, DatabaseRulesCompileError> {
        DatabaseRules.compile(source, logger: rulesLogger, requestLog: requestLog)
    }
}
