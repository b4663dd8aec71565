import Dispatch
import EmulatorModel
import EmulatorStorage
import Synchronization

/// One Listen stream, whatever carries it (gRPC or WebChannel; googleapis
/// `google/firestore/v1/firestore.proto`: `ListenRequest`, `ListenResponse`, `TargetChange`; the
/// JS SDK's `packages/firestore/src/remote/watch_change.ts` is the client side). Each added target
/// gets ADD, a DocumentChange per matching document, CURRENT and a global NO_CHANGE carrying the
/// read time. A resumed target gets RESET before its full result, so clients drop documents that
/// went away while they were disconnected.
///
/// Targets are filed in the service's ``ListenHub`` by what they watch; after a commit the hub
/// hands the stream's ``ListenInbox`` only the changed documents its targets watch, and a worker
/// folds each into its targets (``ListenTarget/apply(_:document:)``): DocumentChange,
/// DocumentDelete for documents targets, DocumentRemove for queries, then a global NO_CHANGE at
/// the commit's time. Only a target whose `limit` window lost its boundary (or with an `offset`)
/// runs its query again. While the transport says its client is behind
/// (``ListenEventSink/isBackedUp``: a WebChannel session without a back channel, a gRPC stream far
/// behind its window), commits wait in the inbox and go out together, under one global snapshot,
/// when it catches up. Nothing here depends on the transport.
///
/// The transport decodes each request into a ``ListenRequest`` and encodes each ``ListenEvent``
/// the stream hands its ``ListenEventSink``.
final class ListenStream: Sendable {
    /// At most this many targets per stream; more get REMOVE with RESOURCE_EXHAUSTED.
    static let maxTargets = 65_536

    struct State {
        var targets: [Int32: ListenTarget] = [:]
        var database: DatabaseID?
        /// This stream's id in the hub, once it named its database.
        var hubID: Int?
        var ended = false
        var lastReadTime: Int64 = 0
        /// The last id handed out for a target added with target_id 0.
        var lastAssignedID: Int32 = 0
        /// Full evaluations after the first, per target (tests: what stayed incremental).
        var reevaluations = 0
    }

    let service: FirestoreService
    let caller: FirestoreCaller
    let sink: any ListenEventSink
    private let state = Mutex(State())
    /// Commits not yet looked at, filled by the hub under the engine's commit lock.
    private let inbox: ListenInbox
    /// Folds commits into the targets, off the committing thread (the change feed delivers under
    /// the engine's commit lock, where reads that build indexes must not run): ``wake()`` asks
    /// Dispatch's global queue for one ``refresh()``, never more than one waiting. Not the
    /// cooperative pool: a refresh may wait on locks, and a pool blocked elsewhere must not stall
    /// every listener. The queued work holds the stream weakly so it never outlives it.
    private let worker: ListenWorker?

    /// - Parameter startsWorker: false leaves every ``refresh()`` to the caller (tests).
    init(service: FirestoreService, caller: FirestoreCaller, sink: any ListenEventSink, startsWorker: Bool = true) {
        self.service = service
        self.caller = caller
        self.sink = sink
        let worker = startsWorker ? ListenWorker() : nil
        self.worker = worker
        self.inbox = ListenInbox { worker?.wake() }
        worker?.stream = self
    }

    deinit {
        worker?.stop()
        let (database, id) = state.withLock { ($0.database, $0.hubID) }
        if let database, let id { service.listenHub.close(database, stream: id) }
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
            closeHub(&s)
            s.targets.removeAll()
        }
        worker?.stop()
    }

    private func closeHub(_ s: inout State) {
        if let database = s.database, let id = s.hubID { service.listenHub.close(database, stream: id) }
        s.hubID = nil
    }

    private func end(_ s: inout State, _ error: EmulatorError?) {
        guard !s.ended else { return }
        s.ended = true
        closeHub(&s)
        worker?.stop()
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
            s.hubID = service.listenHub.open(database, inbox)
        }
        if let remove = request.removeTarget {
            if s.targets.removeValue(forKey: remove) != nil {
                unfile(remove, &s)
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
        // A resume within the kept history gets the changes since then; an older one RESET and
        // the whole result.
        var since: Int64?
        if let resume = target.resume {
            var time: Int64?
            switch resume {
            case .token(let token):
                switch ListenEvent.resumePoint(token, database, epoch: service.listenHub.epoch) {
                case .invalid:
                    sink.send(.targetChange(
                        .remove, targets: [target.id],
                        cause: .invalidArgument("The resume token is not valid for database \(database.name).")))
                    return
                case .expired: time = nil
                case .time(let t): time = t
                }
            case .readTime(let t): time = t
            }
            do throws(EmulatorError) {
                if let t = time {
                    try service.validateReadTime(t, now: service.store.currentTime())
                    _ = try service.store.view(database, at: t)
                    if t >= service.listenHub.startTime { since = t }
                }
            } catch where error.code == .failedPrecondition {
            } catch {
                sink.send(.targetChange(.remove, targets: [target.id], cause: error))
                return
            }
            if since == nil { sink.send(.targetChange(.reset, targets: [target.id])) }
        }
        guard target.database == database else {
            sink.send(.targetChange(
                .remove, targets: [target.id], cause: .invalidArgument("The target is not in database \(database.name).")))
            return
        }
        guard s.targets.count < Self.maxTargets else {
            sink.send(.targetChange(
                .remove, targets: [target.id],
                cause: .resourceExhausted("A Listen stream may watch at most \(Self.maxTargets) targets at once.")))
            return
        }
        let readTime: Int64
        var previous: HeldDocuments?
        // The documents are sent as the query reads them; only their keys and times are kept.
        var held = HeldDocuments()
        do throws(EmulatorError) {
            try target.prepare()
            if let since {
                var then = HeldDocuments()
                _ = try target.evaluate(service, caller: caller, at: since) { d in
                    let key = ListenTarget.key(d.path)
                    if then[key] == nil { then[key] = d.updateTime }
                }
                previous = then
            }
            // Filed before the first read, so no commit falls between the two (commits the read
            // already saw are skipped by their time).
            if !target.once, let id = s.hubID {
                service.listenHub.file(database, stream: id, target: target.id, target.watch)
            }
            target.asOf = service.store.engine.lastCommitTime
            let targetID = target.id
            readTime = try target.evaluate(service, caller: caller) { d in
                let key = ListenTarget.key(d.path)
                held[key] = d.updateTime
                // Resumed: only what changed since the resume point.
                if let previous, previous[key] == d.updateTime { return }
                sink.send(.documentChange(.decoded(d), database: database, targets: [targetID]))
            }
        } catch {
            unfile(target.id, &s)
            sink.send(.targetChange(.remove, targets: [target.id], cause: error))
            return
        }
        target.documents = held
        if let previous {
            let gone = previous.keys.filter { target.documents[$0] == nil }.sorted()
            let deleted = missing(gone, database: database, at: readTime, documentsTarget: target.kind.isDocuments)
            for key in gone {
                send(.remove(key, deleted: deleted.contains(key)), target: target.id, database: database, readTime: readTime)
            }
            // As production after a resume: the count of what the target now matches, which the
            // SDKs check against what they hold (a mismatch makes them listen again from scratch).
            sink.send(.existenceFilter(target: target.id, count: Int32(clamping: target.documents.count)))
        }
        if !target.once { s.targets[target.id] = target }
        // The global snapshot below stands for every target: commits still waiting (for the
        // worker, or for a client that is behind) go in first. The new target skips those its
        // read saw.
        let newest = fold(&s, database).newest
        let time = max(readTime, newest, s.lastReadTime)
        s.lastReadTime = time
        sink.send(.targetChange(.current, targets: [target.id], resumeToken: ListenEvent.resumeToken(time, database, epoch: service.listenHub.epoch)))
        sink.send(.targetChange(.noChange, targets: [], readTime: time, resumeToken: ListenEvent.resumeToken(time, database, epoch: service.listenHub.epoch)))
        if target.once { sink.send(.targetChange(.remove, targets: [target.id])) }
    }

    private func unfile(_ target: Int32, _ s: inout State) {
        if let database = s.database, let id = s.hubID { service.listenHub.unfile(database, stream: id, target: target) }
    }

    /// Runs ``refresh()`` soon, on the worker (the transport can take more again).
    func wake() { worker?.wake() }

    /// Sends what the pending commits changed in the targets they concern, with one global
    /// snapshot. While the sink is backed up the commits wait in the inbox: a client that is
    /// behind gets everything that happened meanwhile as one consistent point when it catches up
    /// (the transport wakes the stream), not one global snapshot per commit it missed.
    func refresh() {
        guard !sink.isBackedUp else { return }
        state.withLock { s in
            guard !s.ended, let database = s.database else {
                _ = inbox.take()
                return
            }
            let (changed, newest) = fold(&s, database)
            guard changed else { return }
            let time = max(newest, s.lastReadTime + 1)
            s.lastReadTime = time
            sink.send(.targetChange(.noChange, targets: [], readTime: time, resumeToken: ListenEvent.resumeToken(time, database, epoch: service.listenHub.epoch)))
            sink.flush()
        }
    }

    /// Folds the commits in the inbox into the targets they concern and sends what changed,
    /// without a global snapshot (the caller sends it): whether anything was sent, and the newest
    /// time the commits reached.
    private func fold(_ s: inout State, _ database: DatabaseID) -> (changed: Bool, newest: Int64) {
        let (commits, overflowed, newestSeen) = inbox.take()
        do {
            var changed = false
            var newest = s.lastReadTime
            var redo: Set<Int32> = overflowed ? Set(s.targets.keys) : []
            if overflowed { newest = max(newest, newestSeen) }
            let rulesDecide = service.rulesMayDecide(database, caller: caller)
            var ruleChecked: Set<Int32> = []
            for (n, commit) in commits.enumerated() {
                // A client that fell behind meanwhile gets the commits so far, with their global
                // snapshot; the rest wait for it (a prefix of the commits is a consistent point,
                // unless a target must be read again, which reads the newest state).
                if n > 0, redo.isEmpty, sink.isBackedUp {
                    inbox.putBack(commits[n...])
                    break
                }
                newest = max(newest, commit.time)
                if commit.everything { redo.formUnion(s.targets.keys) }
                // Filled on the first decode: most targets never look inside a document.
                var decoded: [StoredDocument??] = []
                let targets = commit.targets.count > 1 ? commit.targets.sorted(by: { $0.id < $1.id }) : commit.targets
                for (id, indexes) in targets {
                    // Only small fields are read here: a copy of the target would share its
                    // dictionaries and make the first change below copy them.
                    guard !redo.contains(id), let asOf = s.targets[id]?.asOf, commit.time > asOf, let kind = s.targets[id]?.kind
                    else { continue }
                    if rulesDecide {
                        // Rules may read the document (documents targets) or other documents: the
                        // rules decide again, for documents targets on the whole target.
                        guard case .query(let parent, let query) = kind else {
                            redo.insert(id)
                            continue
                        }
                        if ruleChecked.insert(id).inserted {
                            do throws(EmulatorError) {
                                try service.checkList(database, parent: parent.path, query: query, caller: caller)
                            } catch {
                                s.targets[id] = nil
                                unfile(id, &s)
                                sink.send(.targetChange(.remove, targets: [id], cause: error))
                                changed = true
                                continue
                            }
                        }
                    }
                    // Take the target out while it changes, so its dictionaries are not copied.
                    guard var target = s.targets.removeValue(forKey: id) else { continue }
                    let targetID = target.id
                    for i in indexes {
                        let changedDocument = commit.documents[i]
                        let decided = target.apply(changedDocument) {
                            if decoded.isEmpty { decoded = Array(repeating: nil, count: commit.documents.count) }
                            if decoded[i] == nil {
                                decoded[i] = .some(changedDocument.entry.flatMap { entry in
                                    try? DatabaseView<StorageSnapshot>.decode(entry, path: changedDocument.path)
                                })
                            }
                            return decoded[i] ?? nil
                        } emit: { change in
                            send(change, target: targetID, database: database, readTime: commit.time)
                            changed = true
                        }
                        if !decided {
                            redo.insert(id)
                            break
                        }
                    }
                    s.targets[id] = target
                }
            }
            for id in redo.sorted() {
                guard var target = s.targets.removeValue(forKey: id) else { continue }
                s.reevaluations += 1
                let readTime: Int64
                let published = service.store.engine.lastCommitTime
                // The documents are sent as the query reads them; only their keys and times are kept.
                var next = HeldDocuments()
                let before = target.documents
                do throws(EmulatorError) {
                    readTime = try target.evaluate(service, caller: caller) { d in
                        let key = ListenTarget.key(d.path)
                        next[key] = d.updateTime
                        if before[key] != d.updateTime {
                            sink.send(.documentChange(.decoded(d), database: database, targets: [id]))
                            changed = true
                        }
                    }
                } catch {
                    unfile(id, &s)
                    sink.send(.targetChange(.remove, targets: [id], cause: error))
                    changed = true
                    continue
                }
                newest = max(newest, readTime)
                let gone = target.documents.keys.filter { next[$0] == nil }
                let deleted = missing(gone, database: database, at: readTime, documentsTarget: target.kind.isDocuments)
                for key in gone {
                    send(.remove(key, deleted: deleted.contains(key)), target: id, database: database, readTime: readTime)
                    changed = true
                }
                target.documents = next
                target.asOf = published
                s.targets[id] = target
            }
            return (changed, newest)
        }
    }

    /// Full evaluations after the first, over the stream's life (tests).
    var reevaluations: Int { state.withLock { $0.reevaluations } }

    /// Which of `keys`, documents that left a target's result, no longer exist at `readTime`
    /// (they get DocumentDelete). A documents target loses a document only when it is deleted; a
    /// query's are looked up (a failed read counts them as existing: DocumentRemove is never wrong).
    private func missing(_ keys: [StorageKey], database: DatabaseID, at readTime: Int64, documentsTarget: Bool) -> Set<StorageKey> {
        if documentsTarget || keys.isEmpty { return Set(keys) }
        guard let (view, _) = try? service.store.view(database, at: readTime) else { return [] }
        return Set(keys.filter { view.source.entry(view.namespace, $0) == nil })
    }

    /// The event for one change of `target`: a document (projected), a document that left it
    /// (DocumentChange with the target removed), or its removal — DocumentDelete when the
    /// document was deleted (the SDKs then record it as missing), DocumentRemove when it only left
    /// a query's result (the SDKs learn its new state from another target or ask for it).
    private func send(_ change: ListenTarget.Change, target: Int32, database: DatabaseID, readTime: Int64) {
        switch change {
        case .put(.stored(let e)):
            sink.sendStored(e, database: database, target: target)
        case .put(let d):
            sink.send(.documentChange(d, database: database, targets: [target]))
        case .leave(let d):
            sink.send(.documentChange(d, database: database, targets: [], removed: [target]))
        case .remove(let key, let deleted):
            let name = database.documentName(DatabaseView<StorageSnapshot>.path(key))
            // A documents target loses a document only when it is deleted.
            if deleted {
                sink.send(.documentDelete(name, removed: [target], readTime: readTime))
            } else {
                sink.send(.documentRemove(name, removed: [target], readTime: readTime))
            }
        }
    }
}

/// Runs its stream's ``ListenStream/refresh()`` on Dispatch's global queue when woken: one run
/// at a time queued (a wake while one waits adds nothing; a wake during a run queues the next).
final class ListenWorker: Sendable {
    private struct State {
        weak var stream: ListenStream?
        var queued = false
        var stopped = false
    }
    private let state = Mutex(State())

    var stream: ListenStream? {
        get { state.withLock { $0.stream } }
        set { state.withLock { $0.stream = newValue } }
    }

    func wake() {
        let schedule = state.withLock { s -> Bool in
            guard !s.stopped, !s.queued else { return false }
            s.queued = true
            return true
        }
        guard schedule else { return }
        DispatchQueue.global().async { [self] in
            let stream = state.withLock { s -> ListenStream? in
                s.queued = false
                return s.stopped ? nil : s.stream
            }
            stream?.refresh()
        }
    }

    /// No more runs (one already running finishes).
    func stop() { state.withLock { $0.stopped = true } }
}
