import EmulatorSupport
import Testing
@testable import EmulatorSuite

@Suite("Ready banner")
struct ReadyBannerTests {
    @Test func matchesTheOfficialBoxAndTable() {
        let banner = ReadyBanner(
            rows: [.init(name: "Firestore", hostPort: "127.0.0.1:8080"), .init(name: "Database", hostPort: "127.0.0.1:9000")],
            hubHost: "127.0.0.1", hubPort: 4400)
        let expected = """

            ┌─────────────────────────────────────────────────────────────┐
            │ ✔  All emulators ready! It is now safe to connect your app. │
            └─────────────────────────────────────────────────────────────┘

            ┌───────────┬────────────────┐
            │ Emulator  │ Host:Port      │
            ├───────────┼────────────────┤
            │ Firestore │ 127.0.0.1:8080 │
            │ Database  │ 127.0.0.1:9000 │
            └───────────┴────────────────┘
              Emulator Hub host: 127.0.0.1 port: 4400

            Issues? Report them to the maintainers of this emulators suite and attach the output above.

            """
        #expect(banner.rendered == expected)
    }

    @Test func columnsWidenForLongAddressesAndReservedPortsAreListed() {
        let banner = ReadyBanner(
            rows: [.init(name: "Database", hostPort: "[::1]:19000")], hubHost: "::1", hubPort: 4400, reservedPorts: [9150])
        let lines = banner.rendered.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.contains("│ Database │ [::1]:19000 │"))
        #expect(lines.contains("├──────────┼─────────────┤"))
        #expect(lines.contains("  Other reserved ports: 9150"))
    }

    @Test func scriptsFindTheReadyLine() {
        let banner = ReadyBanner(rows: [], hubHost: "127.0.0.1", hubPort: 4400)
        #expect(banner.rendered.contains("All emulators ready! It is now safe to connect your app."))
    }
}

@Suite("Console lines")
struct SuiteNoticeTests {
    @Test(arguments: [
        (SuiteNotice(.info, "firestore", "Listening"), "i  firestore: Listening"),
        (SuiteNotice(.warning, nil, "Careful"), "⚠  Careful"),
        (SuiteNotice(.success, nil, "Export complete"), "✔  Export complete"),
    ])
    func rendersInTheOfficialStyle(notice: SuiteNotice, line: String) {
        #expect(notice.rendered == line)
    }

    @Test func verbosityFilters() {
        let info = SuiteNotice(.info, nil, "x"), warning = SuiteNotice(.warning, nil, "x"), debug = SuiteNotice(.debug, nil, "x")
        #expect(debug.isShown(at: .debug) && !debug.isShown(at: .info))
        #expect(info.isShown(at: .info) && !info.isShown(at: .quiet))
        #expect(warning.isShown(at: .quiet) && !warning.isShown(at: .silent))
        #expect(SuiteNotice(.error, nil, "x").isShown(at: .silent))
    }
}
