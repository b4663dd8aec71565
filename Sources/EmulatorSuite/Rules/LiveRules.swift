package import DatabaseEmulator
import EmulatorModel
import EmulatorSupport
package import FirestoreEmulator
import SecurityRules
import Synchronization

/// The running emulators whose rules come from firebase.json's files: each emulator's factory
/// attaches itself here, and ``RulesFileWatcher`` swaps the rules of every attached emulator
/// when a file changes. One per suite, shared through ``EmulatorContext``.
package final class LiveRules: Sendable {
    private struct Attached {
        var firestore: [FirestoreEmulator] = []
        var database: [DatabaseEmulator] = []
    }

    private let attached = Mutex(Attached())
    private let watcher = Mutex<RulesFileWatcher?>(nil)

    package init() {}

    /// Starts hot reload of `context`'s rules files (the suite does this once its emulators run).
    package func startWatching(_ context: EmulatorContext, interval: Duration = .milliseconds(250)) {
        var paths = context.databaseRules.map(\.rules.path)
        if let firestore = context.firestoreRules { paths.insert(firestore.path, at: 0) }
        let started = RulesFileWatcher.start(paths: paths, interval: interval) { path, text in
            RulesLoading.reload(path: path, text: text, context: context)
        }
        watcher.withLock { $0 = started }
    }

    /// Stops hot reload (suite shutdown).
    package func stopWatching() {
        watcher.withLock {
            $0?.stop()
            $0 = nil
        }
    }

    /// Remembers a Firestore emulator whose default rules follow `firestore.rules`.
    package func attach(_ firestore: FirestoreEmulator) {
        attached.withLock { $0.firestore.append(firestore) }
    }

    /// Remembers an RTDB emulator whose namespaces follow `database.rules`.
    package func attach(_ database: DatabaseEmulator) {
        attached.withLock { $0.database.append(database) }
    }

    var firestoreEmulators: [FirestoreEmulator] { attached.withLock { $0.firestore } }
    var databaseEmulators: [DatabaseEmulator] { attached.withLock { $0.database } }
}

/// Compiling firebase.json's rules files, at start and on change, with the official CLI's lines.
package enum RulesLoading {
    /// The Firestore rules at start: the compiled file, open rules (the official default) when
    /// none is configured, or, when it does not compile, rules that deny every request but the
    /// owner's until the file is fixed (its problems printed as `path:line:col - ERROR …`). The
    /// official jar starts too but serves nothing with such a file (firebase-tools-ui#664); it
    /// never falls back to open rules.
    package static func firestoreStartGate(_ context: EmulatorContext) -> FirestoreRulesGate {
        guard let rules = context.firestoreRules else { return .allowAll }
        let compiled = FirestoreRulesEngine.compile(rules.text, fileName: rules.path, logger: logger("firestore", context),
            requestLog: context.requestLog)
        if let gate = compiled.gate { return gate }
        print(compiled.issues, path: rules.path, scope: "firestore", context.console)
        context.console.warning(
            "firestore", "Failed to load rules from \(rules.path); every request except the owner's is denied until the file is fixed.")
        return brokenRulesGate(path: rules.path, issues: compiled.issues)
    }

    /// Denies every access with PERMISSION_DENIED naming the file's first problem.
    static func brokenRulesGate(path: String, issues: [FirestoreRulesIssue]) -> FirestoreRulesGate {
        let first = issues.first.map { ": \(path):\($0.line):\($0.column) - \($0.description)" } ?? ""
        let message = "The rules file did not compile\(first). Fix the file; it is reloaded when it changes."
        return FirestoreRulesGate(decidingBatch: { _, _, _ in .permissionDenied(message) })
    }

    /// Problems in firebase.json's RTDB rules files at start, one `path:line:col: message` line
    /// each; the official CLI refuses to start then (`Failed to load initial Database Emulator rules`).
    package static func databaseStartProblems(_ context: EmulatorContext) -> [String] {
        var seen = Set<String>()
        var problems: [String] = []
        for binding in context.databaseRules where seen.insert(binding.rules.path).inserted {
            if case .failure(let diagnostics) = DatabaseRuleset.parse(binding.rules.text, fileName: binding.rules.path) {
                problems.append(diagnostics.description)
            }
        }
        return problems
    }

    /// The logger rules write `debug()` output and denials to.
    static func logger(_ label: String, _ context: EmulatorContext) -> Logger {
        ConsoleLogHandler.logger(label, console: context.console)
    }

    static func print(_ issues: [FirestoreRulesIssue], path: String, scope: String, _ console: Console) {
        for issue in issues {
            console.warning(scope, "\(path):\(issue.line):\(issue.column) - \(issue.severity) \(issue.description)")
        }
    }

    /// Applies a changed rules file to every attached emulator it configures: the file's new rules
    /// take effect for the next request, or, when it does not compile, the previous rules stay
    /// and its problems are printed. Returns whether the rules were replaced.
    @discardableResult
    package static func reload(path: String, text: String, context: EmulatorContext) -> Bool {
        var replaced = false
        if let firestore = context.firestoreRules, firestore.path == path {
            context.console.info("firestore", "Change detected, updating rules...")
            let compiled = FirestoreRulesEngine.compile(text, fileName: path, logger: logger("firestore", context),
            requestLog: context.requestLog)
            if let gate = compiled.gate {
                for emulator in context.liveRules.firestoreEmulators {
                    emulator.service.setDefaultRules(gate, replacingProject: context.projectId)
                }
                context.console.success("firestore", "Rules updated.")
                replaced = true
            } else {
                print(compiled.issues, path: path, scope: "firestore", context.console)
                context.console.warning("firestore", "Failed to update rules; the previous rules stay in force.")
            }
        }
        var databaseReplaced = false
        let bindings = context.databaseRules.filter { $0.rules.path == path }
        if !bindings.isEmpty {
            for binding in bindings {
                context.console.info("database", "Change detected, updating rules for \(binding.instance)...")
            }
            switch DatabaseRuleset.parse(text, fileName: path) {
            case .failure(let diagnostics):
                for d in diagnostics.diagnostics {
                    context.console.warning("database", "\(d.fileName):\(d.line):\(d.column) - ERROR \(d.message)")
                }
                context.console.warning("database", "Failed to update rules; the previous rules stay in force.")
            case .success:
                for binding in bindings {
                    for emulator in context.liveRules.databaseEmulators {
                        do {
                            try emulator.setRules(Array(text.utf8), namespace: binding.instance)
                            databaseReplaced = true
                        } catch {
                            context.console.warning("database", "\(path): \(error.message)")
                        }
                    }
                }
                if databaseReplaced { context.console.success("database", "Rules updated.") }
            }
        }
        return replaced || databaseReplaced
    }
}
