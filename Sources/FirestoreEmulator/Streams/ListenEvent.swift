import EmulatorModel
import EmulatorStorage

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
    case documentChange(ListenDocument, database: DatabaseID, targets: [Int32], removed: [Int32] = [])
    case documentDelete(String, removed: [Int32], readTime: Int64)
    case documentRemove(String, removed: [Int32], readTime: Int64)

    /// A resume token: the read time, 8 bytes big-endian, then 4 bytes naming the database (the
    /// FNV-1a hash of its name), so a token from another database is told apart.
    static func resumeToken(_ readTime: Int64, _ database: DatabaseID) -> [UInt8] {
        var token = (0..<8).map { UInt8(truncatingIfNeeded: readTime >> (56 - 8 * Int64($0))) }
        let tag = databaseTag(database)
        token += (0..<4).map { UInt8(truncatingIfNeeded: tag >> (24 - 8 * UInt32($0))) }
        return token
    }

    /// The read time of a token ``resumeToken(_:_:)`` made for `database`; nil when the token is
    /// garbled or names another database. Earlier builds' 8-byte tokens (the time alone) are read
    /// as times.
    static func resumeTime(_ token: [UInt8], _ database: DatabaseID) -> Int64? {
        guard token.count == 12 || token.count == 8 else { return nil }
        var time: Int64 = 0
        for b in token[0..<8] { time = time << 8 | Int64(b) }
        guard time > 0 else { return nil }
        if token.count == 8 { return time }
        var tag: UInt32 = 0
        for b in token[8..<12] { tag = tag << 8 | UInt32(b) }
        return tag == databaseTag(database) ? time : nil
    }

    private static func databaseTag(_ database: DatabaseID) -> UInt32 {
        var hash: UInt32 = 2_166_136_261
        for b in database.name.utf8 { hash = (hash ^ UInt32(b)) &* 16_777_619 }
        return hash
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

/// The document a DocumentChange carries: decoded (an evaluation's result, a projection), or a
/// committed entry as stored, which the transport encodes straight from its bytes (a target that
/// takes every document of its collection never decodes one).
enum ListenDocument: Sendable, Equatable {
    case decoded(StoredDocument)
    case stored(StoredEntry)

    var updateTime: Int64 {
        switch self {
        case .decoded(let d): d.updateTime
        case .stored(let e): e.updateTime
        }
    }

    var path: ResourcePath {
        switch self {
        case .decoded(let d): d.path
        case .stored(let e): DatabaseView<StorageSnapshot>.path(e.key)
        }
    }

    /// The decoded document (corrupt stored bytes, which a commit never stores, give no fields).
    var document: StoredDocument {
        switch self {
        case .decoded(let d): return d
        case .stored(let e):
            let path = DatabaseView<StorageSnapshot>.path(e.key)
            return (try? DatabaseView<StorageSnapshot>.decode(e, path: path))
                ?? StoredDocument(path: path, fields: ValueMap(), createTime: e.createTime, updateTime: e.updateTime)
        }
    }
}
