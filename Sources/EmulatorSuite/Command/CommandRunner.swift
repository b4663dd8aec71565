#if canImport(Glibc)
import EmulatorSupport
import Glibc
#endif
import Synchronization

/// Runs a command line and returns the exit status; the `emulators` executable is a thin main
/// around this.
///
/// Exit statuses: 0 success; 1 the suite could not start, bad configuration, failed export;
/// 2 invalid command line (with usage on stderr) or, for `exec`, a script killed by a signal;
/// 130 a second shutdown signal; otherwise, for `exec`, the script's own status.
package struct CommandRunner: Sendable {
    package var console: Console
    package var registry: EmulatorRegistry
    package var hooks: SnapshotHooks
    package var workingDirectory: String

    package init(
        console: Console = Console(verbosity: .info), registry: EmulatorRegistry = .standard,
        hooks: SnapshotHooks = .live(version: SuiteVersion.current), workingDirectory: String = LocalFiles.currentDirectory()
    ) {
        self.console = console
        self.registry = registry
        self.hooks = hooks
        self.workingDirectory = workingDirectory
    }

    package func run(_ arguments: [String]) -> Int32 {
        let command: Command
        do {
            command = try CommandLineParser.parse(arguments)
        } catch {
            console.fatalUsage(error)
            return 2
        }
        switch command {
        case .help(let topic):
            console.plain(Usage.text(for: topic))
            return 0
        case .version:
            console.plain(SuiteVersion.current + "\n")
            return 0
        case .start(let options):
            return start(options)
        case .exec(let script, let options):
            return exec(script, options)
        case .export(let options):
            return export(options)
        }
    }

    private func load(_ options: StartOptions) -> SuiteConfiguration? {
        do {
            return try ConfigurationLoader.load(options, workingDirectory: workingDirectory)
        } catch {
            var out = console
            out.verbosity = options.verbosity
            out.fatal(error.code == .malformedJSON ? "There was an error loading \(error.description)" : error.description)
            return nil
        }
    }

    /// Loads the configuration, installs the signal watcher and starts the suite; nil (after
    /// printing why) when the configuration or the start fails.
    private func launch(_ options: StartOptions) -> (suite: Suite, signals: SignalWatcher, console: Console)? {
        guard let configuration = load(options) else { return nil }
        // Before any listener thread exists, so that every thread inherits the blocked mask.
        let signals = SignalWatcher()
        signals.install()
        var console = self.console
        console.verbosity = configuration.verbosity
        do {
            let suite = try Suite.start(configuration, registry: registry, hooks: hooks, console: console)
            return (suite, signals, console)
        } catch {
            console.fatal(error.description)
            return nil
        }
    }

    private func start(_ options: StartOptions) -> Int32 {
        guard let (suite, signals, console) = launch(options) else { return 1 }
        console.banner(suite.banner.rendered)
        var counter = ShutdownSignals()
        guard let first = signals.wait(timeout: nil) else {
            suite.shutdown()
            return 0
        }
        _ = counter.receive(at: ContinuousClock.now)
        console.info(
            "emulators", "Received \(SignalWatcher.describe(first)) for the first time. Starting a clean shutdown.")
        console.info(
            "emulators",
            "Please wait for a clean shutdown or send the \(SignalWatcher.describe(first)) signal again to stop right now.")
        shutdown(suite, signals: signals, counter: &counter, console: console)
        return exportOnExitStatus(suite, console: console, otherwise: 0)
    }

    /// 1 (saying why) when `--export-on-exit` could not export, else `status`: a script or
    /// service that stops the suite must not take a failed export for a saved one.
    private func exportOnExitStatus(_ suite: Suite, console: Console, otherwise status: Int32) -> Int32 {
        guard suite.exportOnExitError != nil, let target = suite.configuration.exportOnExit else { return status }
        console.fatal("--export-on-exit could not export to \"\(target)\": the data of this run was not saved.")
        return status == 0 ? 1 : status
    }

    /// Shuts down on a helper thread (export-on-exit, then the listeners) while watching the
    /// shutdown signals by `counter`'s rules: one within 100 ms of the first is ignored, a later
    /// one exits at once with status 130. `start` calls this after the first signal, `exec`
    /// after the script (whether or not a signal came).
    private func shutdown(_ suite: Suite, signals: SignalWatcher, counter: inout ShutdownSignals, console: Console) {
        let done = Atomic(false)
        let began = PosixThread.spawn {
            suite.shutdown()
            done.store(true, ordering: .releasing)
        }
        if !began {
            suite.shutdown()
            return
        }
        while !done.load(ordering: .acquiring) {
            guard let signal = signals.wait(timeout: .milliseconds(20)) else { continue }
            switch counter.receive(at: ContinuousClock.now) {
            case .first:
                console.info(
                    "emulators", "Received \(SignalWatcher.describe(signal)) for the first time; the clean shutdown is under way.")
                console.info(
                    "emulators",
                    "Please wait for a clean shutdown or send the \(SignalWatcher.describe(signal)) signal again to stop right now.")
            case .ignored:
                continue
            case .exitNow:
                exitNow(suite, signal: signal, console: console)
            }
        }
    }

    /// A second shutdown signal: no clean path, exit 130 now.
    private func exitNow(_ suite: Suite, signal: Int32, console: Console) -> Never {
        console.warning("emulators", "Received \(SignalWatcher.name(signal)) for the second time. Exiting right now.")
        suite.releaseLocator()
        _exit(130)
    }

    private func exec(_ script: String, _ options: StartOptions) -> Int32 {
        guard let (suite, signals, console) = launch(options) else { return 1 }
        console.info(nil, "Running script: \(script)")
        let runner = ScriptRunner()
        guard let pid = runner.spawn(script, environment: suite.environment) else {
            console.fatal("Could not run /bin/sh -c \(script)")
            suite.shutdown()
            return 1
        }
        var counter = ShutdownSignals()
        var termination: ScriptRunner.Termination?
        while termination == nil {
            if let signal = signals.wait(timeout: .milliseconds(20)) {
                switch counter.receive(at: ContinuousClock.now) {
                case .first:
                    // A terminal's Ctrl-C reaches the script too; a `kill` aimed at us alone is passed on.
                    kill(pid, signal)
                case .ignored:
                    break
                case .exitNow:
                    kill(pid, SIGKILL)
                    exitNow(suite, signal: signal, console: console)
                }
            }
            termination = runner.poll(pid)
        }
        let status: Int32
        switch termination {
        case .exited(let code)?:
            status = code
            if code == 0 {
                console.success(nil, "Script exited successfully (code 0)")
            } else {
                console.info(nil, "Script exited unsuccessfully (code \(code))")
            }
        case .signaled(let signal)?:
            status = 2
            console.info(nil, "Script exited with signal: \(SignalWatcher.name(signal))")
        case nil:
            status = 1
        }
        // Export-on-exit and the listeners' drain: a second signal still exits at once.
        shutdown(suite, signals: signals, counter: &counter, console: console)
        return exportOnExitStatus(suite, console: console, otherwise: status)
    }

    private func export(_ options: ExportOptions) -> Int32 {
        let configFile = LocalFiles.absolute(options.configPath ?? "firebase.json", relativeTo: workingDirectory)
        var rc = FirebaseRC()
        let rcFile = LocalFiles.directory(of: configFile) + "/.firebaserc"
        if let bytes = LocalFiles.read(rcFile) {
            do {
                rc = try FirebaseRC.parse(bytes, file: rcFile)
            } catch {
                console.fatal("There was an error loading \(error.description)")
                return 1
            }
        }
        let projectId = rc.resolveProject(options.project)
        let path = LocalFiles.absolute(options.path, relativeTo: workingDirectory)
        // An export replaces its target: never the directory the user stands in, or a parent of it.
        if path == "/" || path == workingDirectory || workingDirectory.hasPrefix(path.hasSuffix("/") ? path : path + "/") {
            console.fatal("Export target \"\(path)\" must not be the current directory or one of its parents: an export replaces the whole target directory.")
            return 1
        }
        do {
            try ExportClient(console: console).run(projectId: projectId, path: path, only: options.only, force: options.force)
            return 0
        } catch {
            console.fatal(error.message)
            if let hint = error.hint { console.writeError(hint + "\n") }
            return 1
        }
    }
}
