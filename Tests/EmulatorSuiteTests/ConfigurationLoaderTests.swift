#if canImport(Glibc)
import Glibc
#endif
import EmulatorTestSupport
import Testing
@testable import EmulatorSuite

@Suite("Resolving firebase.json, .firebaserc and flags")
struct ConfigurationLoaderTests {
    private func load(_ directory: TemporaryDirectory, _ edit: (inout StartOptions) -> Void = { _ in })
        throws(ConfigurationError) -> SuiteConfiguration
    {
        var options = StartOptions()
        edit(&options)
        return try ConfigurationLoader.load(options, workingDirectory: directory.path)
    }

    @Test func withoutFirebaseJSONTheOfficialDefaultsApply() throws {
        let directory = TemporaryDirectory()
        let configuration = try load(directory)
        #expect(configuration.projectId == "demo-no-project")
        #expect(configuration.configFile == nil)
        #expect(configuration.listeners[.firestore] == ListenAddress(host: "127.0.0.1", port: 8080, isFixed: true))
        #expect(configuration.listeners[.database] == ListenAddress(host: "127.0.0.1", port: 9000, isFixed: true))
        #expect(configuration.listeners[.hub] == ListenAddress(host: "127.0.0.1", port: 4400, isFixed: false))
        #expect(configuration.notices.contains(SuiteNotice(.warning, nil, "Could not find config (firebase.json) so using defaults.")))
    }

    @Test func portsHostsAndRulesComeFromFirebaseJSON() throws {
        let directory = TemporaryDirectory()
        directory.write("firestore.rules", "rules_version = '2';")
        directory.write("rules/db.json", #"{"rules":{".read":true}}"#)
        directory.write(
            "firebase.json",
            #"""
            {"firestore": {"rules": "firestore.rules"},
             "database": {"rules": "rules/db.json"},
             "emulators": {"firestore": {"port": 8181}, "database": {"host": "0.0.0.0", "port": 9001},
                           "hub": {"port": 4410}, "singleProjectMode": false}}
            """#)
        let configuration = try load(directory) { $0.project = "demo-app" }
        #expect(configuration.projectId == "demo-app")
        #expect(configuration.configFile == directory.path + "/firebase.json")
        #expect(configuration.listeners[.firestore] == ListenAddress(host: "127.0.0.1", port: 8181, isFixed: true))
        #expect(configuration.listeners[.database] == ListenAddress(host: "0.0.0.0", port: 9001, isFixed: true))
        #expect(configuration.listeners[.hub] == ListenAddress(host: "127.0.0.1", port: 4410, isFixed: true))
        #expect(configuration.firestoreRules == RulesSource(path: directory.path + "/firestore.rules", text: "rules_version = '2';"))
        #expect(configuration.databaseRules.map(\.instance) == ["demo-app-default-rtdb"])
        #expect(configuration.databaseRules.first?.rules.text == #"{"rules":{".read":true}}"#)
        #expect(configuration.singleProjectMode == false)
    }

    @Test func firebasercGivesTheDefaultProjectAliasesAndDatabaseTargets() throws {
        let directory = TemporaryDirectory()
        directory.write("a.json", "{}")
        directory.write(
            ".firebaserc",
            #"{"projects":{"default":"demo-default","staging":"demo-staging"},"targets":{"demo-staging":{"database":{"main":["inst-1","inst-2"]}}}}"#)
        directory.write("firebase.json", #"{"database":[{"target":"main","rules":"a.json"}]}"#)
        #expect(try load(directory).projectId == "demo-default")
        let staging = try load(directory) { $0.project = "staging" }
        #expect(staging.projectId == "demo-staging")
        #expect(staging.databaseRules.map(\.instance) == ["inst-1", "inst-2"])
        #expect(try load(directory) { $0.project = "other" }.projectId == "other")
    }

    @Test func onlyNarrowsTheSetAndWarnsAboutUnconfiguredEmulators() throws {
        let directory = TemporaryDirectory()
        directory.write("firebase.json", #"{"firestore":{}}"#)
        let configuration = try load(directory) { $0.only = ["firestore", "database"] }
        #expect(configuration.emulators == [.firestore])
        #expect(Set(configuration.listeners.keys) == [.firestore, .hub, .ui])
        #expect(configuration.notices.contains(SuiteNotice(
            .warning, nil, "Not starting the database emulator, make sure you have run firebase init.")))
    }

    @Test func configuredEmulatorsThisSuiteDoesNotRunAreNamedOnce() throws {
        let directory = TemporaryDirectory()
        directory.write(
            "firebase.json",
            #"{"emulators":{"auth":{"port":9099},"firestore":{},"functions":{},"storage":{},"ui":{},"hosting":{},"pubsub":{},"eventarc":{},"nonsense":{}}}"#)
        let configuration = try load(directory)
        #expect(configuration.emulators == [.firestore])
        let warnings = configuration.notices.filter { $0.level == .warning && $0.scope == "emulators" }
        #expect(warnings == [SuiteNotice(
            .warning, "emulators",
            "firebase.json configures auth, functions, storage, hosting, pubsub, eventarc, which this suite does not run; it serves only firestore, database and the hub.")])
        directory.write("firebase.json", #"{"emulators":{"firestore":{},"database":{}}}"#)
        #expect(try load(directory).notices.allSatisfy { $0.scope != "emulators" || $0.level != .warning })
    }

    @Test func nothingLeftToStartIsFatal() {
        let directory = TemporaryDirectory()
        directory.write("firebase.json", #"{"hosting":{}}"#)
        #expect(throws: ConfigurationError(.nothingToStart, "No emulators to start, run firebase init emulators to get started.")) {
            try load(directory)
        }
    }

    @Test func missingRulesFileWarnsAndLeavesRulesOpen() throws {
        let directory = TemporaryDirectory()
        directory.write("firebase.json", #"{"firestore":{"rules":"nope.rules"}}"#)
        let configuration = try load(directory)
        #expect(configuration.firestoreRules == nil)
        #expect(configuration.notices.contains { $0.level == .warning && $0.scope == "firestore" && $0.text.contains("nope.rules") })
    }

    @Test func explicitConfigThatDoesNotExistIsFatal() {
        let directory = TemporaryDirectory()
        #expect(throws: ConfigurationError.self) { try load(directory) { $0.configPath = "missing.json" } }
    }

    @Test func malformedFirebasercNamesTheFile() {
        let directory = TemporaryDirectory()
        directory.write(".firebaserc", "{\"projects\": }")
        #expect {
            try load(directory)
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.code == .malformedJSON && error.description.hasPrefix(directory.path + "/.firebaserc:1:14: ")
        }
    }
}

@Suite("--only")
struct EmulatorSelectionTests {
    static let cases: [([String], Set<EmulatorKind>)] = [
        (["firestore"], [.firestore]),
        (["database:main", "firestore:rules"], [.firestore, .database]),
        (["hub"], []),
        ([" firestore "], [.firestore]),
    ]

    @Test(arguments: cases)
    func selects(only: [String], expected: Set<EmulatorKind>) throws {
        #expect(try EmulatorSelection.resolve(only: only, configured: [.firestore, .database]).kinds == expected)
    }

    @Test func unknownNamesGetTheOfficialMessage() {
        let valid = #"["apphosting","auth","functions","firestore","database","hosting","pubsub","storage","eventarc","dataconnect","tasks"]"#
        #expect(throws: ConfigurationError(.invalidSelection, "fire is not a valid emulator name, valid options are: \(valid)")) {
            try EmulatorSelection.resolve(only: ["fire"], configured: [.firestore])
        }
    }

    @Test func officialButUnsupportedNamesSaySo() {
        #expect {
            try EmulatorSelection.resolve(only: ["auth", "firestore"], configured: [.firestore])
        } throws: { error in
            (error as? ConfigurationError)?.message.hasPrefix("auth is not supported by this suite") == true
        }
    }
}

@Suite("--import and --export-on-exit")
struct DataDirectoriesTests {
    @Test func exportOnExitWithoutADirectoryNeedsImport() {
        #expect {
            try DataDirectories.resolve(importDirectory: nil, exportOnExit: .some(nil), workingDirectory: "/tmp")
        } throws: { error in
            (error as? ConfigurationError)?.message
                == "\"--export-on-exit\" must be used with \"--import\" or provide a dir directly to \"--export-on-exit [dir]\""
        }
    }

    @Test(arguments: [".", "..", "/"])
    func exportOnExitMustNotBeTheWorkingDirectoryOrAParent(directory: String) {
        #expect {
            try DataDirectories.resolve(importDirectory: nil, exportOnExit: .some(directory), workingDirectory: "/tmp/app")
        } throws: { error in
            (error as? ConfigurationError)?.message.hasPrefix("\"--export-on-exit\" must not point to the current directory or parents.") == true
        }
    }

    @Test func missingImportDirectoryIsFatalUnlessItIsTheExportDirectory() throws {
        let directory = TemporaryDirectory()
        #expect(throws: ConfigurationError(.invalidDataDirectory, "Directory \"\(directory.path)/data\" does not exist.")) {
            try DataDirectories.resolve(importDirectory: "data", exportOnExit: nil, workingDirectory: directory.path)
        }
        let firstRun = try DataDirectories.resolve(
            importDirectory: "data", exportOnExit: .some(nil), workingDirectory: directory.path)
        #expect(firstRun.importPlan == nil)
        #expect(firstRun.exportOnExit == directory.path + "/data")
    }

    /// An export killed between moving the old snapshot aside and renaming the new one into
    /// place leaves `.data.previous-<pid>`: the next start puts it back and imports it, instead of
    /// taking `data` for a first run (whose export at exit would then replace the snapshot).
    @Test func aSnapshotLeftAsideByAnInterruptedExportIsRestoredAndImported() throws {
        let directory = TemporaryDirectory()
        directory.write(".data.previous-999999-1/firebase-export-metadata.json", "{}")
        let resolved = try DataDirectories.resolve(
            importDirectory: "data", exportOnExit: .some(nil), workingDirectory: directory.path)
        #expect(resolved.importPlan == ImportPlan(
            directory: directory.path + "/data",
            source: .emulatorExport(metadataFile: directory.path + "/data/firebase-export-metadata.json")))
        #expect(LocalFiles.list(directory.path) == ["data"])
        #expect(resolved.notices.contains { $0.text.hasPrefix("Restored \"\(directory.path)/data\"") })

        // A live process's leftovers are not touched (it may still be exporting).
        let other = TemporaryDirectory()
        other.write(".data.previous-\(getpid())-1/firebase-export-metadata.json", "{}")
        #expect(throws: ConfigurationError(.invalidDataDirectory, "Directory \"\(other.path)/data\" does not exist.")) {
            try DataDirectories.resolve(importDirectory: "data", exportOnExit: nil, workingDirectory: other.path)
        }
    }

    @Test func exportOnExitTargetTheExportWouldRefuseFailsAtStart() throws {
        let directory = TemporaryDirectory()
        directory.write("notes.txt", "keep me")
        directory.write("mine/thesis.tex", "keep me too")
        directory.write("mine/firestore_export/x", "")
        #expect(throws: ConfigurationError(
            .invalidDataDirectory, "Export target \"\(directory.path)/notes.txt\" is a file, not a directory.")) {
            try DataDirectories.resolve(importDirectory: nil, exportOnExit: .some("notes.txt"), workingDirectory: directory.path)
        }
        #expect(throws: ConfigurationError(
            .invalidDataDirectory,
            "Export target \"\(directory.path)/mine\" is not empty and does not hold an emulator export (it contains \"thesis.tex\"); refusing to replace it.")) {
            try DataDirectories.resolve(importDirectory: "mine", exportOnExit: .some(nil), workingDirectory: directory.path)
        }
    }

    @Test func exportOnExitTargetThatIsMissingEmptyOrAnExportIsAccepted() throws {
        let directory = TemporaryDirectory()
        directory.write("export/firebase-export-metadata.json", "{}")
        directory.write("export/firestore_export/x", "")
        directory.write("export/database_export/demo.json", "{}")
        directory.write("export/auth_export/x", "")
        directory.write("export/storage_export/x", "")
        LocalFiles.makeDirectories(directory.path + "/empty")
        for target in ["missing", "missing/deeper", "empty", "export"] {
            let resolved = try DataDirectories.resolve(
                importDirectory: nil, exportOnExit: .some(target), workingDirectory: directory.path)
            #expect(resolved.exportOnExit == directory.path + "/" + target)
        }
    }

    @Test func importDetectsTheKindOfExport() throws {
        let directory = TemporaryDirectory()
        directory.write("emu/firebase-export-metadata.json", "{}")
        directory.write("prod/x.overall_export_metadata", "")
        directory.write("rtdb/a.json", "{}")
        directory.write("empty/readme.txt", "")
        func plan(_ name: String) throws -> ImportPlan.Source? {
            try DataDirectories.resolve(importDirectory: name, exportOnExit: nil, workingDirectory: directory.path)
                .importPlan?.source
        }
        #expect(try plan("emu") == .emulatorExport(metadataFile: directory.path + "/emu/firebase-export-metadata.json"))
        #expect(try plan("prod") == .productionFirestore(metadataFile: directory.path + "/prod/x.overall_export_metadata"))
        #expect(try plan("rtdb") == .productionDatabase(files: [directory.path + "/rtdb/a.json"]))
        let empty = try DataDirectories.resolve(importDirectory: "empty", exportOnExit: nil, workingDirectory: directory.path)
        #expect(empty.importPlan == nil)
        #expect(empty.notices.map(\.text) == ["Could not find import/export metadata file, skipping data import!"])
    }
}
