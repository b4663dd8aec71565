#if canImport(Glibc)
import Glibc
#endif
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
        #expect(throws: ExportClient.Failure(message: "Did not find any running emulators for project demo-none.")) {
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

    @Test func exportFailsWithTheOfficialMessageWhileSnapshotsAreMissing() throws {
        let directory = TemporaryDirectory()
        var configuration = SuiteConfiguration.ephemeral(projectId: "demo-501")
        configuration.locatorDirectory = directory.path
        let suite = try Suite.start(configuration)
        defer { suite.shutdown() }
        let client = ExportClient(console: CapturedOutput().console, locatorDirectory: directory.path)
        #expect(throws: ExportClient.Failure(message: "Export request failed, see emulator logs for more information.")) {
            try client.run(projectId: "demo-501", path: directory.path + "/out", only: nil, force: false)
        }
    }
}
