import EmulatorModel
import EmulatorSupport
import Synchronization

/// One `observe` registration. Its view (the query's data, local writes included) lives in the
/// ``DatabaseConnection``'s state, which calls ``emit(old:new:)`` when it changes; the events go
/// to the user's block on the database's callback queue.
final class DatabaseObserver: Sendable {
    let query: DatabaseQuery
    let eventType: DataEventType
    private let block: UserCallback<(DataSnapshot, String?) -> Void>
    private let cancel: UserCallback<(any Error) -> Void>?
    private let stopped = StopFlag()

    init(
        query: DatabaseQuery, eventType: DataEventType, block: UserCallback<(DataSnapshot, String?) -> Void>,
        cancel: UserCallback<(any Error) -> Void>?
    ) {
        self.query = query
        self.eventType = eventType
        self.block = block
        self.cancel = cancel
    }

    var key: DatabaseListenKey { DatabaseListenKey(path: query.path, params: query.params.listenParams) }

    func stop() { stopped.set() }

    /// Queues the events of this observer's type between two views (callers hold the
    /// connection's lock, so events reach the queue in the order the views changed).
    func emit(old: DatabaseNode?, new: DatabaseNode) {
        let wanted = DatabaseSyncTree.events(old: old, new: new, ref: query.ref, params: query.params).filter { $0.0 == eventType }
        guard !wanted.isEmpty else { return }
        let block = self.block
        let stopped = self.stopped
        query.database.callbackQueue.deliver {
            for (_, snapshot, previous) in wanted where !stopped.isSet { block.call(snapshot, previous) }
        }
    }

    /// Hands a refused or revoked listen to the cancel block, on the callback queue; the observer is gone.
    func fail(_ error: DatabaseError) {
        let stopped = self.stopped
        guard let cancel, !stopped.isSet else { return }
        stopped.set()
        query.database.callbackQueue.deliver { cancel.call(error) }
    }
}
