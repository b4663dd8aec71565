import EmulatorModel
import EmulatorStorage
import EmulatorSupport
import SecurityRules
import Synchronization

/// Every namespace of the database emulator, created lazily on first access with the default rules.
final class DatabaseStore: Sendable {
    private struct Table {
        var all: [String: DatabaseNamespace] = [:]
        /// Namespaces made known past ``namespacesKeptForReads`` by connections alone, with how
        /// many connections use each: the last one to end takes it away unless it holds data.
        var connected: [String: Int] = [:]
    }

    private let namespaces = Mutex(Table())
    /// Where rules denials are logged (nil: nowhere).
    let rulesLogger: Logger?
    /// Where rules decisions go for the Emulator UI (nil: nowhere).
    let requestLog: RulesRequestLog?
    let engine: StorageEngine
    /// How many namespaces reads and connections alone may make known for good
    /// (``namespaceForReading(_:)``, ``namespaceForConnection(_:)``).
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

    /// The namespace called `name`, created if new, and kept (also one only connections used).
    func namespace(_ name: String) -> DatabaseNamespace {
        namespaces.withLock { t in
            if !t.connected.isEmpty { t.connected[name] = nil }
            return kept(name, in: &t)
        }
    }

    private func kept(_ name: String, in t: inout Table) -> DatabaseNamespace {
        if let existing = t.all[name] { return existing }
        let created = made(name)
        t.all[name] = created
        return created
    }

    /// A new namespace object for `name`. Each namespace its own default rules, so that its
    /// coverage counts its own requests.
    private func made(_ name: String) -> DatabaseNamespace {
        DatabaseNamespace(name: name, engine: engine, now: now, rules: .standard(logger: rulesLogger, requestLog: requestLog))
    }

    /// The namespace called `name` for a read that changes nothing. As in the official emulator
    /// a read makes the namespace known (`/.inspect/databases.json` lists it, its coverage counts
    /// the read) — until ``namespacesKeptForReads`` are known: past that, a read of a new name that
    /// holds no data gets a namespace made for that read and not kept, so a client naming a new
    /// namespace in every read cannot grow the store without end (a kept namespace holds its
    /// compiled rules and state, about a kilobyte).
    func namespaceForReading(_ name: String) -> DatabaseNamespace {
        let known = namespaces.withLock { t -> (namespace: DatabaseNamespace?, full: Bool) in
            (t.all[name], t.all.count >= namespacesKeptForReads)
        }
        if let existing = known.namespace { return existing }
        if !known.full || holdsData(name) { return namespace(name) }
        return made(name)
    }

    /// The namespace called `name` for a WebSocket, long-poll or event-stream (SSE) connection,
    /// which hands it back with ``connectionEnded(_:)``. As in the official emulator a connection makes the namespace
    /// known (`/.inspect/databases.json` lists it) — for good until ``namespacesKeptForReads``
    /// are known; past that, a new name that holds no data is known only while connections use
    /// it (they share the one namespace, so writes and listens meet), and the last connection to
    /// end takes it away unless something was written to it, so a client connecting to a new
    /// namespace each time cannot grow the store without end.
    func namespaceForConnection(_ name: String) -> DatabaseNamespace {
        let known = namespaces.withLock { t -> DatabaseNamespace? in
            if let existing = connecting(name, in: &t) { return existing }
            return t.all.count < namespacesKeptForReads ? kept(name, in: &t) : nil
        }
        if let known { return known }
        if holdsData(name) { return namespace(name) }
        return namespaces.withLock { t in
            if let existing = connecting(name, in: &t) { return existing }
            t.connected[name] = 1
            return kept(name, in: &t)
        }
    }

    /// The known namespace `name` for one more connection (counted if only connections keep it).
    private func connecting(_ name: String, in t: inout Table) -> DatabaseNamespace? {
        guard let existing = t.all[name] else { return nil }
        if let users = t.connected[name] { t.connected[name] = users + 1 }
        return existing
    }

    /// A connection that had `namespace` from ``namespaceForConnection(_:)`` ended (after its
    /// onDisconnect writes ran).
    func connectionEnded(_ namespace: DatabaseNamespace) {
        let name = namespace.name
        let last = namespaces.withLock { t -> Bool in
            guard t.all[name] === namespace, let users = t.connected[name] else { return false }
            t.connected[name] = users - 1
            return users == 1
        }
        guard last else { return }
        let holds = holdsData(name)
        namespaces.withLock { t in
            // Unless a connection came meanwhile, or a write or a stream kept it.
            guard t.all[name] === namespace, t.connected[name] == 0 else { return }
            t.connected[name] = nil
            if !holds { t.all[name] = nil }
        }
    }

    private func holdsData(_ name: String) -> Bool {
        guard let snapshot = try? engine.snapshot() else { return false }
        return snapshot.holds(DatabaseStorageMapping.namespaceID(name))
    }

    /// The namespace called `name` if something used it; nil creates nothing.
    func existingNamespace(_ name: String) -> DatabaseNamespace? {
        namespaces.withLock { $0.all[name] }
    }

    /// Names of the namespaces that exist (used here, or holding data in the engine), sorted.
    var names: [String] {
        var names = Set(namespaces.withLock { Array($0.all.keys) })
        if let snapshot = try? engine.snapshot() {
            for id in snapshot.namespaces where id.name.hasPrefix("database/") {
                names.insert(String(id.name.dropFirst("database/".count)))
            }
        }
        return names.sorted()
    }

    var all: [DatabaseNamespace] { namespaces.withLock { Array($0.all.values) } }

    /// Forgets every namespace and drops its data from the engine (`StorageEngine.drop`): the
    /// next use of a name creates it afresh, empty, with the default rules.
    func removeAll() {
        let removed = namespaces.withLock { t in
            defer { t = Table() }
            return Array(t.all.values)
        }
        withExtendedLifetime(removed) {}
        guard let snapshot = try? engine.snapshot() else { return }
        for id in snapshot.namespaces where id.name.hasPrefix("database/") { engine.drop(id) }
    }

    func compileRules(_ source: [UInt8]) -> Result<DatabaseRules, DatabaseRulesCompileError> {
        DatabaseRules.compile(source, logger: rulesLogger, requestLog: requestLog)
    }
}
