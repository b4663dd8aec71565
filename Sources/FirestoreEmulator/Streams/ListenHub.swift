import EmulatorModel
import EmulatorStorage
import Synchronization

/// The Listen targets of every stream of one service, filed by what they watch: document names,
/// collections, collection-group ids, and kindless queries (every document below a parent). One
/// change-feed subscription per database with open streams; for each commit it looks up the
/// changed documents in the index and hands each concerned stream only its documents and the
/// targets they concern (a ``ListenCommit`` in the stream's ``ListenInbox``). The cost of a
/// commit is what it changed times the targets watching those places, not the number of streams
/// or targets.
///
/// Lock order: the engine's commit lock (delivery) → `state` → an inbox's lock. Streams call in
/// under their own lock, which is never taken under these.
final class ListenHub: Sendable {
    struct Ref: Hashable, Sendable {
        var stream: Int
        var target: Int32
    }

    private struct Watch {
        var subscription: Subscription?
        var inboxes: [Int: ListenInbox] = [:]
        var documents: [StorageKey: Set<Ref>] = [:]
        var collections: [StorageKey: Set<Ref>] = [:]
        /// Collection id (its raw bytes) → targets on that group, with the parent each needs.
        var groups: [[UInt8]: Set<Ref>] = [:]
        var descendants: Set<Ref> = []
        /// What each filed target watches, to unfile it.
        var filed: [Ref: ListenWatch] = [:]

        var isEmpty: Bool { inboxes.isEmpty }
    }

    private struct State {
        var nextStream = 0
        var watches: [DatabaseID: Watch] = [:]
    }

    private let engine: StorageEngine
    private let state = Mutex(State())
    /// Names this service's run in its resume tokens: a token of an earlier run (the emulator
    /// restarted) is answered with RESET, never read against this run's history.
    let epoch = UInt32.random(in: .min ... .max)
    /// Resume points (read times) before this are not this run's history.
    let startTime: Int64

    init(engine: StorageEngine, startTime: Int64) {
        self.engine = engine
        self.startTime = startTime
    }

    /// Opens a stream's share of `database`: from now on its inbox hears the commits that concern
    /// its filed targets. Returns the stream's id.
    func open(_ database: DatabaseID, _ inbox: ListenInbox) -> Int {
        state.withLock { s in
            s.nextStream += 1
            let id = s.nextStream
            if s.watches[database] == nil {
                var watch = Watch()
                // Subscribing takes only the feed's registry lock (a leaf), never the commit lock.
                watch.subscription = engine.subscribe(DocumentStore.namespace(database)) { [weak self] batch in
                    self?.deliver(database, batch)
                }
                s.watches[database] = watch
            }
            s.watches[database]?.inboxes[id] = inbox
            return id
        }
    }

    /// Closes a stream: unfiles its targets; the last stream of a database ends the subscription.
    func close(_ database: DatabaseID, stream: Int) {
        state.withLock { s in
            guard var watch = s.watches.removeValue(forKey: database) else { return }
            watch.inboxes[stream] = nil
            for ref in watch.filed.keys where ref.stream == stream { Self.unfile(ref, &watch) }
            if watch.isEmpty {
                watch.subscription?.cancel()
            } else {
                s.watches[database] = watch
            }
        }
    }

    /// Files a target under what it watches.
    func file(_ database: DatabaseID, stream: Int, target: Int32, _ what: ListenWatch) {
        state.withLock { s in
            guard s.watches[database]?.inboxes[stream] != nil else { return }
            let ref = Ref(stream: stream, target: target)
            s.watches[database].modify { watch in
                Self.unfile(ref, &watch)
                watch.filed[ref] = what
                switch what {
                case .documents(let paths):
                    for p in paths { watch.documents[Self.key(p), default: []].insert(ref) }
                case .collection(let c): watch.collections[Self.key(c), default: []].insert(ref)
                case .group(let id, _): watch.groups[Array(id.utf8), default: []].insert(ref)
                case .descendants: watch.descendants.insert(ref)
                }
            }
        }
    }

    /// Removes a target from the index (nothing when it is not filed).
    func unfile(_ database: DatabaseID, stream: Int, target: Int32) {
        state.withLock { s in
            s.watches[database].modify { Self.unfile(Ref(stream: stream, target: target), &$0) }
        }
    }

    /// How many targets are filed for `database` (tests: nothing stays behind).
    func filedCount(_ database: DatabaseID) -> Int {
        state.withLock { $0.watches[database]?.filed.count ?? 0 }
    }

    /// Whether `database` has a live subscription (tests).
    func isWatching(_ database: DatabaseID) -> Bool {
        state.withLock { $0.watches[database] != nil }
    }

    private static func key(_ path: ResourcePath) -> StorageKey { StorageKey(segments: path.segments) }

    private static func unfile(_ ref: Ref, _ watch: inout Watch) {
        guard let what = watch.filed.removeValue(forKey: ref) else { return }
        func drop<K: Hashable>(_ key: K, from map: inout [K: Set<Ref>]) {
            map[key]?.remove(ref)
            if map[key]?.isEmpty == true { map[key] = nil }
        }
        switch what {
        case .documents(let paths): for p in paths { drop(key(p), from: &watch.documents) }
        case .collection(let c): drop(key(c), from: &watch.collections)
        case .group(let id, _): drop(Array(id.utf8), from: &watch.groups)
        case .descendants: watch.descendants.remove(ref)
        }
    }

    /// Runs under the engine's commit lock: files each changed document with the streams whose
    /// targets watch its place, and wakes them. No decoding here; the streams' workers do it.
    private func deliver(_ database: DatabaseID, _ batch: ChangeBatch) {
        state.withLock { s in
            guard let watch = s.watches[database] else { return }
            let time = batch.commitTime
            var commits = ListenCommits(time: time)
            if !batch.clearedSubtrees.isEmpty { commits.everything(watch.inboxes.keys) }
            let scanGroups = !watch.groups.isEmpty
            let scanDocuments = !watch.documents.isEmpty
            // A commit's documents mostly share a collection: its targets are looked up once per
            // run of changes in it (`last*`), without building its key again.
            var lastParent: [UInt8] = []
            var lastRefs: [Ref] = []
            var lastIsCollection = false
            var lastValid = false
            for change in batch.changes {
                let key = change.key
                let encoded = key.encoded
                guard !encoded.isEmpty else { continue }
                var end = encoded.count - 1  // the parent's encoding ends before the last segment
                while end > 0 && encoded[end - 1] != 0 { end -= 1 }
                if !(lastValid && lastParent.count == end && encoded[0..<end].elementsEqual(lastParent)) {
                    lastParent = Array(encoded[0..<end])
                    lastRefs = []
                    lastValid = true
                    let collection = StorageKey(trustedEncoding: lastParent)
                    // Documents sit in collections (an odd depth); other keys are not documents.
                    lastIsCollection = collection.depth % 2 == 1
                    if lastIsCollection {
                        if let r = watch.collections[collection] { lastRefs.append(contentsOf: r) }
                        if scanGroups, let id = collection.segmentBytes.last, let r = watch.groups[id] {
                            lastRefs.append(contentsOf: r)
                        }
                        lastRefs.append(contentsOf: watch.descendants)
                    }
                }
                guard lastIsCollection else { continue }
                let named = scanDocuments ? watch.documents[key] : nil
                guard !lastRefs.isEmpty || named != nil else { continue }
                let document = ChangedDocument(key: key, entry: change.new)
                for ref in lastRefs { commits.add(document, for: ref) }
                if let named {
                    for ref in named { commits.add(document, for: ref) }
                }
            }
            for (id, commit) in commits.commits { watch.inboxes[id]?.push(commit) }
        }
    }
}

extension Optional {
    /// Mutates the wrapped value in place, if any.
    fileprivate mutating func modify(_ body: (inout Wrapped) -> Void) {
        guard var value = self else { return }
        self = nil
        body(&value)
        self = value
    }
}

/// A changed document as the feed reports it: its key and its entry after the commit (nil when
/// deleted); decoded by the stream's worker only for targets that must look inside.
struct ChangedDocument: Sendable {
    var key: StorageKey
    var entry: StoredEntry?

    var path: ResourcePath { DatabaseView<StorageSnapshot>.path(key) }
}

/// One stream's share of one commit.
struct ListenCommit: Sendable {
    var time: Int64
    /// A subtree was cut: every target of the stream evaluates again.
    var everything = false
    var documents: [ChangedDocument] = []
    /// Per target, the indexes into `documents` of its changes; targets in the order they came.
    private(set) var targets: [(id: Int32, indexes: [Int])] = []
    /// Target id → its place in `targets`, kept only once a second target came.
    private var places: [Int32: Int] = [:]

    init(time: Int64, everything: Bool = false) {
        self.time = time
        self.everything = everything
    }

    mutating func add(_ document: ChangedDocument, for target: Int32) {
        // The same document for a second target of the stream comes right after the first.
        if documents.isEmpty || documents[documents.count - 1].key != document.key { documents.append(document) }
        let index = documents.count - 1
        // Most changes go to the target of the change before (one target watching a collection
        // takes the commit's run of documents in it): no lookup for those.
        if let last = targets.indices.last, targets[last].id == target {
            targets[last].indexes.append(index)
            return
        }
        if targets.isEmpty {
            targets.append((target, [index]))
            return
        }
        if places.isEmpty {
            for (k, t) in targets.enumerated() { places[t.id] = k }
        }
        if let k = places[target] {
            targets[k].indexes.append(index)
        } else {
            places[target] = targets.count
            targets.append((target, [index]))
        }
    }
}

/// The commits of one delivery, per stream: the stream of the change before is found without a
/// lookup (a run of changes goes to the same streams).
struct ListenCommits {
    private(set) var commits: [(stream: Int, commit: ListenCommit)] = []
    private var places: [Int: Int] = [:]
    private var last = -1
    let time: Int64

    init(time: Int64) { self.time = time }

    mutating func add(_ document: ChangedDocument, for ref: ListenHub.Ref) {
        if last >= 0 && commits[last].stream == ref.stream {
            commits[last].commit.add(document, for: ref.target)
            return
        }
        if let k = places[ref.stream] {
            last = k
        } else {
            last = commits.count
            places[ref.stream] = last
            commits.append((ref.stream, ListenCommit(time: time)))
        }
        commits[last].commit.add(document, for: ref.target)
    }

    /// Every stream in `streams` evaluates all its targets again (a subtree was cut).
    mutating func everything(_ streams: some Sequence<Int>) {
        for id in streams {
            places[id] = commits.count
            commits.append((id, ListenCommit(time: time, everything: true)))
        }
    }
}

/// The commits a stream's worker has not looked at yet, filled under the engine's commit lock.
/// Bounded: past ``bound`` pending documents it keeps only "everything may have changed", and the
/// worker evaluates every target again.
final class ListenInbox: Sendable {
    static let bound = 262_144

    private struct Pending {
        var commits: [ListenCommit] = []
        var documents = 0
        var overflowed = false
        var newest: Int64 = 0
    }

    private let pending = Mutex(Pending())
    private let wake: @Sendable () -> Void

    init(wake: @escaping @Sendable () -> Void) { self.wake = wake }

    func push(_ commit: ListenCommit) {
        pending.withLock { p in
            p.newest = max(p.newest, commit.time)
            guard !p.overflowed else { return }
            p.documents += commit.documents.count
            if p.documents > Self.bound {
                p.overflowed = true
                p.commits = []
            } else {
                p.commits.append(commit)
            }
        }
        wake()
    }

    /// Puts `commits`, taken and not folded, back in front of those that came since (unless the
    /// inbox overflowed meanwhile: then everything is evaluated again anyway).
    func putBack(_ commits: ArraySlice<ListenCommit>) {
        guard !commits.isEmpty else { return }
        pending.withLock { p in
            guard !p.overflowed else { return }
            p.commits.insert(contentsOf: commits, at: 0)
            for c in commits { p.documents += c.documents.count }
        }
    }

    /// Everything pending, leaving the inbox empty: the commits in order, or `overflowed` (then
    /// `newest` is the newest commit time seen).
    func take() -> (commits: [ListenCommit], overflowed: Bool, newest: Int64) {
        pending.withLock { p in
            defer { p = Pending() }
            return (p.commits, p.overflowed, p.newest)
        }
    }
}
