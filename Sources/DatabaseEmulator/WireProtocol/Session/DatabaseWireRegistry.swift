import Synchronization

/// The open wire-protocol connections of one emulator, for events that do not come through the
/// change feed: a rules change (listens the new rules refuse are revoked with `c`) and credentials
/// that expire (`ac`, after which the SDKs reconnect with a fresh token).
final class DatabaseWireRegistry: Sendable {
    private let sessions = Mutex<[ObjectIdentifier: DatabaseWireSession]>([:])

    func add(_ session: DatabaseWireSession) {
        sessions.withLock { $0[ObjectIdentifier(session)] = session }
    }

    func remove(_ session: DatabaseWireSession) {
        _ = sessions.withLock { $0.removeValue(forKey: ObjectIdentifier(session)) }
    }

    var count: Int { sessions.withLock { $0.count } }

    /// Re-checks the listens of every connection to `namespace` against its new rules.
    func rulesChanged(namespace: String) {
        let affected = sessions.withLock { $0.values.filter { $0.namespace.name == namespace } }
        for session in affected { session.recheckListens() }
    }
}
