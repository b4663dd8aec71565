/// What every emulator is built from: one per running suite, shared by all of them.
///
/// Seam for the storage engine: when EmulatorStorage lands, add `package let storage: <engine>`
/// here, create it once in `Suite.start`, and every emulator's router factory receives it.
package struct EmulatorContext: Sendable {
    package var projectId: String
    package var singleProjectMode: Bool
    /// firestore.rules, read at start-up; nil means open rules.
    package var firestoreRules: RulesSource?
    /// database.rules per namespace; a namespace without an entry has open rules.
    package var databaseRules: [DatabaseRulesBinding]
    package var console: Console

    package init(
        projectId: String, singleProjectMode: Bool = true, firestoreRules: RulesSource? = nil,
        databaseRules: [DatabaseRulesBinding] = [], console: Console
    ) {
        self.projectId = projectId
        self.singleProjectMode = singleProjectMode
        self.firestoreRules = firestoreRules
        self.databaseRules = databaseRules
        self.console = console
    }
}
