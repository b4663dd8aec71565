import Synchronization

/// The open wire-protocol connections of one emulator, counted for the hub and tests (rules
/// changes and commits reach their listens through each namespace's fan-out, `DatabaseNamespace`).
final class DatabaseWireRegistry: Sendable {
    private let sessions = Mutex<[ObjectIdentifier: DatabaseWireSession]>([:])

    func add(_ session: DatabaseWireSession) {
        sessions.withLock { $0[ObjectIdentifier(session)] = session }
    }

    func remove(_ session: DatabaseWireSession) {
        _ = sessions.withLock { $0.removeValue(forKey: ObjectIdentifier(session)) }
    }

    var count: Int { sessions.withLock { $0.count } }
}
