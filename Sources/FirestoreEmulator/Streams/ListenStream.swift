import EmulatorModel
import EmulatorStorage
import Synchronization

/// One Listen stream, whatever carries it (gRPC or WebChannel; googleapis
/// `google/firestore/v1/firestore.proto`: `ListenRequest`, `ListenResponse`, `TargetChange`; the
/// JS SDK's `packages/firestore/src/remote/watch_change.ts` is the client side). Each added target
/// gets ADD, a DocumentChange per matching document, CURRENT and a global NO_CHANGE carrying the
/// read time. After every commit in the database a worker re-evaluates the targets at head and
/// sends the difference (DocumentChange, DocumentDelete for documents targets, DocumentRemove for
/// queries) followed by a global NO_CHANGE. A resumed target gets RESET before its full result, so
/// clients drop documents that went away while they were disconnected.
///
/// The transport decodes each request into a ``ListenRequest`` and encodes each ``ListenEvent``
/// the stream hands its ``ListenEventSink``.
final class ListenStream: Sendable {
    struct State {
        var targets: [Int32: ListenTarget] = [:]
        var database: DatabaseID?
        var subscription: Subscription?
        var ended = false
        var lastReadTime: Int64 = 0
        /// The last id handed out for a target added with target_id 0.
        var lastAssignedID: Int32 = 0
    }

    let service: FirestoreService
    let caller: FirestoreCaller
    let sink: any ListenEventSink
    private let state = Mutex(State())
    /// Documents changed by commits not yet looked at (nil: everything may have changed, after a
    /// clear). Filled under the engine's commit lock, so it has its own small lock.
    private let dirty = DirtyPaths()
    private let signals: AsyncStream<Void>.Continuation
    /// Re-evaluates targets after commits, off the committing thread (the change feed delivers
    /// under the engine's commit lock, where reads that build indexes must not run). Cancelled in
    /// ``cancel()``; it holds the stream weakly so it never outlives it.
    private let worker: Task<Void, Never>

    init(service: FirestoreService, caller: FirestoreCaller, sink: any ListenEventSink) {
        self.service = service
        self.caller = caller
        self.sink = sink
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.signals = continuation
        let box = WeakBox()
        self.worker = Task {
            for await _ in stream {
                guard let listen = box.stream else { return }
                listen.refresh()
            }
        }
        box.stream = self
    }

    deinit {
        signals.finish()
        worker.cancel()
    }

    /// The worker's reference to the stream.
    private final class WeakBox: Sendable {
        private let value = Mutex<Weak>(Weak())
        struct Weak { weak var stream: ListenStream? }
        var stream: ListenStream? {
            get { value.withLock { $0.stream } }
            set { value.withLock { $0.stream = newValue } }
        }
    }

    /// Handles one client message: `decode` turns the transport's bytes into a request (its error,
    /// like any error of the request, ends the stream with that status).
    func receive(_ decode: () throws(EmulatorError) -> ListenRequest) {
        state.withLock { s in
            guard !s.ended else { return }
            do throws(EmulatorError) {
                try handle(decode(), &s)
                sink.flush()
            } catch {
                end(&s, error)
            }
        }
    }

    /// The client ended its side: the stream ends with OK.
    func halfClose() {
        state.withLock { s in end(&s, nil) }
    }

    /// The client went away: stop watching, send nothing more.
    func cancel() {
        state.withLock { s in
            s.ended = true
            s.subscription?.cancel()
            s.subscription = nil
            s.targets.removeAll()
        }
        signals.finish()
        worker.cancel()
    }

    private func end(_ s: inout State, _ error: EmulatorError?) {
        guard !s.ended else { return }
        s.ended = true
        s.subscription?.cancel()
        s.subscription = nil
        signals.finish()
        sink.flush()
        sink.finish(error)
    }

    private func handle(_ request: ListenRequest, _ s: inout State) throws(EmulatorError) {
        let database = try ProtoDecoding.database(request.database)
        if let existing = s.database, existing != database {
            throw .invalidArgument("A Listen stream serves one database: \(existing.name), not \(database.name).")
        }
        if s.database == nil {
            s.database = database
            let signals = self.signals
            let dirty = self.dirty
            // Subscribe before the first read, so no commit falls between the two.
            s.subscription = service.store.engine.subscribe(DocumentStore.namespace(database)) { batch in
                let paths = batch.changes.map { change in
                    ResourcePath(segments: change.key.segmentBytes.map { String(decoding: $0, as: UTF8.self) })
                }
                dirty.add(paths, everything: !batch.clearedSubtrees.isEmpty)
                signals.yield()
            }
        }
        if let remove = request.removeTarget {
            if s.targets.removeValue(forKey: remove) != nil {
                sink.send(.targetChange(.remove, targets: [remove]))
            }
            return
        }
        guard var target = request.addTarget else { return }
        if target.id == 0 {
            // target_id 0: the server picks an id, echoed in ADD.
            repeat { s.lastAssignedID &+= 1 } while s.lastAssignedID <= 0 || s.targets[s.lastAssignedID] != nil
            target.id = s.lastAssignedID
        }
        if s.targets[target.id] != nil {
            throw .invalidArgument("Target id \(target.id) is already in use on this stream.")
        }
        sink.send(.targetChange(.add, targets: [target.id]))
        if target.resuming { sink.send(.targetChange(.reset, targets: [target.id])) }
        guard target.database == database else {
            sink.send(.targetChange(
                .remove, targets: [target.id], cause: .invalidArgument("The target is not in database \(database.name).")))
            return
        }
        let documents: [StoredDocument]
        let readTime: Int64
        do { (documents, readTime) = try target.evaluate(service, caller: caller) } catch {
            sink.send(.targetChange(.remove, targets: [target.id], cause: error))
            return
        }
        var added = target
        for d in documents {
            sink.send(.documentChange(d, database: database, targets: [target.id]))
            added.documents[d.path] = d.updateTime
        }
        let time = max(readTime, s.lastReadTime)
        s.lastReadTime = time
        sink.send(.targetChange(.current, targets: [target.id], resumeToken: ListenEvent.resumeToken(time)))
        sink.send(.targetChange(.noChange, targets: [], readTime: time, resumeToken: ListenEvent.resumeToken(time)))
        if target.once {
            sink.send(.targetChange(.remove, targets: [target.id]))
        } else {
            s.targets[target.id] = added
        }
    }

    /// Sends what changed in every target since the last evaluation.
    func refresh() {
        let paths = dirty.take()
        state.withLock { s in
            guard !s.ended, let database = s.database else { return }
            var changed = false
            var newest = s.lastReadTime
            for id in s.targets.keys.sorted() {
                guard var target = s.targets[id] else { continue }
                if let paths, !target.isAffected(by: paths) { continue }
                let documents: [StoredDocument]
                let readTime: Int64
                do throws(EmulatorError) { (documents, readTime) = try target.evaluate(service, caller: caller) } catch {
                    sink.send(.targetChange(.remove, targets: [id], cause: error))
                    s.targets[id] = nil
                    changed = true
                    continue
                }
                newest = max(newest, readTime)
                var next: [ResourcePath: Int64] = [:]
                for d in documents {
                    next[d.path] = d.updateTime
                    if target.documents[d.path] != d.updateTime {
                        sink.send(.documentChange(d, database: database, targets: [id]))
                        changed = true
                    }
                }
                for path in target.documents.keys where next[path] == nil {
                    let name = database.documentName(path)
                    if case .documents = target.kind {
                        sink.send(.documentDelete(name, removed: [id], readTime: readTime))
                    } else {
                        sink.send(.documentRemove(name, removed: [id], readTime: readTime))
                    }
                    changed = true
                }
                target.documents = next
                s.targets[id] = target
            }
            guard changed else { return }
            let time = max(newest, s.lastReadTime + 1)
            s.lastReadTime = time
            sink.send(.targetChange(.noChange, targets: [], readTime: time, resumeToken: ListenEvent.resumeToken(time)))
            sink.flush()
        }
    }
}

/// Paths changed since the worker last looked, shared between the change feed and the worker.
final class DirtyPaths: Sendable {
    private let paths = Mutex<Set<ResourcePath>?>([])

    func add(_ changed: [ResourcePath], everything: Bool) {
        paths.withLock { set in
            if everything { set = nil } else { set?.formUnion(changed) }
        }
    }

    /// The changed paths (nil: anything may have changed), leaving the set empty.
    func take() -> Set<ResourcePath>? {
        paths.withLock { set in
            defer { set = [] }
            return set
        }
    }
}
