package import EmulatorHTTP
package import EmulatorSupport

/// How the suite sets up the Firestore emulator.
package struct FirestoreEmulatorConfiguration: Sendable {
    /// The project the suite emulates (`--project`); other project ids still work.
    package var projectID: String?
    /// The official emulator's `--single_project_mode`: accepted, other projects still isolated.
    package var singleProjectMode: Bool
    /// The rules applied before any `:securityRules` upload; allow-all when no rules file is configured.
    package var rules: FirestoreRulesGate
    /// Compiles uploaded rules sources (wired by the suite to the rules engine); nil accepts and ignores them.
    package var rulesLoader: FirestoreRulesLoader?
    package var logger: Logger?
    /// Decides when the WebChannel replies of a client message may go out (the suite holds them
    /// until that message's writes are durable with a live data directory); nil: at once.
    package var replyGate: ReplyGate?
    /// Session limits and timings of the WebChannel endpoints.
    package var webChannel = WebChannelServer.Configuration()

    package init(
        projectID: String? = nil, singleProjectMode: Bool = true, rules: FirestoreRulesGate = .allowAll,
        rulesLoader: FirestoreRulesLoader? = nil, logger: Logger? = nil, replyGate: ReplyGate? = nil
    ) {
        self.replyGate = replyGate
        self.projectID = projectID
        self.singleProjectMode = singleProjectMode
        self.rules = rules
        self.rulesLoader = rulesLoader
        self.logger = logger
    }
}
