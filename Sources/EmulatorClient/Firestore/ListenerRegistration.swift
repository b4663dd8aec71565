import EmulatorProtobuf
import Foundation
import Synchronization

/// A live listener; ``remove()`` stops it (no callback runs after `remove()` returns, except one
/// already in progress).
public protocol ListenerRegistration: Sendable {
    func remove()
}

/// Set once a registration is removed; queued callbacks check it before calling user code.
final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}

extension Query {
    /// Calls `listener` with the current results, then again whenever they change.
    ///
    /// ```swift
    /// let registration = db.collection("colors").addSnapshotListener { snapshot, error in
    ///     let colors = snapshot?.documents.compactMap { try? $0.data(as: ColorEntry.self) } ?? []
    /// }
    /// registration.remove()
    /// ```
    @discardableResult
    public func addSnapshotListener(
        _ listener: @escaping (QuerySnapshot?, (any Error)?) -> Void
    ) -> any ListenerRegistration {
        addSnapshotListener(includeMetadataChanges: false, listener: listener)
    }

    /// As ``addSnapshotListener(_:)``. Snapshots come from the server's `Listen` stream with this
    /// instance's unacknowledged writes laid over them (`metadata.hasPendingWrites`; while the
    /// stream is down, `metadata.isFromCache`); with `includeMetadataChanges`, a change of the
    /// metadata alone (a write acknowledged, the stream lost or back) is delivered too. A
    /// `limit(toLast:)` query listens as its reverse and is shown in its own order.
    @discardableResult
    public func addSnapshotListener(
        includeMetadataChanges: Bool, listener: @escaping (QuerySnapshot?, (any Error)?) -> Void
    ) -> any ListenerRegistration {
        let query = self
        let callback = UserCallback(listener)
        let stopped = StopFlag()
        let send: @Sendable (Result<QuerySnapshot, any Error>) -> Void = { result in
            query.firestore.callbackQueue.deliver {
                if stopped.isSet { return }
                switch result {
                case .success(let snapshot): callback.call(snapshot, nil)
                case .failure(let error): callback.call(nil, error)
                }
            }
        }
        let view = ListenView(
            firestore: firestore, includeMetadataChanges: includeMetadataChanges,
            matches: { query.matchesLocally($0) },
            order: { documents in
                let sorted = query.sorted(documents)
                guard let limit = query.description.limit, sorted.count > limit else { return sorted }
                return query.description.limitToLast ? Array(sorted.suffix(limit)) : Array(sorted.prefix(limit))
            },
            emit: { shown, previous in
                send(.success(QuerySnapshot(
                    query: query, documents: shown.documents, previous: previous?.documents ?? [], metadata: shown.metadata)))
            })
        return StreamingListener(firestore: firestore, target: .query(query), stopped: stopped, view: view, fail: { send(.failure($0)) })
    }

    /// Query snapshots as an async sequence (the first element is the current result).
    public var snapshots: AsyncThrowingStream<QuerySnapshot, any Error> {
        AsyncThrowingStream { continuation in
            let registration = addSnapshotListener { snapshot, error in
                if let snapshot { continuation.yield(snapshot) } else if let error { continuation.finish(throwing: error) }
            }
            continuation.onTermination = { _ in registration.remove() }
        }
    }
}

extension DocumentReference {
    /// Calls `listener` with the document now, then whenever it changes.
    @discardableResult
    public func addSnapshotListener(
        _ listener: @escaping (DocumentSnapshot?, (any Error)?) -> Void
    ) -> any ListenerRegistration {
        addSnapshotListener(includeMetadataChanges: false, listener: listener)
    }

    /// As ``addSnapshotListener(_:)``, over the `Listen` stream with local writes shown at once
    /// (see the query form for the metadata).
    @discardableResult
    public func addSnapshotListener(
        includeMetadataChanges: Bool, listener: @escaping (DocumentSnapshot?, (any Error)?) -> Void
    ) -> any ListenerRegistration {
        let ref = self
        let callback = UserCallback(listener)
        let stopped = StopFlag()
        let view = ListenView(
            firestore: firestore, includeMetadataChanges: includeMetadataChanges,
            matches: { $0.reference.path == ref.path },
            order: { $0 },
            emit: { shown, _ in
                var snapshot = shown.documents.first ?? DocumentSnapshot(reference: ref, fields: nil)
                snapshot.isFromCache = shown.metadata.isFromCache
                let delivered = snapshot
                ref.firestore.callbackQueue.deliver {
                    if !stopped.isSet { callback.call(delivered, nil) }
                }
            })
        return StreamingListener(
            firestore: firestore, target: .document(ref), stopped: stopped, view: view,
            fail: { error in
                ref.firestore.callbackQueue.deliver {
                    if !stopped.isSet { callback.call(nil, error) }
                }
            })
    }

    /// Document snapshots as an async sequence.
    public var snapshots: AsyncThrowingStream<DocumentSnapshot, any Error> {
        AsyncThrowingStream { continuation in
            let registration = addSnapshotListener { snapshot, error in
                if let snapshot { continuation.yield(snapshot) } else if let error { continuation.finish(throwing: error) }
            }
            continuation.onTermination = { _ in registration.remove() }
        }
    }
}
