/// Where log records go. Handlers are called from any thread.
package protocol LogHandler: Sendable {
    func log(_ record: LogRecord)
}
