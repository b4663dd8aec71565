import EmulatorSupport
import Testing
@testable import EmulatorSuite

@Suite("Command line")
struct CommandLineParserTests {
    private func start(_ edit: (inout StartOptions) -> Void) -> Command {
        var options = StartOptions()
        edit(&options)
        return .start(options)
    }

    @Test func bothSpellingsOfStart() throws {
        #expect(try CommandLineParser.parse(["start"]) == .start(StartOptions()))
        #expect(try CommandLineParser.parse(["emulators:start"]) == .start(StartOptions()))
    }

    @Test func flagsWithSeparateAndInlineValues() throws {
        let expected = start {
            $0.only = ["firestore", "database"]
            $0.project = "demo-x"
            $0.configPath = "alt.json"
            $0.verbosity = .quiet
            $0.importDirectory = "data"
        }
        #expect(
            try CommandLineParser.parse([
                "start", "--only", "firestore,database", "-P", "demo-x", "-c", "alt.json", "--log-verbosity", "QUIET",
                "--import", "data",
            ]) == expected)
        #expect(
            try CommandLineParser.parse([
                "--project=demo-x", "emulators:start", "--only=firestore,database", "--config=alt.json",
                "--log-verbosity=quiet", "--import=data",
            ]) == expected)
    }

    @Test func exportOnExitTakesAnOptionalDirectory() throws {
        #expect(try CommandLineParser.parse(["start", "--export-on-exit"]) == start { $0.exportOnExit = .some(nil) })
        #expect(try CommandLineParser.parse(["start", "--export-on-exit", "out"]) == start { $0.exportOnExit = "out" })
        #expect(
            try CommandLineParser.parse(["start", "--export-on-exit", "--import", "d"])
                == start {
                    $0.exportOnExit = .some(nil)
                    $0.importDirectory = "d"
                })
    }

    @Test func dataDirectoryFlags() throws {
        #expect(try CommandLineParser.parse(["start", "--data-dir", "live"]) == start { $0.dataDirectory = "live" })
        #expect(
            try CommandLineParser.parse(["exec", "--data-dir=live", "--data-dir-no-fsync", "true"])
                == {
                    var options = StartOptions()
                    options.dataDirectory = "live"
                    options.dataDirectoryFsync = false
                    options.showUI = false
                    return Command.exec(script: "true", options: options)
                }())
        #expect(throws: UsageError.self) { try CommandLineParser.parse(["export", "out", "--data-dir", "x"]) }
    }

    @Test func debugAndNonInteractiveAreAcceptedGlobally() throws {
        #expect(try CommandLineParser.parse(["--debug", "--non-interactive", "start"]) == start { $0.verbosity = .debug })
    }

    @Test func execTakesOneScript() throws {
        #expect(
            try CommandLineParser.parse(["exec", "--only", "firestore", "npm test"])
                == .exec(script: "npm test", options: { var o = StartOptions(); o.only = ["firestore"]; o.showUI = false; return o }()))
    }

    /// As officially: `start` serves the Emulator UI, `exec` only with `--ui`.
    @Test func uiRunsWithStartAndWithExecUI() throws {
        #expect(
            try CommandLineParser.parse(["emulators:exec", "--ui", "./run.sh"])
                == .exec(script: "./run.sh", options: { var o = StartOptions(); o.requiresUI = true; return o }()))
        #expect(StartOptions().showUI)
        guard case .exec(_, let options) = try CommandLineParser.parse(["exec", "./run.sh"]) else {
            Issue.record("not exec")
            return
        }
        #expect(!options.showUI)
        #expect(try CommandLineParser.parse(["start"]) == .start(StartOptions()))
        #expect(throws: UsageError.self) { try CommandLineParser.parse(["start", "--ui"]) }
    }

    @Test func exportTakesADirectory() throws {
        var options = ExportOptions(path: "backup")
        options.force = true
        options.only = ["firestore"]
        options.project = "demo-x"
        #expect(try CommandLineParser.parse(["export", "backup", "--force", "--only", "firestore", "-P", "demo-x"]) == .export(options))
    }

    @Test func helpAndVersion() throws {
        #expect(try CommandLineParser.parse([]) == .help(nil))
        #expect(try CommandLineParser.parse(["--help"]) == .help(nil))
        #expect(try CommandLineParser.parse(["help", "exec"]) == .help(.exec))
        #expect(try CommandLineParser.parse(["start", "-h"]) == .help(.start))
        #expect(try CommandLineParser.parse(["export", "--help"]) == .help(.export))
        #expect(try CommandLineParser.parse(["--version"]) == .version)
    }

    @Test(arguments: [
        (["start", "--bogus"], "unknown option '--bogus'"),
        (["start", "--only"], "option '--only' needs a value"),
        (["start", "--force"], "'start' does not take option '--force'"),
        (["export", "d", "--import", "x"], "'export' does not take option '--import'"),
        (["start", "extra"], "unexpected argument 'extra'"),
        (["exec"], "missing the script to run"),
        (["exec", "npm", "test"], "unexpected argument 'test' (quote the whole script)"),
        (["export"], "missing the export directory"),
        (["launch"], "unknown command 'launch'"),
        (["start", "--log-verbosity", "LOUD"], "option '--log-verbosity' must be one of DEBUG, INFO, QUIET, SILENT (got 'LOUD')"),
        (["start", "--force=yes"], "option '--force' does not take a value"),
        (["start", "--data-dir-no-fsync"], "option '--data-dir-no-fsync' needs '--data-dir <dir>'"),
        (["exec", "--data-dir-no-fsync", "true"], "option '--data-dir-no-fsync' needs '--data-dir <dir>'"),
    ])
    func usageErrors(arguments: [String], message: String) {
        #expect {
            try CommandLineParser.parse(arguments)
        } throws: { error in
            (error as? UsageError)?.message == message
        }
    }

    @Test func usageErrorsExitTwoWithUsageOnStandardError() {
        let output = CapturedOutput()
        let status = CommandRunner(console: output.console).run(["start", "--bogus"])
        #expect(status == 2)
        #expect(output.standardError.hasPrefix("error: unknown option '--bogus'\n\nUsage: emulators start"))
        #expect(output.standardOutput.isEmpty)
    }

    @Test(arguments: [
        (["strat"], "start" as String?), (["emulators:strat"], "emulators:start"), (["expotr", "d"], "export"),
        (["exce", "true"], "exec"), (["hlep"], "help"), (["start", "--iport", "d"], "--import"),
        (["start", "--onyl", "firestore"], "--only"), (["exec", "--ui", "--exprt-on-exit"], "--export-on-exit"),
        (["export", "d", "--froce"], "--force"), (["start", "--froce"], nil), (["launch"], nil), (["start", "--bogus"], nil),
    ])
    func typosGetTheNearestSpelling(arguments: [String], suggestion: String?) {
        #expect {
            try CommandLineParser.parse(arguments)
        } throws: { error in
            (error as? UsageError)?.suggestion == suggestion
        }
    }

    @Test func aTypoIsAnsweredWithTheSuggestionNotTheWholeUsage() {
        let output = CapturedOutput()
        #expect(CommandRunner(console: output.console).run(["strat"]) == 2)
        #expect(output.standardError == "error: unknown command 'strat'\nDid you mean 'start'? Run 'emulators help' for usage.\n")
        let option = CapturedOutput()
        #expect(CommandRunner(console: option.console).run(["start", "--onyl=firestore"]) == 2)
        #expect(option.standardError == "error: unknown option '--onyl'\nDid you mean '--only'? Run 'emulators help start' for usage.\n")
    }

    @Test func dataDirectoryNoFsyncWithoutADataDirectoryExitsTwo() {
        let output = CapturedOutput()
        let status = CommandRunner(console: output.console).run(["start", "--data-dir-no-fsync"])
        #expect(status == 2)
        #expect(output.standardError.hasPrefix(
            "error: option '--data-dir-no-fsync' needs '--data-dir <dir>'\n\nUsage: emulators start"))
    }

    @Test func helpPrintsOnStandardOutputAndExitsZero() {
        let output = CapturedOutput()
        #expect(CommandRunner(console: output.console).run(["help", "start"]) == 0)
        #expect(output.standardOutput.contains("Usage: emulators start [options]"))
        #expect(output.standardOutput.contains("--export-on-exit [dir]"))
    }
}
