package import EmulatorSupport

/// Everything a running suite needs, resolved: ports, project, rules text, data directories.
///
/// Build one from the command line with ``ConfigurationLoader``, or directly in tests:
///
/// ```swift
/// let configuration = SuiteConfiguration.ephemeral(projectId: "demo-test")
/// try await withSuite(configuration) { suite in print(suite.port(of: .hub) ?? 0) }
/// ```
package struct SuiteConfiguration: Sendable {
    package var projectId: String
    /// The listeners to start, the hub included.
    package var listeners: [EmulatorKind: ListenAddress]
    package var firestoreRules: RulesSource?
    package var databaseRules: [DatabaseRulesBinding]
    package var singleProjectMode: Bool
    package var verbosity: LogVerbosity
    /// The firebase.json that was read; nil when the defaults were used.
    package var configFile: String?
    /// `--import`, when it found data.
    package var importPlan: ImportPlan?
    /// `--export-on-exit`: the absolute directory to export to at shutdown.
    package var exportOnExit: String?
    /// `--data-dir`: the absolute live data directory (every commit journaled before it is acknowledged).
    package var dataDirectory: String?
    /// Whether the journal `fdatasync`s before acknowledging (`--data-dir-no-fsync` turns it off).
    package var dataDirectoryFsync = true
    /// Lines to print before starting (warnings found while loading).
    package var notices: [SuiteNotice]
    /// Where the hub locator file goes (`$TMPDIR` or `/tmp`); nil writes none.
    package var locatorDirectory: String?

    package init(
        projectId: String,
        listeners: [EmulatorKind: ListenAddress],
        firestoreRules: RulesSource? = nil,
        databaseRules: [DatabaseRulesBinding] = [],
        singleProjectMode: Bool = true,
        verbosity: LogVerbosity = .info,
        configFile: String? = nil,
        importPlan: ImportPlan? = nil,
        exportOnExit: String? = nil,
        notices: [SuiteNotice] = [],
        locatorDirectory: String? = LocalFiles.temporaryDirectory(),
        dataDirectory: String? = nil
    ) {
        self.dataDirectory = dataDirectory
        self.projectId = projectId
        self.listeners = listeners
        self.firestoreRules = firestoreRules
        self.databaseRules = databaseRules
        self.singleProjectMode = singleProjectMode
        self.verbosity = verbosity
        self.configFile = configFile
        self.importPlan = importPlan
        self.exportOnExit = exportOnExit
        self.notices = notices
        self.locatorDirectory = locatorDirectory
    }

    /// Every emulator plus the hub on kernel-chosen ports, no locator file: for tests in parallel.
    /// (The UI runs only when `kinds` names it.)
    package static func ephemeral(
        projectId: String = "demo-test", kinds: Set<EmulatorKind> = Set(EmulatorKind.selectable)
    ) -> SuiteConfiguration {
        var listeners: [EmulatorKind: ListenAddress] = [:]
        for kind in kinds.union([.hub]) { listeners[kind] = ListenAddress(port: 0, isFixed: true) }
        return SuiteConfiguration(projectId: projectId, listeners: listeners, verbosity: .silent, locatorDirectory: nil)
    }

    /// The emulators (not the hub or the UI) this configuration starts, in start order.
    package var emulators: [EmulatorKind] {
        listeners.keys.filter(\.isEmulator).sorted()
    }
}
