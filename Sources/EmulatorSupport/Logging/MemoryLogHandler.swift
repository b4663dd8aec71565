import Synchronization

/// Keeps records in memory, for tests that assert what was logged.
///
/// ```swift
/// let memory = MemoryLogHandler()
/// let logger = Logger(label: "hub", verbosity: .debug, handler: memory)
/// logger.info("ready")
/// memory.records.map(\.message) // ["ready"]
/// ```
package final class MemoryLogHandler: LogHandler {
    private let storage = Mutex<[LogRecord]>([])

    package init() {}

    package func log(_ record: LogRecord) {
        storage.withLock { $0.append(record) }
    }

    /// Every record logged so far, in order.
    package var records: [LogRecord] {
        storage.withLock { $0 }
    }

    package func removeAll() {
        storage.withLock { $0.removeAll() }
    }
}
