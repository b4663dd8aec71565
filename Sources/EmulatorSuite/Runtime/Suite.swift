#if canImport(Glibc)
import Glibc
#endif
import EmulatorHTTP
import EmulatorSnapshot
import EmulatorSupport
import EmulatorUI
import SecurityRules
import Synchronization

/// A running emulator suite: every configured emulator plus the hub, in this process.
///
/// Prefer the scoped form, which always shuts down:
///
/// ```swift
/// try await withSuite(.ephemeral()) { suite in
///     let hub = suite.port(of: .hub)   // the kernel-chosen port
/// }
/// ```
package final class Suite: Sendable {
    package let configuration: SuiteConfiguration
    package let context: EmulatorContext
    package let directory: HubDirectory
    /// The port each listener bound (the kernel's choice where 0 was asked).
    package let ports: [EmulatorKind: Int]
    private let listeners: [(kind: EmulatorKind, listener: any SuiteListener)]
    fileprivate let locator: HubLocator?
    private let hooks: SnapshotHooks
    /// `--data-dir`: journals every commit; closed (flushed) at shutdown.
    private let dataDirectory: DataDirectory?
    private let stopped = Mutex(false)
    /// Set when `--export-on-exit` could not export (the command then exits non-zero).
    private let exportOnExitFailure = Mutex<String?>(nil)
    /// Held by each export (the hub's and `--export-on-exit`): exports never overlap, and the
    /// shutdown waits for one in progress before the data directory closes and the process ends.
    private let exportTurn: ExportTurn

    private init(
        configuration: SuiteConfiguration, context: EmulatorContext, directory: HubDirectory,
        listeners: [(kind: EmulatorKind, listener: any SuiteListener)], locator: HubLocator?, hooks: SnapshotHooks,
        dataDirectory: DataDirectory?, exportTurn: ExportTurn
    ) {
        self.exportTurn = exportTurn
        self.dataDirectory = dataDirectory
        self.configuration = configuration
        self.context = context
        self.directory = directory
        self.listeners = listeners
        self.locator = locator
        self.hooks = hooks
        self.ports = Dictionary(uniqueKeysWithValues: listeners.map { ($0.kind, $0.listener.port) })
    }

    /// The transport `emulators start` uses.
    package static var defaultTransport: any ListenerFactory { PosixListenerFactory() }

    /// Starts every listener (emulators first, the hub last), imports data, writes the locator.
    /// On failure, whatever was started is stopped again.
    package static func start(
        _ configuration: SuiteConfiguration,
        registry: EmulatorRegistry = .standard,
        hooks: SnapshotHooks = .live(version: SuiteVersion.current),
        transport: any ListenerFactory = Suite.defaultTransport,
        console: Console? = nil
    ) throws(SuiteStartError) -> Suite {
        var console = console ?? Console(verbosity: configuration.verbosity)
        // The UI's Logs view keeps the most recent lines, whatever the verbosity.
        let logBook = configuration.listeners[.ui] == nil ? nil : UILogBook()
        if let logBook {
            let previous = console.observer
            console.observer = { notice in
                previous?(notice)
                logBook.append(level: notice.levelName, scope: notice.scope ?? "", text: notice.text)
            }
        }
        let pid = Int(getpid())
        for notice in configuration.notices { console.emit(notice) }
        console.info("emulators", "Starting emulators: " + configuration.emulators.map(\.rawValue).joined(separator: ", "))

        var startContext = EmulatorContext(
            projectId: configuration.projectId, singleProjectMode: configuration.singleProjectMode,
            firestoreRules: configuration.firestoreRules, databaseRules: configuration.databaseRules, console: console)
        if configuration.dataDirectory != nil, transport.completesDeferredResponses {
            // gRPC and WebSocket writes are acknowledged once durable, without stalling the loop.
            startContext.replyGate = DurableAcknowledgement.replyGate
        }
        // The UI's Requests view: every rules decision of both emulators.
        if configuration.listeners[.ui] != nil { startContext.requestLog = RulesRequestLog() }
        let context = startContext
        // The live data directory is restored before anything else touches the engine.
        var dataDirectory: DataDirectory?
        if let path = configuration.dataDirectory {
            do throws(SnapshotError) {
                let opened = try DataDirectory.open(
                    path, engine: context.storage, durability: configuration.dataDirectoryFsync ? .sync : .write)
                dataDirectory = opened
                console.info(
                    "emulators",
                    "Data directory \(path): restored \(opened.recovered.entries) entries and \(opened.recovered.commits) journaled commits")
            } catch {
                throw SuiteStartError(.importFailed, "Data directory \(path) cannot be loaded: \(error)")
            }
        }
        var importPlan = configuration.importPlan
        if let plan = importPlan, let dataDirectory, dataDirectory.recovered.entries + dataDirectory.recovered.commits > 0 {
            console.warning("emulators", "Not importing \(plan.directory): the data directory \(dataDirectory.path) already holds data.")
            importPlan = nil
        }
        if let plan = importPlan {
            console.info("emulators", "Importing data from \(plan.directory)")
            do {
                try hooks.importData(plan, context)
            } catch where error.code == .notImplemented {
                console.warning("emulators", "\(error.message); starting with empty data.")
            } catch {
                dataDirectory?.close()
                throw SuiteStartError(.importFailed, "Import from \(plan.directory) failed: \(error.message)")
            }
        }

        // As the official CLI: a database rules file that does not load stops the start.
        let rulesProblems = configuration.emulators.contains(.database) ? RulesLoading.databaseStartProblems(context) : []
        if !rulesProblems.isEmpty {
            dataDirectory?.close()
            throw SuiteStartError(.rulesFailed, "Failed to load initial Database Emulator rules:\n" + rulesProblems.joined(separator: "\n"))
        }

        let directory = HubDirectory(pid: pid)
        var started: [(kind: EmulatorKind, listener: any SuiteListener)] = []
        func abandon() {
            for entry in started.reversed() { entry.listener.shutdown(gracePeriod: .zero) }
            dataDirectory?.close()
        }
        let exportHook = hooks.exportData
        let importHook = hooks.importData
        let exportTurn = ExportTurn()
        let kinds = configuration.listeners.keys.sorted()
        for kind in kinds {
            guard let address = configuration.listeners[kind] else { continue }
            // The hub answers browsers (the Emulator UI, rules-unit-testing in a page) like the official one.
            let endpoint: EmulatorEndpoint? = kind.isEmulator ? registry.endpoint(for: kind, context: context) : nil
            let handler: HTTPHandler
            switch kind {
            case .hub:
                handler = HubRouter.handler(
                    HubRouter.make(
                        directory: directory, deferExports: transport.completesDeferredResponses, turn: exportTurn,
                        export: { request throws(SnapshotFailure) in try exportHook(request, context) },
                        import: { path throws(SnapshotFailure) in try Suite.importWhileRunning(path, hook: importHook, context) }))
            case .ui:
                handler = UIRouter.handler(UIEnvironment(
                    projectId: configuration.projectId, emulators: { directory.emulatorsDocument },
                    ownOrigins: { directory.origins(of: .ui) }, logs: logBook ?? UILogBook(capacity: 1),
                    requests: context.requestLog))
            case .firestore, .database:
                handler = (endpoint?.router ?? Router()).respond(to:)
            }
            do throws(SuiteStartError) {
                // Journaled writes are acknowledged once durable, without stalling the event loop.
                let durable =
                    dataDirectory != nil && kind.isEmulator && transport.completesDeferredResponses
                    ? DurableAcknowledgement.deferring(handler) : handler
                let handler = console.verbosity == .debug ? logging(durable, kind: kind, console: console) : durable
                let listener = try bind(
                    kind, address, handler: handler, http2Handler: endpoint?.http2Handler, transport: transport, console: console)
                started.append((kind, listener))
                directory.register(kind, host: address.advertisedHost, port: listener.port,
                    addresses: address.host == "localhost" ? listener.addresses : [])
                if kind.isEmulator {
                    console.info(kind.rawValue, "\(kind.description) listening on \(ListenAddress.hostPort(address.advertisedHost, listener.port))")
                }
            } catch {
                abandon()
                throw error
            }
        }

        context.liveRules.startWatching(context)
        var locator: HubLocator?
        if let locatorDirectory = configuration.locatorDirectory {
            let candidate = HubLocator(directory: locatorDirectory, projectId: configuration.projectId, pid: pid)
            switch candidate.claim(directory.locatorDocument) {
            case .written:
                locator = candidate
            case .ownedByLiveProcess:
                console.warning(
                    "hub",
                    "It seems that you are running multiple instances of the emulator suite for project \(configuration.projectId). This may result in unexpected behavior.")
            case .failed:
                console.warning("hub", "Could not write the hub locator file \(candidate.path); emulators export will not find this suite.")
            }
        }
        return Suite(
            configuration: configuration, context: context, directory: directory, listeners: started, locator: locator,
            hooks: hooks, dataDirectory: dataDirectory, exportTurn: exportTurn)
    }

    /// Binds one listener; the hub moves to the next free port when its default is taken.
    private static func bind(
        _ kind: EmulatorKind, _ address: ListenAddress, handler: @escaping HTTPHandler,
        http2Handler: HTTP2ConnectionHandlerFactory?, transport: any ListenerFactory,
        console: Console
    ) throws(SuiteStartError) -> any SuiteListener {
        let attempts = address.isFixed || address.port == 0 ? 1 : 50
        for offset in 0..<attempts {
            let port = address.port + offset
            guard port <= 65535 else { break }
            do throws(ListenFailure) {
                let listener = try transport.listen(
                    host: address.host, port: port, handler: handler, http2Handler: http2Handler,
                    logger: ConsoleLogHandler.logger(kind.rawValue, console: console))
                if offset > 0 {
                    console.warning(kind.rawValue, "\(kind.description) unable to start on port \(address.port), starting on \(port) instead.")
                }
                return listener
            } catch {
                guard case .other(let reason) = error else { continue }
                throw SuiteStartError(
                    .listenFailed, "Could not start \(kind.description) on \(address.host):\(port): \(reason)", kind: kind,
                    port: port)
            }
        }
        throw SuiteStartError.portTaken(kind, address)
    }

    /// `--log-verbosity DEBUG`: one line per request, `[debug] firestore: GET /v1/… → 501`.
    private static func logging(_ handler: @escaping HTTPHandler, kind: EmulatorKind, console: Console) -> HTTPHandler {
        { request in
            let response = handler(request)
            console.debug(kind.rawValue, "\(request.method.token) \(request.target) → \(response.status.code)")
            return response
        }
    }

    /// The port `kind` listens on, if it runs.
    package func port(of kind: EmulatorKind) -> Int? { ports[kind] }

    /// `host:port` a client should dial for `kind`.
    package func hostPort(of kind: EmulatorKind) -> String? {
        guard let address = configuration.listeners[kind], let port = ports[kind] else { return nil }
        return ListenAddress.hostPort(address.advertisedHost, port)
    }

    /// The ready banner for this suite's listeners; with the UI, its address in the box and a
    /// link per emulator (`http://127.0.0.1:4000/firestore`), as the official CLI prints them.
    package var banner: ReadyBanner {
        let ui = hostPort(of: .ui).map { "http://\($0)" }
        let rows = configuration.emulators.compactMap { kind in
            hostPort(of: kind).map {
                ReadyBanner.Row(name: kind.tableName, hostPort: $0, uiLink: ui.map { "\($0)/\(kind.rawValue)" })
            }
        }
        let hub = directory.hub
        return ReadyBanner(rows: rows, hubHost: hub?.host ?? "", hubPort: hub?.port ?? 0, uiURL: ui.map { $0 + "/" })
    }

    /// The variables `emulators exec` gives its command, as the official CLI sets them.
    package var environment: [String: String] {
        var environment: [String: String] = ["GCLOUD_PROJECT": configuration.projectId]
        if let firestore = hostPort(of: .firestore) {
            environment["FIRESTORE_EMULATOR_HOST"] = firestore
            environment["FIREBASE_FIRESTORE_EMULATOR_ADDRESS"] = firestore
        }
        if let database = hostPort(of: .database) { environment["FIREBASE_DATABASE_EMULATOR_HOST"] = database }
        if let hub = hostPort(of: .hub) { environment["FIREBASE_EMULATOR_HUB"] = hub }
        let project = configuration.projectId
        environment["FIREBASE_CONFIG"] =
            #"{"projectId":"\#(project)","storageBucket":"\#(project).appspot.com","databaseURL":"https://\#(project).firebaseio.com"}"#
        return environment
    }

    /// Runs export-on-exit, stops every listener (requests in flight get `gracePeriod` in total),
    /// and removes the locator file. Safe to call more than once.
    package func shutdown(gracePeriod: Duration = .seconds(2)) {
        let first = stopped.withLock { stopped -> Bool in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        let console = context.console
        if let target = configuration.exportOnExit {
            console.info("emulators", "Automatically exporting data using --export-on-exit \"\(target)\" please wait for the export to finish...")
            let request = ExportRequest(path: target, initiatedBy: "exit", targets: configuration.emulators)
            do {
                try exportTurn.run { () throws(SnapshotFailure) in try hooks.exportData(request, context) }
            } catch {
                console.warning("emulators", "Automatic export to \"\(target)\" failed, going to exit now... (\(error.message))")
                exportOnExitFailure.withLock { $0 = error.message }
            }
        }
        context.liveRules.stopWatching()
        console.info("emulators", "Shutting down emulators.")
        let deadline = ContinuousClock.now + gracePeriod
        for entry in listeners.reversed() {
            console.info(entry.kind.rawValue, "Stopping \(entry.kind.description)")
            let remaining = max(deadline - ContinuousClock.now, .zero)
            entry.listener.shutdown(gracePeriod: remaining)
        }
        // A hub export still running (its connection may have been cut by the grace period)
        // finishes before the data goes away.
        exportTurn.run {}
        dataDirectory?.close()
        locator?.release()
    }
}

/// One export at a time: the hub's (`HubRouter`), `--export-on-exit`, and the shutdown's wait
/// for an export in progress all take this turn (see `Suite.exportTurn`).
package final class ExportTurn: Sendable {
    private let lock = Mutex(())

    package init() {}

    package func run<R: Sendable, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        try lock.withLock { _ throws(E) -> R in try body() }
    }
}

extension Suite {
    /// Why `--export-on-exit` wrote nothing at the last ``shutdown(gracePeriod:)``; nil when it
    /// succeeded or was not asked for.
    package var exportOnExitError: String? {
        exportOnExitFailure.withLock { $0 }
    }

    /// Removes the hub locator file now (before an immediate exit on a second signal).
    package func releaseLocator() {
        locator?.release()
    }
}

/// Starts a suite, runs `body`, and shuts the suite down however `body` ends.
package func withSuite<Result>(
    _ configuration: SuiteConfiguration,
    registry: EmulatorRegistry = .standard,
    hooks: SnapshotHooks = .live(version: SuiteVersion.current),
    transport: any ListenerFactory = Suite.defaultTransport,
    console: Console? = nil,
    _ body: (Suite) async throws -> Result
) async throws -> Result {
    let suite = try Suite.start(configuration, registry: registry, hooks: hooks, transport: transport, console: console)
    do {
        let result = try await body(suite)
        suite.shutdown()
        return result
    } catch {
        suite.shutdown()
        throw error
    }
}
