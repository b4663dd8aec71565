#if canImport(Glibc)
import EmulatorSupport
import EmulatorTestSupport
import Glibc
#endif
import EmulatorPosix
import Synchronization
import Testing
@testable import EmulatorSuite

@Suite("exec and export")
struct ExecAndExportTests {
    @Test(arguments: [("exit 0", ScriptRunner.Termination.exited(0)), ("exit 7", .exited(7)), ("kill -9 $$", .signaled(SIGKILL))])
    func scriptTermination(script: String, expected: ScriptRunner.Termination) throws {
        let runner = ScriptRunner()
        let pid = try #require(runner.spawn(script, environment: [:]))
        var result: ScriptRunner.Termination?
        let deadline = ContinuousClock.now + .seconds(10)
        while result == nil && ContinuousClock.now < deadline {
            result = runner.poll(pid)
            usleep(2_000)
        }
        #expect(result == expected)
    }

    @Test func scriptSeesTheExtraEnvironment() throws {
        let directory = TemporaryDirectory()
        let runner = ScriptRunner()
        let pid = try #require(runner.spawn(
            "printf %s \"$FIRESTORE_EMULATOR_HOST\" > \(directory.path)/out", environment: ["FIRESTORE_EMULATOR_HOST": "127.0.0.1:1"]))
        while runner.poll(pid) == nil { usleep(2_000) }
        #expect(LocalFiles.read(directory.path + "/out").map { String(decoding: $0, as: UTF8.self) } == "127.0.0.1:1")
    }

    @Test func exportWithoutARunningSuiteSaysSo() {
        let directory = TemporaryDirectory()
        let client = ExportClient(console: CapturedOutput().console, locatorDirectory: directory.path)
        #expect(throws: ExportClient.Failure(
            message: "Did not find any running emulators for project demo-none.",
            hint: "Looked for \(directory.path)/hub-demo-none.json, which a running suite of that project writes. Start one with "
                + "'emulators start', or name the running suite's project with -P <project>.")) {
            try client.run(projectId: "demo-none", path: directory.path + "/out", only: nil, force: false)
        }
    }

    @Test func exportWithAStaleLocatorReportsTheFailedStatusCheck() {
        let directory = TemporaryDirectory()
        directory.write("hub-demo-stale.json", #"{"version":"0.1.0","origins":["http://127.0.0.1:1"],"pid":1}"#)
        let client = ExportClient(console: CapturedOutput().console, locatorDirectory: directory.path)
        #expect {
            try client.run(projectId: "demo-stale", path: directory.path + "/out", only: nil, force: false)
        } throws: { error in
            (error as? ExportClient.Failure)?.message
                == "The emulator hub for demo-stale did not respond to a status check. If this error continues try shutting down all running emulators and deleting the file \(directory.path)/hub-demo-stale.json"
        }
    }

    @Test func exportReachesTheHubAndReportsItsAnswer() throws {
        let directory = TemporaryDirectory()
        var configuration = SuiteConfiguration.ephemeral(projectId: "demo-export")
        configuration.locatorDirectory = directory.path
        let seen = CapturedExports()
        let hooks = SnapshotHooks(importData: { _, _ throws(SnapshotFailure) in }, exportData: { request, _ throws(SnapshotFailure) in seen.append(request) })
        let suite = try Suite.start(configuration, hooks: hooks)
        defer { suite.shutdown() }
        let output = CapturedOutput()
        let client = ExportClient(console: output.console, locatorDirectory: directory.path)
        try client.run(projectId: "demo-export", path: directory.path + "/backup", only: ["database"], force: false)
        #expect(seen.all == [ExportRequest(path: directory.path + "/backup", initiatedBy: "emulators:export", targets: [.database])])
        #expect(output.standardOutput.hasSuffix("✔  Export complete\n"))
        #expect(LocalFiles.kind(directory.path + "/backup") == .directory)

        directory.write("backup/firebase-export-metadata.json", "{}")
        #expect(throws: ExportClient.Failure(message: "Export already exists in the target directory, re-run with --force to overwrite.")) {
            try client.run(projectId: "demo-export", path: directory.path + "/backup", only: nil, force: false)
        }
        try client.run(projectId: "demo-export", path: directory.path + "/backup", only: nil, force: true)
        #expect(seen.all.count == 2)
    }

    /// Over loopback: the hub answers `GET /` while an export runs, the export's own answer
    /// arrives when it ends, and a shutdown that starts meanwhile waits for it to finish.
    @Test func aLongExportNeitherBlocksTheHubNorIsCutByTheShutdown() throws {
        let directory = TemporaryDirectory()
        var configuration = SuiteConfiguration.ephemeral(projectId: "demo-long-export")
        configuration.locatorDirectory = directory.path
        let gate = ExportGate()
        let hooks = SnapshotHooks(
            importData: { _, _ throws(SnapshotFailure) in }, exportData: { request, _ throws(SnapshotFailure) in gate.run(request.path) })
        let suite = try Suite.start(configuration, hooks: hooks)
        let hub = try #require(suite.port(of: .hub))
        let answer = Watched<Int?>(nil)
        let posted = PosixThread.spawn {
            let reply = try? LoopbackHTTPClient.send(
                .init(method: "POST", host: "127.0.0.1", port: hub, path: "/_admin/export", body: Array(#"{"path":"/tmp/long"}"#.utf8)))
            answer.update { $0 = reply?.status ?? -1 }
        }
        #expect(posted)
        #expect(gate.waitUntilStarted(1))
        // New connections go to the server's loops in turn: four reach every loop.
        for _ in 0..<4 {
            let root = try LoopbackHTTPClient.send(.init(method: "GET", host: "127.0.0.1", port: hub, path: "/", timeout: .seconds(2)))
            #expect(root.status == 200)
        }
        #expect(answer.current == nil)
        gate.open()
        answer.wait(seconds: 5) { $0 != nil }
        #expect(answer.current == 200)

        // A second export, still running when the shutdown starts: the shutdown waits for it.
        let again = PosixThread.spawn {
            _ = try? LoopbackHTTPClient.send(
                .init(method: "POST", host: "127.0.0.1", port: hub, path: "/_admin/export", body: Array(#"{"path":"/tmp/again"}"#.utf8)))
        }
        #expect(again)
        gate.close()
        #expect(gate.waitUntilStarted(2))
        PosixThread.spawn {
            usleep(300_000)
            gate.open()
        }
        suite.shutdown(gracePeriod: .milliseconds(50))
        #expect(gate.finished == 2, "the shutdown returned while an export was still running")
    }

    @Test func exportFailsWithTheOfficialMessageWhenTheHookCannotExport() throws {
        let directory = TemporaryDirectory()
        var configuration = SuiteConfiguration.ephemeral(projectId: "demo-501")
        configuration.locatorDirectory = directory.path
        let hooks = SnapshotHooks(
            importData: { _, _ throws(SnapshotFailure) in },
            exportData: { _, _ throws(SnapshotFailure) in throw SnapshotFailure(.notImplemented, "Exporting data is not implemented") })
        let suite = try Suite.start(configuration, hooks: hooks)
        defer { suite.shutdown() }
        let client = ExportClient(console: CapturedOutput().console, locatorDirectory: directory.path)
        #expect(throws: ExportClient.Failure(message: "Export request failed, see emulator logs for more information.")) {
            try client.run(projectId: "demo-501", path: directory.path + "/out", only: nil, force: false)
        }
    }
}

@Suite("Configuration errors through the command runner")
struct CommandRunnerConfigurationTests {
    private func run(_ arguments: [String], in directory: TemporaryDirectory) -> (Int32, CapturedOutput) {
        let output = CapturedOutput()
        let status = CommandRunner(console: output.console(verbosity: .info), workingDirectory: directory.path).run(arguments)
        return (status, output)
    }

    @Test func malformedFirebaseJSONExitsOneNamingFileLineAndColumn() {
        let directory = TemporaryDirectory()
        directory.write("firebase.json", "{\n  \"emulators\": {\n    \"firestore\": { \"port\": 8080, }\n  }\n}\n")
        let (status, output) = run(["start"], in: directory)
        #expect(status == 1)
        #expect(output.standardError.contains("Error: There was an error loading \(directory.path)/firebase.json:3:"))
        #expect(!output.standardOutput.contains("All emulators ready"))
    }

    @Test func wrongTypeExitsOneNamingTheKey() {
        let directory = TemporaryDirectory()
        directory.write("firebase.json", #"{"emulators":{"hub":{"port":[4400]}}}"#)
        let (status, output) = run(["exec", "true"], in: directory)
        #expect(status == 1)
        #expect(output.standardError.contains("\(directory.path)/firebase.json: emulators.hub.port must be a port number, found an array"))
    }

    @Test func invalidDataDirectoriesExitOneWithTheOfficialMessage() {
        let directory = TemporaryDirectory()
        let (status, output) = run(["start", "--export-on-exit"], in: directory)
        #expect(status == 1)
        #expect(output.standardError.contains(
            "\"--export-on-exit\" must be used with \"--import\" or provide a dir directly to \"--export-on-exit [dir]\""))
    }

    @Test func exportOnExitIntoAFileExitsOneBeforeStarting() {
        let directory = TemporaryDirectory()
        directory.write("firebase.json", #"{"emulators":{"firestore":{"port":0},"hub":{"port":0}}}"#)
        directory.write("data", "not a directory")
        // exec, so that a suite that does start (the bug) stops again and the test fails instead of hanging.
        let (status, output) = run(["exec", "--export-on-exit", "data", "true"], in: directory)
        #expect(status == 1)
        #expect(output.standardError.contains("Error: Export target \"\(directory.path)/data\" is a file, not a directory."))
        #expect(!output.standardOutput.contains("Starting emulators"))
    }

    @Test func exportOnExitThatCannotExportExitsOneSayingSo() {
        let directory = TemporaryDirectory()
        directory.write("firebase.json", #"{"emulators":{"database":{"port":0},"hub":{"port":0}}}"#)
        // The target is free at start; the script puts a file there, so the export at exit fails.
        let (status, output) = run(["exec", "--export-on-exit", "data", "echo x > \(directory.path)/data"], in: directory)
        #expect(status == 1)
        #expect(output.standardError.contains("Error: --export-on-exit could not export to \"\(directory.path)/data\""))
    }

    @Test func exportWithNoSuiteExitsOne() {
        let directory = TemporaryDirectory()
        directory.write(".firebaserc", #"{"projects":{"default":"demo-rc"}}"#)
        let output = CapturedOutput()
        let status = CommandRunner(console: output.console, workingDirectory: directory.path)
            .run(["export", "out"])
        #expect(status == 1)
        #expect(output.standardError.contains("Did not find any running emulators for project demo-rc."))
    }
}

@Suite("Verbosity")
struct VerbosityTests {
    @Test func silentPrintsNothingAndQuietOnlyWarnings() throws {
        for (verbosity, expectInfo, expectWarning) in [(LogVerbosity.silent, false, false), (.quiet, false, true), (.info, true, true)] {
            var configuration = SuiteConfiguration.ephemeral()
            configuration.notices = [SuiteNotice(.warning, "firestore", "careful")]
            let output = CapturedOutput()
            let suite = try Suite.start(configuration, console: output.console(verbosity: verbosity))
            suite.shutdown()
            #expect(output.standardOutput.contains("i  emulators: Starting emulators") == expectInfo)
            #expect(output.standardOutput.contains("⚠  firestore: careful") == expectWarning)
        }
    }
}

@Suite("Debug request log")
struct DebugRequestLogTests {
    @Test func debugVerbosityLogsEachRequest() throws {
        let output = CapturedOutput()
        let suite = try Suite.start(.ephemeral(), console: output.console(verbosity: .debug))
        defer { suite.shutdown() }
        let port = try #require(suite.port(of: .hub))
        _ = try LoopbackHTTPClient.send(.init(method: "GET", host: "127.0.0.1", port: port, path: "/emulators"))
        #expect(output.standardOutput.contains("[debug] hub: GET /emulators → 200\n"))
    }
}
