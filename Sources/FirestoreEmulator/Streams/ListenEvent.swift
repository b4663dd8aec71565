import EmulatorModel

/// One `ListenRequest`, decoded from whichever wire carried it.
struct ListenRequest: Sendable {
    /// The `database` field as sent (`projects/p/databases/d`).
    var database: String
    var addTarget: ListenTarget?
    var removeTarget: Int32?
}

/// One `ListenResponse` a ``ListenStream`` sends, before any wire encoding.
enum ListenEvent: Sendable {
    enum ChangeType: Int32, Sendable { case noChange = 0, add, remove, current, reset }

    case targetChange(ChangeType, targets: [Int32], readTime: Int64? = nil, resumeToken: [UInt8]? = nil, cause: EmulatorError? = nil)
    /// A document for `targets`; `removed` names targets it left (it no longer matches them).
    case documentChange(StoredDocument, database: DatabaseID, targets: [Int32], removed: [Int32] = [])
    case documentDelete(String, removed: [Int32], readTime: Int64)
    case documentRemove(String, removed: [Int32], readTime: Int64)

    /// A resume token: the read time, 8 bytes big-endian.
    static func resumeToken(_ readTime: Int64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: readTime >> (56 - 8 * Int64($0))) }
    }
}

/// Where a Listen stream's responses go: the transport encodes and sends them.
protocol ListenEventSink: Sendable {
    func send(_ event: ListenEvent)
    /// The events sent since the last flush belong together (one request's answer, one
    /// refresh): a transport may put them on the wire at once.
    func flush()
    /// Ends the stream: OK when `error` is nil, else that status.
    func finish(_ error: EmulatorError?)
}

extension ListenEventSink {
    func flush() {}
}
