import DatabaseEmulator
import EmulatorHTTP
import Testing

@Suite struct SettingsOriginTests {
    /// `.settings` takes admin credentials in the query, so a page on another site could send
    /// them through the user's browser: only loopback origins (and tools, with no `Origin`) may.
    @Test func settingsRefuseForeignOrigins() {
        let db = DatabaseTestClient()
        let rules = #"{"rules":{".read":false}}"#
        let evil = db.send(.put, "/.settings/rules.json?ns=s&access_token=owner", rules, headers: [("Origin", "https://evil.example")])
        #expect(evil.status.code == 403)
        #expect(errorText(evil) == AdminOriginCheck.refusal)
        let current = db.get("/.settings/rules.json?ns=s&access_token=owner")
        #expect(!String(decoding: current.bodyBytes, as: UTF8.self).contains(#"".read":false"#))
        let local = db.send(.put, "/.settings/rules.json?ns=s&access_token=owner", rules, headers: [("Origin", "http://127.0.0.1:4000")])
        #expect(local.status.code == 200)
    }
}
