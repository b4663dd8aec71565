/// Turns command-line options plus the files on disk (firebase.json, .firebaserc, rules files,
/// the import directory) into a ``SuiteConfiguration``.
///
/// ```swift
/// var options = StartOptions()
/// options.only = ["firestore"]
/// let configuration = try ConfigurationLoader.load(options, workingDirectory: "/app")
/// ```
package enum ConfigurationLoader {
    package static func load(
        _ options: StartOptions, workingDirectory: String
    ) throws(ConfigurationError) -> SuiteConfiguration {
        var notices: [SuiteNotice] = []

        // firebase.json
        let configFile = LocalFiles.absolute(options.configPath ?? "firebase.json", relativeTo: workingDirectory)
        var config = FirebaseConfig()
        var configFound = false
        if let bytes = LocalFiles.read(configFile) {
            config = try FirebaseConfig.parse(bytes, file: configFile)
            configFound = true
        } else if options.configPath != nil {
            throw ConfigurationError(
                .unreadableFile, "Not in a Firebase app directory (could not locate firebase.json)", file: configFile)
        } else {
            notices.append(SuiteNotice(.warning, nil, "Could not find config (firebase.json) so using defaults."))
            config.configured = [.firestore, .database]
        }
        let projectDirectory = LocalFiles.directory(of: configFile)

        // .firebaserc and the project
        var rc = FirebaseRC()
        let rcFile = projectDirectory + "/.firebaserc"
        if let bytes = LocalFiles.read(rcFile) { rc = try FirebaseRC.parse(bytes, file: rcFile) }
        let projectId = rc.resolveProject(options.project)
        if projectId.hasPrefix("demo-") {
            notices.append(SuiteNotice(
                .info, "emulators",
                "Detected demo project ID \"\(projectId)\", emulated services will use a demo configuration and attempts to access non-emulated services for this project will fail."))
        }

        // Which emulators, on which ports
        let selection = try EmulatorSelection.resolve(only: options.only, configured: config.configured)
        notices += selection.notices
        if selection.kinds.isEmpty {
            throw ConfigurationError(.nothingToStart, "No emulators to start, run firebase init emulators to get started.")
        }
        var listeners: [EmulatorKind: ListenAddress] = [:]
        for kind in selection.kinds.union([.hub]) {
            let endpoint = config.endpoints[kind] ?? FirebaseConfig.Endpoint()
            listeners[kind] = ListenAddress(
                host: endpoint.host ?? ListenAddress.defaultHost,
                port: endpoint.port ?? kind.defaultPort,
                isFixed: endpoint.port != nil || !kind.fallsBackToNextFreePort)
        }
        if !config.unserved.isEmpty {
            let names = config.unserved.joined(separator: ", ")
            notices.append(SuiteNotice(
                .warning, "emulators",
                "firebase.json configures \(names), which this suite does not run; it serves only firestore, database and the hub."))
        }
        // The Emulator UI: on for `start` unless `emulators.ui.enabled` is false; `exec` only with
        // --ui, which wins over `enabled: false` (as in the official CLI).
        if options.requiresUI || (options.showUI && config.uiEnabled != false) {
            let endpoint = config.endpoints[.ui] ?? FirebaseConfig.Endpoint()
            listeners[.ui] = ListenAddress(
                host: endpoint.host ?? ListenAddress.defaultHost, port: endpoint.port ?? EmulatorKind.ui.defaultPort,
                isFixed: endpoint.port != nil)
        }

        // Rules
        var firestoreRules: RulesSource?
        if selection.kinds.contains(.firestore) {
            switch config.firestoreRules {
            case .none:
                notices.append(SuiteNotice(
                    .warning, "firestore", "Did not find a Cloud Firestore rules file specified in a firebase.json config file."))
                notices.append(SuiteNotice(.warning, "firestore", "The emulator will default to allowing all reads and writes."))
            case .multipleDatabases:
                notices.append(SuiteNotice(.warning, "firestore", "Cloud Firestore Emulator does not support multiple databases yet."))
            case .file(let path):
                firestoreRules = rulesSource(path, in: projectDirectory, scope: "firestore", notices: &notices)
            }
        }
        var databaseRules: [DatabaseRulesBinding] = []
        if selection.kinds.contains(.database) {
            if config.databaseRules.isEmpty {
                notices.append(SuiteNotice(
                    .warning, "database",
                    "Did not find a Realtime Database rules file specified in a firebase.json config file. The emulator will default to allowing all reads and writes."))
            }
            for entry in config.databaseRules {
                var instances: [String] = []
                if let instance = entry.instance {
                    instances = [instance]
                } else if let target = entry.target {
                    instances = rc.databaseTargets[projectId]?[target] ?? []
                    if instances.isEmpty {
                        notices.append(SuiteNotice(
                            .warning, "database",
                            "Database target \"\(target)\" is not defined for project \(projectId) in .firebaserc; its rules are not loaded."))
                    }
                } else {
                    instances = ["\(projectId)-default-rtdb"]
                }
                guard let rules = rulesSource(entry.rules, in: projectDirectory, scope: "database", notices: &notices) else {
                    continue
                }
                databaseRules += instances.map { DatabaseRulesBinding(instance: $0, rules: rules) }
            }
        }

        // --import / --export-on-exit
        let data = try DataDirectories.resolve(
            importDirectory: options.importDirectory, exportOnExit: options.exportOnExit,
            workingDirectory: workingDirectory)
        notices += data.notices

        var configuration = SuiteConfiguration(
            projectId: projectId, listeners: listeners, firestoreRules: firestoreRules, databaseRules: databaseRules,
            singleProjectMode: config.singleProjectMode, verbosity: options.verbosity,
            configFile: configFound ? configFile : nil, importPlan: data.importPlan, exportOnExit: data.exportOnExit,
            notices: notices,
            dataDirectory: options.dataDirectory.map { LocalFiles.absolute($0, relativeTo: workingDirectory) })
        configuration.dataDirectoryFsync = options.dataDirectoryFsync
        return configuration
    }

    /// Reads a rules file relative to the project directory; a missing file only warns, as officially.
    private static func rulesSource(
        _ path: String, in directory: String, scope: String, notices: inout [SuiteNotice]
    ) -> RulesSource? {
        let absolute = LocalFiles.absolute(path, relativeTo: directory)
        guard let bytes = LocalFiles.read(absolute) else {
            notices.append(SuiteNotice(
                .warning, scope, "Rules file \(absolute) does not exist or cannot be read; the emulator will allow all reads and writes."))
            return nil
        }
        return RulesSource(path: absolute, text: String(decoding: bytes, as: UTF8.self))
    }
}
