package import EmulatorHTTP
import EmulatorModel
package import EmulatorStorage
package import EmulatorSupport

/// The Realtime Database emulator: REST (`/<path>.json`), Server-Sent Event streams, the
/// wire protocol v5 of the SDKs over WebSocket (`/.ws`) and long-polling (`/.lp`, see
/// `WireProtocol/`), and the emulator endpoints `/.settings/rules.json` and
/// `/.inspect/databases.json`, over namespaces created on first use. Data lives in the shared
/// storage engine (namespace `database/<ns>`); every request passes the namespace's rules
/// (`Bearer owner` / `access_token=owner` bypass them).
///
/// ```swift
/// let database = DatabaseEmulator(
///     storage: engine, configuration: .init(defaultNamespace: "demo-project-default-rtdb"))
/// let server = try HTTPServer.start(config, router: database.router)
/// ```
package final class DatabaseEmulator: Sendable {
    package let configuration: DatabaseEmulatorConfiguration
    /// The database behind every transport: REST and SSE (`REST/`), the wire protocol (`WireProtocol/`).
    let service: DatabaseService
    /// Open wire-protocol connections (counted for the hub and tests).
    let wireSessions = DatabaseWireRegistry()
    /// Long-poll connections (`/.lp`), each around a wire session in `wireSessions`.
    let longPolls: DatabaseLongPollServer
    /// The REST GET's encoded bodies of packed objects (`REST/DatabaseAnswerCache.swift`).
    let answers = DatabaseAnswerCache()
    private let keepAliveTask: Task<Void, Never>?

    /// An emulator over `storage` (shared with the other emulators of the suite).
    package init(storage: StorageEngine, configuration: DatabaseEmulatorConfiguration = DatabaseEmulatorConfiguration()) {
        self.configuration = configuration
        let service = DatabaseService(
            storage: storage, rulesLogger: configuration.rulesLogger, requestLog: configuration.requestLog,
            namespacesKeptForReads: configuration.namespacesKeptForReads, now: configuration.now)
        self.service = service
        let store = service.store
        longPolls = DatabaseLongPollServer(
            configuration: configuration.longPoll, registry: wireSessions, now: configuration.monotonicNanos)
        if let seconds = configuration.keepAliveSeconds, seconds > 0 {
            // Owned by the emulator and cancelled in deinit; it holds the store, not the emulator.
            keepAliveTask = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(seconds))
                    for namespace in store.all { namespace.keepAlive() }
                }
            }
        } else {
            keepAliveTask = nil
        }
    }

    deinit { keepAliveTask?.cancel() }

    /// Routes every request path to the emulator.
    package var router: Router {
        var router = Router()
        router.add(nil, "*") { [self] request in self.respond(to: request) }
        return router
    }

    /// Sends `keep-alive` to every open stream now; the emulator also does this every
    /// `keepAliveSeconds`.
    package func sendKeepAlives() {
        for namespace in service.store.all { namespace.keepAlive() }
    }

    /// Back to a new emulator's state: long-poll connections end (their onDisconnect writes run),
    /// then every namespace goes, with its data and rules. Open WebSocket and event streams keep
    /// the namespace they had. For reusing one emulator across fuzz inputs.
    package func reset() {
        longPolls.endAll()
        service.store.removeAll()
    }

    /// Number of open event streams in `namespace`.
    package func streamCount(namespace: String) -> Int { service.namespace(namespace).streamCount }

    /// The whole current value of `namespace` (export form), for snapshots and tests.
    package func exportData(namespace: String) -> JSONValue {
        service.namespace(namespace).head.node(at: .root).json(export: true)
    }
}

extension DatabaseEmulator {
    /// Installs the rules file `source` for `namespace` (firebase.json `database.rules`), as a
    /// PUT to `/.settings/rules.json` would.
    package func setRules(_ source: [UInt8], namespace: String) throws(DatabaseRulesCompileError) {
        try service.setRules(source, namespace: namespace)
    }
}
