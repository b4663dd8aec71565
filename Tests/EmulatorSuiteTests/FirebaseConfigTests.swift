import Testing
@testable import EmulatorSuite

@Suite("firebase.json parsing")
struct FirebaseConfigTests {
    private func parse(_ text: String) throws(ConfigurationError) -> FirebaseConfig {
        try FirebaseConfig.parse(Array(text.utf8), file: "firebase.json")
    }

    @Test func emptyObjectConfiguresNothing() throws {
        let config = try parse("{}")
        #expect(config.configured.isEmpty)
        #expect(config.endpoints.isEmpty)
        #expect(config.singleProjectMode)
    }

    @Test(arguments: [
        (#"{"emulators":{"firestore":{"port":8181}}}"#, EmulatorKind.firestore, nil as String?, 8181 as Int?),
        (#"{"emulators":{"database":{"host":"0.0.0.0","port":"9005"}}}"#, .database, "0.0.0.0", 9005),
        (#"{"emulators":{"hub":{"port":4410}}}"#, .hub, nil, 4410),
        (#"{"emulators":{"firestore":{"port":8080.0}}}"#, .firestore, nil, 8080),
        (#"{"emulators":{"database":{"host":"::1"}}}"#, .database, "::1", nil),
    ])
    func endpoints(text: String, kind: EmulatorKind, host: String?, port: Int?) throws {
        let config = try parse(text)
        #expect(config.endpoints[kind] == FirebaseConfig.Endpoint(host: host, port: port))
    }

    @Test func topLevelKeysAndEmulatorKeysBothConfigure() throws {
        #expect(try parse(#"{"firestore":{}}"#).configured == [.firestore])
        #expect(try parse(#"{"emulators":{"database":{}}}"#).configured == [.database])
        #expect(try parse(#"{"emulators":{"hub":{"port":1}}}"#).configured.isEmpty)
        #expect(try parse(#"{"emulators":{"singleProjectMode":false}}"#).singleProjectMode == false)
        #expect(try parse(#"{"emulators":{"ui":{"enabled":true}}}"#).uiEnabled == true)
    }

    @Test func emulatorUISettings() throws {
        let config = try parse(#"{"emulators":{"ui":{"enabled":false,"host":"0.0.0.0","port":"4100"}}}"#)
        #expect(config.uiEnabled == false)
        #expect(config.endpoints[.ui] == FirebaseConfig.Endpoint(host: "0.0.0.0", port: 4100))
        #expect(config.configured.isEmpty)
        #expect(config.unserved.isEmpty)
        #expect(try parse(#"{"emulators":{"ui":{}}}"#).uiEnabled == nil)
        #expect(throws: ConfigurationError.self) { try parse(#"{"emulators":{"ui":{"enabled":"yes"}}}"#) }
        #expect(throws: ConfigurationError.self) { try parse(#"{"emulators":{"ui":{"port":{}}}}"#) }
    }

    @Test func firestoreRulesForms() throws {
        #expect(try parse(#"{"firestore":{"rules":"firestore.rules"}}"#).firestoreRules == .file("firestore.rules"))
        #expect(try parse(#"{"firestore":{"indexes":"x.json"}}"#).firestoreRules == .none)
        #expect(
            try parse(#"{"firestore":[{"database":"(default)","rules":"a.rules"}]}"#).firestoreRules == .file("a.rules"))
        #expect(
            try parse(#"{"firestore":[{"database":"a","rules":"a.rules"},{"target":"b","rules":"b.rules"}]}"#)
                .firestoreRules == .multipleDatabases(2))
    }

    @Test func databaseRulesForms() throws {
        #expect(
            try parse(#"{"database":{"rules":"database.rules.json"}}"#).databaseRules == [
                .init(rules: "database.rules.json")
            ])
        #expect(
            try parse(#"{"database":[{"instance":"a","rules":"a.json"},{"target":"main","rules":"b.json"}]}"#)
                .databaseRules == [.init(instance: "a", rules: "a.json"), .init(target: "main", rules: "b.json")])
    }

    @Test func malformedJSONReportsLineAndColumn() {
        let text = "{\n  \"emulators\": {\n    \"firestore\": { \"port\": 8080 \"host\": \"x\" }\n  }\n}\n"
        #expect {
            try parse(text)
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.code == .malformedJSON && error.line == 3 && error.column == 33
                && error.description.hasPrefix("firebase.json:3:33: ")
        }
    }

    @Test(arguments: [
        (#"{"emulators":{"firestore":{"port":{}}}}"#, "emulators.firestore.port must be a port number, found an object"),
        (#"{"emulators":{"database":{"port":true}}}"#, "emulators.database.port must be a port number, found a boolean"),
        (#"{"emulators":{"hub":{"host":42}}}"#, "emulators.hub.host must be a host name or address, found a number"),
        (#"{"emulators":[]}"#, "emulators must be an object, found an array"),
        (#"{"firestore":{"rules":["a"]}}"#, "firestore.rules must be a string, found an array"),
        (#"{"database":[{"instance":"a","rules":7}]}"#, "database[0].rules must be a string, found a number"),
        (#"{"emulators":{"singleProjectMode":"yes"}}"#, "emulators.singleProjectMode must be true or false, found a string"),
        (#"[1]"#, "the top level must be an object, found an array"),
    ])
    func wrongTypesNameTheKey(text: String, message: String) {
        #expect(throws: ConfigurationError(.wrongType, message, file: "firebase.json")) { try parse(text) }
    }

    @Test(arguments: [
        (#"{"emulators":{"firestore":{"port":70000}}}"#, "emulators.firestore.port must be a port number between 0 and 65535, found 70000"),
        (#"{"emulators":{"firestore":{"port":"abc"}}}"#, "emulators.firestore.port must be a port number between 0 and 65535, found \"abc\""),
        (#"{"database":[{"rules":"a.json"}]}"#, "database[0]: Must supply either \"target\" or \"instance\" in database config"),
        (#"{"firestore":[{"rules":"a"}]}"#, "firestore[0]: Must supply either \"target\" or \"databaseId\" in firestore config"),
    ])
    func invalidValues(text: String, message: String) {
        #expect(throws: ConfigurationError(.invalidValue, message, file: "firebase.json")) { try parse(text) }
    }
}
