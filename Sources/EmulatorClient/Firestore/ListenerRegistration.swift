import Foundation
import Synchronization

/// A live listener; ``remove()`` stops it (no callback runs after `remove()` returns, except one
/// already in progress).
public protocol ListenerRegistration: Sendable {
    func remove()
}

/// Polls a read every `interval` on its own thread and reports when the result changes.
///
/// The emulator's REST API has no change stream for Firestore (Listen is gRPC/WebChannel only),
/// so snapshot listeners in this client poll `runQuery` / `GET` about every 100 ms.
final class PollingListener: ListenerRegistration {
    private let stopped: StopFlag

    init<State: Sendable>(
        interval: Duration = .milliseconds(100),
        firestore: Firestore,
        stopped: StopFlag,
        read: @escaping @Sendable () throws -> State,
        changed: @escaping @Sendable (State?, State) -> Bool,
        deliver: @escaping @Sendable (State?, Result<State, any Error>) -> Void
    ) {
        self.stopped = stopped
        BackgroundThread.run(name: "SnapshotListener") {
            firestore.writeQueue.waitForEarlierWork()
            var last: State?
            var lastFailed = false
            while !stopped.isSet {
                do {
                    let state = try read()
                    lastFailed = false
                    if last == nil || changed(last, state) {
                        if stopped.isSet { return }
                        deliver(last, .success(state))
                        last = state
                    }
                } catch {
                    if !lastFailed && !stopped.isSet { deliver(last, .failure(error)) }
                    lastFailed = true
                }
                let ms = interval.components.seconds * 1000 + interval.components.attoseconds / 1_000_000_000_000_000
                usleep(useconds_t(max(1, ms) * 1000))
            }
        }
    }

    func remove() { stopped.set() }
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

    /// As ``addSnapshotListener(_:)``; snapshots come from the server only, so there are no
    /// metadata-only changes to include.
    @discardableResult
    public func addSnapshotListener(
        includeMetadataChanges: Bool, listener: @escaping (QuerySnapshot?, (any Error)?) -> Void
    ) -> any ListenerRegistration {
        let query = self
        let callback = UserCallback(listener)
        let stopped = StopFlag()
        return PollingListener(
            firestore: firestore, stopped: stopped,
            read: { try query.run() },
            changed: { old, new in
                guard let old else { return true }
                return !DocumentChange.diff(old: old, new: new).isEmpty || old.map(\.reference.path) != new.map(\.reference.path)
            },
            deliver: { previous, result in
                query.firestore.callbackQueue.deliver {
                    if stopped.isSet { return }
                    switch result {
                    case .success(let docs): callback.call(QuerySnapshot(query: query, documents: docs, previous: previous ?? []), nil)
                    case .failure(let error): callback.call(nil, error)
                    }
                }
            })
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
    /// Calls `listener` with the document now, then whenever it changes (polling, see above).
    @discardableResult
    public func addSnapshotListener(
        _ listener: @escaping (DocumentSnapshot?, (any Error)?) -> Void
    ) -> any ListenerRegistration {
        addSnapshotListener(includeMetadataChanges: false, listener: listener)
    }

    /// As ``addSnapshotListener(_:)`` (no metadata-only changes: snapshots come from the server).
    @discardableResult
    public func addSnapshotListener(
        includeMetadataChanges: Bool, listener: @escaping (DocumentSnapshot?, (any Error)?) -> Void
    ) -> any ListenerRegistration {
        let ref = self
        let callback = UserCallback(listener)
        let stopped = StopFlag()
        return PollingListener(
            firestore: firestore, stopped: stopped,
            read: { try ref.fetch(transaction: nil) },
            changed: { old, new in old?.fields != new.fields || old?.updateTime != new.updateTime },
            deliver: { _, result in
                ref.firestore.callbackQueue.deliver {
                    if stopped.isSet { return }
                    switch result {
                    case .success(let doc): callback.call(doc, nil)
                    case .failure(let error): callback.call(nil, error)
                    }
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
