package import EmulatorSupport
package import SecurityRules

/// What the UI server reads from the running suite, at request time (ports chosen by the
/// kernel are known only once every listener is bound).
package struct UIEnvironment: Sendable {
    package var projectId: String
    /// The hub's `GET /emulators` document: name → `{listen, name, host, port, pid}`.
    package var emulators: @Sendable () -> JSONValue
    /// The origins the page itself is served from (`http://127.0.0.1:4000`, …): the only ones
    /// allowed to change anything through the UI's endpoints.
    package var ownOrigins: @Sendable () -> [String]
    package var logs: UILogBook
    /// Every rules decision of both emulators (the Requests view); nil: none are recorded.
    package var requests: RulesRequestLog?

    package init(
        projectId: String, emulators: @escaping @Sendable () -> JSONValue, ownOrigins: @escaping @Sendable () -> [String],
        logs: UILogBook, requests: RulesRequestLog? = nil
    ) {
        self.requests = requests
        self.projectId = projectId
        self.emulators = emulators
        self.ownOrigins = ownOrigins
        self.logs = logs
    }
}
