import EmulatorTestSupport
import Testing
@testable import EmulatorSuite

@Suite("emulators.ui in firebase.json")
struct ConfigurationLoaderUITests {
    private func load(_ json: String?, _ edit: (inout StartOptions) -> Void = { _ in }) throws -> SuiteConfiguration {
        let directory = TemporaryDirectory()
        if let json { directory.write("firebase.json", json) }
        var options = StartOptions()
        edit(&options)
        return try ConfigurationLoader.load(options, workingDirectory: directory.path)
    }

    @Test func startServesTheUIOnItsDefaultPortWhichMayMove() throws {
        let configuration = try load(#"{"firestore":{}}"#)
        #expect(configuration.listeners[.ui] == ListenAddress(host: "127.0.0.1", port: 4000, isFixed: false))
        #expect(configuration.emulators == [.firestore])
        #expect(try load(nil).listeners[.ui] != nil)
    }

    @Test func hostAndPortFromFirebaseJSONAreFixed() throws {
        let configuration = try load(#"{"firestore":{},"emulators":{"ui":{"host":"0.0.0.0","port":4100}}}"#)
        #expect(configuration.listeners[.ui] == ListenAddress(host: "0.0.0.0", port: 4100, isFixed: true))
    }

    @Test func disabledInFirebaseJSONOrExecWithoutUIMeansNoUI() throws {
        #expect(try load(#"{"firestore":{},"emulators":{"ui":{"enabled":false}}}"#).listeners[.ui] == nil)
        #expect(try load(#"{"firestore":{}}"#) { $0.showUI = false }.listeners[.ui] == nil)
        #expect(try load(#"{"firestore":{},"emulators":{"ui":{"enabled":false}}}"#) { $0.showUI = true }.listeners[.ui] == nil)
    }

    /// As the official CLI: `exec --ui` starts the UI even when firebase.json disables it.
    @Test func execUIWinsOverEnabledFalse() throws {
        let configuration = try load(#"{"firestore":{},"emulators":{"ui":{"enabled":false}}}"#) {
            $0.showUI = true
            $0.requiresUI = true
        }
        #expect(configuration.listeners[.ui] != nil)
    }

    @Test func theUIIsNotAnUnservedEmulator() throws {
        let configuration = try load(#"{"firestore":{},"emulators":{"ui":{"enabled":true}}}"#)
        #expect(!configuration.notices.contains { $0.text.contains("which this suite does not run") })
    }
}
