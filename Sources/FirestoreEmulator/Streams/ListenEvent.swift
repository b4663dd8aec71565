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
    /// How many documents `target` matches (an `ExistenceFilter`): sent after a resumed target's
    /// changes, so a client can check the documents it holds for the target against it.
    case existenceFilter(target: Int32, count: Int32)

    /// A resume token: the read time (8 bytes big-endian), 4 bytes naming the database (the
    /// FNV-1a hash of its name) and the 4-byte epoch of the service that made it.
    static func resumeToken(_ readTime: Int64, _ database: DatabaseID, epoch: UInt32) -> [UInt8] {
        var token = (0..<8).map { UInt8(truncatingIfNeeded: readTime >> (56 - 8 * Int64($0))) }
        for value in [databaseTag(database), epoch] {
            token += (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32($0))) }
        }
        return token
    }

    /// What a client's resume token says.
    enum ResumePoint: Equatable {
        /// A read time of this service's history.
        case time(Int64)
        /// A token of an earlier run (another epoch, or an earlier build's 8-byte token): its
        /// history is gone.
        case expired
        /// Not a token of this database.
        case invalid
    }

    static func resumePoint(_ token: [UInt8], _ database: DatabaseID, epoch: UInt32) -> ResumePoint {
        guard token.count == 16 || token.count == 8 else { return .invalid }
        var time: Int64 = 0
        for b in token[0..<8] { time = time << 8 | Int64(b) }
        guard time > 0 else { return .invalid }
        guard token.count == 16 else { return .expired }
        var tag: UInt32 = 0
        for b in token[8..<12] { tag = tag << 8 | UInt32(b) }
        var made: UInt32 = 0
        for b in token[12..<16] { made = made << 8 | UInt32(b) }
        guard tag == databaseTag(database) else { return .invalid }
        return made == epoch ? .time(time) : .expired
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
    /// A DocumentChange of a committed entry for one target, the bulk of what a stream sends
    /// after commits: the same as ``send(_:)`` with that event, which a transport may write
    /// without building the event.
    func sendStored(_ entry: StoredEntry, database: DatabaseID, target: Int32)
    /// The events sent since the last flush belong together (one request's answer, one
    /// refresh): a transport may put them on the wire at once.
    func flush()
    /// Ends the stream: OK when `error` is nil, else that status.
    func finish(_ error: EmulatorError?)
    /// True while the client has not taken what it was sent (no WebChannel back channel to carry
    /// it; a gRPC stream with more than a bound queued behind its window): commits then wait and
    /// are folded into one answer, with one global snapshot, when the transport calls
    /// ``ListenStream/wake()``.
    var isBackedUp: Bool { get }
}

extension ListenEventSink {
    func flush() {}
    var isBackedUp: Bool { false }

    func sendStored(_ entry: StoredEntry, database: DatabaseID, target: Int32) {
        send(.documentChange(.stored(entry), database: database, targets: [target]))
    }
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
