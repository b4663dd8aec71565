/// A rules file named in firebase.json, read at start-up.
package struct RulesSource: Sendable, Hashable {
    /// The absolute path of the file.
    package var path: String
    /// The file's text.
    package var text: String

    package init(path: String, text: String) {
        self.path = path
        self.text = text
    }
}

/// Realtime Database rules for one namespace (`database.rules` single or array form).
package struct DatabaseRulesBinding: Sendable, Hashable {
    /// The namespace (`?ns=`) the rules apply to, e.g. `demo-app-default-rtdb`.
    package var instance: String
    package var rules: RulesSource

    package init(instance: String, rules: RulesSource) {
        self.instance = instance
        self.rules = rules
    }
}
