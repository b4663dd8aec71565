/// How a namespace's writes travel from small trees to the main one.
///
/// Writes go into a small tree (`pending`), which becomes one of the namespace's *fresh* trees
/// (sealed: never changed again) at the end of the commit that fills it. When the fresh trees
/// hold `max(freshCapacity, live entries ÷ freshDivisor)` entries they are merged, in key order,
/// into the *recent* tree. When that holds
/// `max(recentMinimum, live entries ÷ recentDivisor)` entries it becomes the *draining* tree,
/// which later commits move, in key order and a stretch each, into the *main* tree (so no
/// commit copies the whole main tree at once). A merge in key order copies each leaf of its
/// target once for the several entries it receives and walks the target sequentially, where a
/// random insert into a large tree copies a cold leaf per key: that is what keeps the cost of
/// an insert from growing with the data (docs/STORAGE-SCALING.md). Bunched writes skip the
/// levels (`directClusters`).
package struct LevelPolicy: Sendable {
    package var freshCapacity: Int
    package var freshDivisor: Int
    /// `pending` is sealed into a fresh tree once it holds this many entries (until then later
    /// commits keep adding to it, copying its few leaves).
    package var sealSize: Int
    /// A full `pending` whose keys fall into few main leaves (keys in order, or bunched) goes
    /// straight into the main tree (tests turn this off to keep every level busy).
    package var directClusters: Bool
    package var recentMinimum: Int
    package var recentDivisor: Int
    /// Where the merges are computed.
    package var merges: MergeMode

    package init(
        freshCapacity: Int, freshDivisor: Int = .max, sealSize: Int = 1, recentMinimum: Int, recentDivisor: Int,
        directClusters: Bool = true, merges: MergeMode = .inCommit
    ) {
        self.directClusters = directClusters
        self.merges = merges
        self.freshCapacity = max(1, freshCapacity)
        self.sealSize = max(1, sealSize)
        self.freshDivisor = max(1, freshDivisor)
        self.recentMinimum = max(0, recentMinimum)
        self.recentDivisor = max(1, recentDivisor)
    }

    package static let standard = LevelPolicy(
        freshCapacity: 8192, freshDivisor: 32, sealSize: 4096, recentMinimum: 16384, recentDivisor: 4, merges: .background)

    /// Every commit's writes go down to the main tree when it ends (for tests of the main tree).
    package static let immediate = LevelPolicy(freshCapacity: 1, recentMinimum: 0, recentDivisor: .max)

    func freshLimit(_ live: Int) -> Int { max(freshCapacity, live / freshDivisor) }
    func recentLimit(_ live: Int) -> Int { max(recentMinimum, live / recentDivisor) }
}

/// Everything stored for one namespace: a value, so copying it (into a snapshot) is O(1).
///
/// The data is copy-on-write trees, newest first: `pending` (the newest writes), the sealed
/// `fresh` trees, `recent`, `draining` and `tree` (the main one). Each entry
/// is complete (current version and its retained history), so the newest tree holding a key
/// answers for it and older trees' entries for that key are superseded.
struct NamespaceState: Sendable {
    /// The main tree, its filters and live count.
    var main = MainLevel()
    /// The newest writes (at most about `sealSize` entries between commits). Every change made
    /// through this property counts in `pendingRewrites`; a commit's own writes of single keys
    /// go to `storedPending` directly (`storeInPending`), which the commit records, so that
    /// the tree can be recycled (`PendingSpare`).
    var pending: VersionedTree {
        _read { yield storedPending }
        _modify {
            pendingRewrites &+= 1
            yield &storedPending
        }
    }
    /// The storage of `pending`. Changed directly only by `storeInPending` (PendingSpare.swift),
    /// which records what it changes; everything else changes `pending`.
    var storedPending = VersionedTree()
    /// How many times `pending` was changed other than by `storeInPending`: a commit that saw
    /// it move cannot tell a spare which keys it changed.
    private(set) var pendingRewrites = 0
    /// Sealed pending trees, newest first, each with a filter of its keys.
    var fresh: [(root: TreeNode, filter: KeyFilter)] = []
    /// Entries in the fresh trees (a key in several counts for each).
    var freshEntries = 0
    /// Entries in `pending`, and a superset of its keys.
    var pendingEntries = 0
    var pendingFilter = KeyFilter()
    /// Direct mode: writes go straight into the main tree (see `settle`), entered when a full
    /// `pending` turned out bunched, left when the direct writes copy too many main nodes.
    var direct = false
    /// Direct writes since the last check, and the main tree's copy count then.
    var directWrites = 0
    var directCopiesBefore = 0
    var recent = VersionedTree()
    /// Entries in `recent` (more after a cut removed some).
    var recentEntries = 0
    /// A former `recent` tree being moved into the main tree a stretch per commit, from its
    /// first key on (moved entries leave it); older than `recent`, newer than the main tree.
    var draining = VersionedTree()
    /// Entries left in `draining` (more after a cut removed some).
    var drainingEntries = 0
    /// Supersets of the keys of `recent` and `draining`.
    var recentFilter = KeyFilter()
    var drainingFilter = KeyFilter()
    /// Merges computed off the commit and not installed yet (`LevelPolicy.merges`): the levels
    /// above hold every entry meanwhile, so reads never need them.
    var freshJob: MergeUnderWay<FreshMerge>?
    var drainJob: MergeUnderWay<DrainStretch>?
    var mergesUnderWay: Bool { freshJob != nil || drainJob != nil }
    /// Entries sealed since the last stretch of `draining` was moved (or started moving).
    var sealedSinceDrain = 0
    /// Number of live entries at head (between commits; a commit adds its changes at the end).
    var liveCount = 0
    var limits = NamespaceLimits.unlimited
    var indexes: [String: SecondaryIndex] = [:]
    /// Subtrees cut by commits whose time is still inside the retained history, oldest first.
    var retired: [RetiredSubtree] = []
    /// Where the next history sweep starts (see `sweepStep`).
    var sweepCursor: [UInt8] = []
    var commitsSinceSweep = 0

    /// The trees above the main one, newest first.
    var upperRoots: [TreeNode] { [pending.root] + fresh.map(\.root) + [recent.root, draining.root] }

    /// The head's trees, newest first.
    var headStack: TreeStack { TreeStack(upperRoots + [main.tree.root]) }

    var isEmpty: Bool { main.tree.root.isEmpty && upperRoots.allSatisfy(\.isEmpty) }

    /// Drops every entry of every level (limits and index definitions stay).
    mutating func removeData() {
        main = MainLevel()
        freshJob = nil
        drainJob = nil
        pending = VersionedTree()
        pendingEntries = 0
        pendingFilter = KeyFilter()
        direct = false
        directWrites = 0
        directCopiesBefore = 0
        fresh = []
        freshEntries = 0
        recent = VersionedTree()
        recentEntries = 0
        draining = VersionedTree()
        drainingEntries = 0
        recentFilter = KeyFilter()
        drainingFilter = KeyFilter()
        liveCount = 0
    }

    // MARK: Head lookups

    /// The leaf and slot of the newest entry for `key` at head (tombstones included), or nil.
    /// The leaf is not retained: it is valid while this state is held.
    /// `probingMain` asks the main tree's filter first: worth it where most keys are new (writes),
    /// a wasted cache miss where most keys exist (reads).
    @inline(__always)
    func headSlot(_ key: [UInt8], probingMain: Bool = true) -> (leaf: Unmanaged<TreeNode>, index: Int)? {
        headSlot(key, hash: KeyFilter.hash(key), probingMain: probingMain)
    }

    @inline(__always)
    func headSlot(_ key: [UInt8], hash: UInt64, probingMain: Bool = true) -> (leaf: Unmanaged<TreeNode>, index: Int)? {
        // The recent and draining trees' filters are large (ten bits per key): a probe of either
        // is a cache miss at 1M, which the probes of the small trees before it would otherwise
        // not overlap.
        recentFilter.prefetch(hash)
        drainingFilter.prefetch(hash)
        guard !probingMain else {
            if let found = upperSlot(key, hash) { return found }
            guard main.filter.mayContain(hash) else { return nil }
            return NamespaceState.slot(key, in: main.tree.root)
        }
        // A read: most keys are in the main tree, so its leaf is found first, and the wait for
        // that leaf (a cache miss in a large tree) overlaps the waits for the filters above.
        return key.withUnsafeBufferPointer { key in
            let mainLeaf = VersionedTree.leaf(for: key, below: Unmanaged.passUnretained(main.tree.root))
            if let found = upperSlot(key, hash) { return found }
            let (index, found) = mainLeaf._withUnsafeGuaranteedRef { $0.entryIndex(for: key, from: 0) }
            return found ? (mainLeaf, index) : nil
        }
    }

    /// The newest slot for `key` in a tree above the main one, or nil.
    @inline(__always)
    private func upperSlot(_ key: [UInt8], _ hash: UInt64) -> (leaf: Unmanaged<TreeNode>, index: Int)? {
        key.withUnsafeBufferPointer { upperSlot($0, hash) }
    }

    @inline(__always)
    private func upperSlot(_ key: UnsafeBufferPointer<UInt8>, _ hash: UInt64) -> (leaf: Unmanaged<TreeNode>, index: Int)? {
        if pendingFilter.mayContain(hash), let found = NamespaceState.slot(key, in: pending.root) { return found }
        for run in fresh where run.filter.mayContain(hash) {
            if let found = NamespaceState.slot(key, in: run.root) { return found }
        }
        if recentFilter.mayContain(hash), let found = NamespaceState.slot(key, in: recent.root) { return found }
        if drainingFilter.mayContain(hash), let found = NamespaceState.slot(key, in: draining.root) { return found }
        return nil
    }

    @inline(__always)
    private static func slot(_ key: [UInt8], in root: TreeNode) -> (leaf: Unmanaged<TreeNode>, index: Int)? {
        key.withUnsafeBufferPointer { slot($0, in: root) }
    }

    @inline(__always)
    private static func slot(_ key: UnsafeBufferPointer<UInt8>, in root: TreeNode) -> (leaf: Unmanaged<TreeNode>, index: Int)? {
        // An empty tree is an empty leaf: the search finds nothing in it.
        let leaf = VersionedTree.leaf(for: key, below: Unmanaged.passUnretained(root))
        let (index, found) = leaf._withUnsafeGuaranteedRef { $0.entryIndex(for: key, from: 0) }
        return found ? (leaf, index) : nil
    }

    /// True if `pending` holds an entry for `key` (whose hash is `hash`).
    @inline(__always)
    private func pendingHolds(_ key: [UInt8], _ hash: UInt64) -> Bool {
        pendingFilter.mayContain(hash) && NamespaceState.slot(key, in: pending.root) != nil
    }

    /// True if a tree between `pending` and the main one holds an entry for `key`.
    private func freshOrRecentHolds(_ key: [UInt8], _ hash: UInt64) -> Bool {
        for run in fresh where run.filter.mayContain(hash) {
            if NamespaceState.slot(key, in: run.root) != nil { return true }
        }
        if recentFilter.mayContain(hash) && NamespaceState.slot(key, in: recent.root) != nil { return true }
        return drainingFilter.mayContain(hash) && NamespaceState.slot(key, in: draining.root) != nil
    }

    /// The newest entry for `key` at head, tombstones included.
    func headEntry(_ key: [UInt8]) -> VersionedEntry? {
        headEntry(key, hash: KeyFilter.hash(key))
    }

    private func headEntry(_ key: [UInt8], hash: UInt64) -> VersionedEntry? {
        headSlot(key, hash: hash).map { found in found.leaf._withUnsafeGuaranteedRef { $0.entry(at: found.index, key: key) } }
    }

    /// False when no tree of the head holds an entry in `range` (live or a tombstone), so a
    /// scan of the range at head finds nothing; true when one may (only a scan can tell then).
    /// One descent per tree, nothing allocated.
    func mayHoldEntries(in range: StorageKeyRange) -> Bool {
        guard let upper = range.upper else { return mayHoldEntries(from: range.lower) { _ in true } }
        return upper.withUnsafeBufferPointer { upper in
            mayHoldEntries(from: range.lower) { ByteOrder.compare($0, 0, $0.count, upper) < 0 }
        }
    }

    /// `mayHoldEntries(in:)` for the subtree of the key encoded as `prefix` (the keys starting
    /// with it), without making the range's upper bound.
    func mayHoldEntries(inSubtreeOf prefix: [UInt8]) -> Bool {
        prefix.withUnsafeBufferPointer { bytes in
            mayHoldEntries(from: prefix) { key in
                key.count >= bytes.count && ByteOrder.compare(key, 0, bytes.count, bytes) == 0
            }
        }
    }

    /// `mayHoldEntries(inSubtreeOf:)` for each of `prefixes`, which must be in ascending order:
    /// the same answers, but a search that ends in the leaf the one before ended in (the prefix
    /// is below that leaf's upper bound) reuses it instead of descending again.
    func mayHoldEntries(inSubtreesOfAscending prefixes: [[UInt8]]) -> [Bool] {
        var holds = [Bool](repeating: false, count: prefixes.count)
        for root in upperRoots + [main.tree.root] where !root.isEmpty {
            var finger = LeafFinger(root: root)
            for index in prefixes.indices where !holds[index] {
                holds[index] = prefixes[index].withUnsafeBufferPointer { finger.mayHold(subtreeOf: $0) }
            }
        }
        return holds
    }

    /// Whether a tree may hold a key ≥ `lower` for which `inRange` holds, where the keys
    /// `inRange` accepts are one stretch of the order from `lower` on.
    private func mayHoldEntries(from lower: [UInt8], _ inRange: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        lower.withUnsafeBufferPointer { lower in
            if NamespaceState.mayHold(pending.root, lower, inRange) { return true }
            for run in fresh where NamespaceState.mayHold(run.root, lower, inRange) { return true }
            return NamespaceState.mayHold(recent.root, lower, inRange)
                || NamespaceState.mayHold(draining.root, lower, inRange)
                || NamespaceState.mayHold(main.tree.root, lower, inRange)
        }
    }

    /// Whether the tree at `root` may hold a key ≥ `lower` in range: false only when the first
    /// key ≥ `lower` in the leaf a search for `lower` ends in is out of range, or the leaf has
    /// none and the nearest separator to the right of the descent (a lower bound of every later
    /// key) is out of range or there is none.
    private static func mayHold(
        _ root: TreeNode, _ lower: UnsafeBufferPointer<UInt8>, _ inRange: (UnsafeBufferPointer<UInt8>) -> Bool
    ) -> Bool {
        var finger = LeafFinger(root: root)
        return finger.mayHold(from: lower, inRange)
    }

    // MARK: Writing

    /// Runs `body` on the head entry for `key` (an absent placeholder if none) and, if it
    /// changed, stores the result in `pending` (or, in direct mode, in the main tree when no
    /// upper tree holds the key). `pending` is sealed only between commits (`settle`), so a
    /// second write of a key in one commit finds its first there (or in the main tree).
    mutating func update<R>(_ key: [UInt8], horizon: CommitTime, _ body: (inout VersionedEntry) -> R) -> R {
        update(key, horizon: horizon, reporting: { (body(&$0), true) })
    }

    /// `update` for a body that also says whether it changed the entry. One that did not (the
    /// same bytes written again, a precondition that failed) leaves `pending` as it was, still
    /// shared with the published head, instead of copying the path to the key.
    mutating func update<R>(
        _ key: [UInt8], horizon: CommitTime, reporting body: (inout VersionedEntry) -> (result: R, changed: Bool)
    ) -> R {
        var unrecorded = PendingSpare(namespace: "", recording: false)
        return update(key, horizon: horizon, recording: &unrecorded, reporting: body)
    }

    /// `update(_:horizon:reporting:)` for a commit that records its stores into `pending` in
    /// `record` (and may recycle the tree `pending` was two commits ago: `PendingSpare`).
    mutating func update<R>(
        _ key: [UInt8], horizon: CommitTime, recording record: inout PendingSpare,
        reporting body: (inout VersionedEntry) -> (result: R, changed: Bool)
    ) -> R {
        // Upper trees are copied unpruned (horizon 0): a tombstone there must outlive its history,
        // to hide older levels; live entries are pruned here (`pruneLive`).
        let hash = KeyFilter.hash(key)
        if pendingFilter.mayContain(hash), let found = NamespaceState.slot(key, in: pending.root) {
            // The body runs on a copy read from the tree (from the slot just found: the leaf
            // lives while `pending` holds it); the tree is written only if it changed.
            var entry = found.leaf._withUnsafeGuaranteedRef { $0.entry(at: found.index, key: key) }
            let (result, changed) = body(&entry)
            guard changed else { return result }
            NamespaceState.pruneLive(&entry, horizon)
            storeInPending(entry, recording: &record)
            return result
        }
        if direct && !freshOrRecentHolds(key, hash) {
            directWrites += 1
            main.filter.insert(hash)
            main.nextFilter.insert(hash)
            var change = 0
            let result = main.tree.update(key, horizon: horizon) { entry in
                let wasLive = entry.isLive
                let result = body(&entry).result
                change = (entry.isLive ? 1 : 0) - (wasLive ? 1 : 0)
                return result
            }
            main.live += change
            return result
        }
        var entry = headEntry(key, hash: hash) ?? VersionedEntry(absent: key)
        let before = entry.updateTime
        let result = body(&entry).result
        // A write that changed anything stamped the commit time, later than any older level's.
        if entry.updateTime != before {
            NamespaceState.pruneLive(&entry, horizon)
            storeInPending(entry, recording: &record)
            notePendingKey(hash)
        }
        return result
    }

    /// Adds the entries of `batch` (live, created now), whose keys no tree of the head holds
    /// (not even as a tombstone; `hashes` are theirs), where `update` would store each: in
    /// `pending`, or in direct mode in the main tree. One merge in key order rebuilds each leaf
    /// they reach once.
    mutating func insertNew(_ batch: VersionedTree, hashes: [UInt64], horizon: CommitTime) {
        var source = TreeCursor(root: batch.root)
        source.seek(atLeast: [])
        if direct {
            // No upper tree holds these keys (the direct path of `update`).
            directWrites += hashes.count
            for hash in hashes {
                main.filter.insert(hash)
                main.nextFilter.insert(hash)
            }
            main.tree.merge(&source, horizon: horizon) { _, _, _ in }
            main.live += hashes.count
            return
        }
        pending.merge(&source, horizon: 0) { _, _, _ in }
        pendingEntries += hashes.count
        if !pendingFilter.isActive { pendingFilter = KeyFilter(capacity: 256) }
        for hash in hashes { pendingFilter.insert(hash) }
        if pendingFilter.isOverfull { pendingFilter = KeyFilter(keysOf: pending, minimumCapacity: 256) }
    }

    /// Drops the versions of a live entry no read can see any more. Upper trees are pruned only
    /// here, at writes: a key written again and again stays in `pending` and would otherwise keep
    /// every version. A tombstone keeps its history (dropping it all would let an older tree's
    /// entry for the key show through).
    @inline(__always)
    private static func pruneLive(_ entry: inout VersionedEntry, _ horizon: CommitTime) {
        if horizon > 0 && entry.value != nil && !entry.history.isEmpty { _ = entry.prune(horizon: horizon) }
    }

    /// Drops the superseded versions of `key` (a namespace without history, after the commit that
    /// wrote it). A tombstone above the main tree keeps one empty version, so that it still hides
    /// older levels; in the main tree it goes altogether.
    mutating func forgetHistory(_ key: [UInt8]) {
        let hash = KeyFilter.hash(key)
        if pendingHolds(key, hash) {
            pending.update(key, horizon: 0) { NamespaceState.dropVersions(&$0, keepingMarker: true) }
        } else if direct && !freshOrRecentHolds(key, hash) && main.filter.mayContain(hash) {
            main.tree.update(key, horizon: 0) { NamespaceState.dropVersions(&$0, keepingMarker: false) }
        }
    }

    private static func dropVersions(_ entry: inout VersionedEntry, keepingMarker: Bool) {
        guard let last = entry.history.last else { return }
        if entry.value != nil || !keepingMarker {
            entry.history = []
        } else if last.value != nil || entry.history.count > 1 {
            entry.history = [EntryVersion(time: last.time, createTime: last.createTime, value: nil)]
        }
    }

    /// Stores `entry` (live) in place of whatever the head holds for its key; returns that.
    /// (A restore settles whenever `pending` has `sealSize` entries.)
    mutating func replace(with entry: VersionedEntry) -> VersionedEntry? {
        let hash = KeyFilter.hash(entry.key)
        let old = headEntry(entry.key, hash: hash)
        if pendingHolds(entry.key, hash) {
            pending.store(entry, horizon: 0)
        } else {
            addToPending(entry, hash)
        }
        return old
    }

    /// Adds `entry` for a key `pending` does not hold.
    private mutating func addToPending(_ entry: VersionedEntry, _ hash: UInt64) {
        pending.store(entry, horizon: 0)
        notePendingKey(hash)
    }

    /// Counts a key just added to `pending` (whose hash is `hash`).
    private mutating func notePendingKey(_ hash: UInt64) {
        pendingEntries += 1
        if !pendingFilter.isActive { pendingFilter = KeyFilter(capacity: 256) }
        pendingFilter.insert(hash)
        if pendingFilter.isOverfull { pendingFilter = KeyFilter(keysOf: pending, minimumCapacity: 256) }
    }

    /// Ends a commit's (or a stretch of a restore's) writes: `pending` becomes a fresh tree when
    /// it holds `sealSize` entries; the fresh trees are merged into `recent` when they hold
    /// enough; the next stretch of `draining` moves into the main tree; and `recent` becomes
    /// `draining` when it is full. With `policy.merges` other than `.inCommit`, the two merges
    /// are computed off the commit (`LevelJob`) and installed here by a later commit.
    mutating func settle(policy: LevelPolicy, horizon: CommitTime) {
        installFinishedMerges(waiting: false)
        if direct && directWrites >= policy.sealSize {
            // More than one node copied per 8 writes: the writes are scattered after all.
            if (main.tree.copiedNodes - directCopiesBefore) * 8 > directWrites { direct = false }
            main.growFilter(scanning: 4 * directWrites, liveCount: liveCount)
            directWrites = 0
            directCopiesBefore = main.tree.copiedNodes
        }
        var sealed = 0
        if pendingEntries >= policy.sealSize {
            sealed = pendingEntries
            if policy.directClusters && pendingIsClustered() {
                // Keys in order (push ids, counters) or bunched: they land in a few leaves of the
                // main tree, so they go there at once instead of through the levels, and so do
                // later writes while they stay bunched.
                installDrain(waiting: true)
                moveToMain(pending, horizon: horizon)
                direct = true
                directWrites = 0
                directCopiesBefore = main.tree.copiedNodes
            } else {
                fresh.insert((pending.root, pendingFilter), at: 0)
                freshEntries += sealed
            }
            pending = VersionedTree()
            pendingEntries = 0
            pendingFilter = KeyFilter()
        }
        let limit = policy.recentLimit(liveCount)
        promoteIfFull(limit, horizon: horizon)
        let freshLimit = policy.freshLimit(liveCount)
        // A background merge that falls behind holds up the commits that would pile up more.
        if freshJob != nil && freshEntries >= 2 * freshLimit { installFresh(waiting: true) }
        if freshJob == nil && freshEntries >= freshLimit {
            mergeFresh(policy)
            promoteIfFull(limit, horizon: horizon)  // if merged in this commit
        }
        guard !draining.root.isEmpty else { return }
        sealedSinceDrain += sealed
        if sealedSinceDrain > 0 && drainJob == nil {
            // Spread what is left over the inflow still to come before `recent` is three quarters
            // full, so the work per commit stays even and `draining` is gone in time (merges off
            // the commit report into `recent` late).
            let inflowLeft = max(limit * 3 / 4 - recentEntries - freshEntries, sealedSinceDrain)
            var count = max(1, (drainingEntries * sealedSinceDrain + inflowLeft - 1) / inflowLeft)
            // Off the commit, a stretch copies the main tree's filters: take larger ones.
            if policy.merges != .inCommit { count = max(count, drainingEntries / 8) }
            sealedSinceDrain = 0
            drain(count, horizon: horizon, merges: policy.merges)
        }
    }

    /// Makes a full `recent` the `draining` tree (moving what is left of the current one into
    /// the main tree first).
    private mutating func promoteIfFull(_ limit: Int, horizon: CommitTime) {
        guard recentEntries >= limit else { return }
        // Usually nothing to wait for: `recent` fills when a merge is installed, before the next starts.
        installFinishedMerges(waiting: true)
        if !draining.root.isEmpty { drain(.max, horizon: horizon, merges: .inCommit) }
        draining = recent
        drainingEntries = recentEntries
        drainingFilter = recentFilter
        recent = VersionedTree()
        recentEntries = 0
        recentFilter = KeyFilter()
        sealedSinceDrain = 0
        if limit == 0 { drain(.max, horizon: horizon, merges: .inCommit) }
    }

    /// Merges every fresh tree into `recent`, now or (per `policy.merges`) off the commit.
    private mutating func mergeFresh(_ policy: LevelPolicy) {
        let filterCapacity = max(policy.recentLimit(liveCount), freshEntries) * 2
        let runs = fresh.map(\.root)
        guard policy.merges != .inCommit else {
            recentEntries += NamespaceState.mergeFresh(
                runs, into: &recent, filter: &recentFilter, filterCapacity: filterCapacity, minimumCapacity: policy.recentMinimum)
            fresh = []
            freshEntries = 0
            return
        }
        let (recent, filter, runEntries) = (self.recent, recentFilter, freshEntries)
        freshJob = MergeUnderWay(inputs: [recent.root] + runs, job: LevelJob(policy.merges) {
            var merged = FreshMerge(recent: recent, filter: filter, runEntries: runEntries)
            merged.added = NamespaceState.mergeFresh(
                runs, into: &merged.recent, filter: &merged.filter, filterCapacity: filterCapacity,
                minimumCapacity: policy.recentMinimum)
            return merged
        })
    }

    /// Merges `runs` (newest first; the newest entry for a key wins) into `recent`, adding new
    /// keys to `filter` (made with `filterCapacity` if inactive, rebuilt from `recent` if it
    /// overfills); returns the number of keys `recent` did not hold before.
    private static func mergeFresh(
        _ runs: [TreeNode], into recent: inout VersionedTree, filter: inout KeyFilter, filterCapacity: Int,
        minimumCapacity: Int
    ) -> Int {
        if !filter.isActive { filter = KeyFilter(capacity: filterCapacity) }
        var source = SlotMerge(runs)
        var added = 0
        recent.merge(&source, horizon: 0) { leaf, index, replaced in
            guard replaced == nil else { return }
            filter.insert(leaf.withKey(at: index) { KeyFilter.hash($0) })
            added += 1
        }
        if filter.isOverfull { filter = KeyFilter(keysOf: recent, minimumCapacity: minimumCapacity) }
        return added
    }

    /// Installs the level merges that have finished (all of them, waiting, when `waiting`).
    mutating func installFinishedMerges(waiting: Bool) {
        installFresh(waiting: waiting)
        installDrain(waiting: waiting)
    }

    /// Installs the fresh merge, if it finished (or after waiting for it), unless the trees it
    /// merged were replaced meanwhile.
    private mutating func installFresh(waiting: Bool) {
        guard let under = freshJob, let merged = waiting ? under.job.wait() : under.job.result else { return }
        freshJob = nil
        let runs = under.inputs.dropFirst()
        guard under.inputs.first === recent.root, fresh.count >= runs.count,
              zip(fresh.suffix(runs.count), runs).allSatisfy({ $0.root === $1 })
        else { return }
        let replaced = (recent, recentFilter, Array(fresh.suffix(runs.count).map(\.root)))
        recent = merged.recent
        recentFilter = merged.filter
        recentEntries += merged.added
        fresh.removeLast(runs.count)
        freshEntries -= merged.runEntries
        releaseOffTheCommit(replaced, mode: under.job.mode)
    }

    /// Installs the drain stretch, if it finished (or after waiting for it), unless the trees it
    /// started from were replaced meanwhile.
    private mutating func installDrain(waiting: Bool) {
        guard let under = drainJob, let stretch = waiting ? under.job.wait() : under.job.result else { return }
        drainJob = nil
        guard under.inputs.count == 2, under.inputs[0] === main.tree.root, under.inputs[1] === draining.root else { return }
        let replaced = (main, draining)
        main = stretch.main
        draining = stretch.draining
        finishDrain(moved: stretch.moved, exhausted: stretch.exhausted)
        releaseOffTheCommit(replaced, mode: under.job.mode)
    }

    /// True if `pending` can go straight into the main tree cheaply and correctly: no upper tree
    /// may hold any of its keys (their entries are older and would hide the moved ones), and a
    /// sample of its keys (every 4th) must fall into at most a quarter as many main leaves, so
    /// each leaf the move copies takes about 16 keys or more. Scattered keys are recognised
    /// after 32 samples.
    private func pendingIsClustered() -> Bool {
        var upperFilters = fresh.map(\.filter)
        if !recent.root.isEmpty { upperFilters.append(recentFilter) }
        if !draining.root.isEmpty { upperFilters.append(drainingFilter) }
        var lastLeaf: ObjectIdentifier?
        var leaves = 0
        var samples = 0
        var cursor = TreeCursor(root: pending.root)
        cursor.seek(atLeast: [])
        var position = 0
        while let hash = cursor.withCurrentKey({ KeyFilter.hash($0) }) {
            if upperFilters.contains(where: { $0.mayContain(hash) }) { return false }
            if position % 4 == 0, let key = cursor.withCurrentKey({ Array($0) }) {
                samples += 1
                // Keys come in order, so a leaf seen again is always the last one seen.
                let leaf = ObjectIdentifier(main.tree.leaf(for: key))
                if leaf != lastLeaf {
                    leaves += 1
                    lastLeaf = leaf
                }
                if samples >= 32 && leaves * 4 > samples * 3 { return false }
            }
            position += 1
            cursor.next()
        }
        return leaves * 4 <= max(samples, 4)
    }

    /// Puts every entry of `source` (which no upper tree's entries may hide) into the main tree.
    private mutating func moveToMain(_ source: VersionedTree, horizon: CommitTime) {
        _ = main.moveIn(first: .max, of: source, horizon: horizon, liveCount: liveCount)
    }

    /// Moves the first `count` entries of `draining` into the main tree and cuts them out of
    /// `draining`; drops `draining` when its last entry has moved. Off the commit unless `merges`
    /// is `.inCommit` (or direct writes are going to the main tree meanwhile).
    private mutating func drain(_ count: Int, horizon: CommitTime, merges: MergeMode) {
        if merges != .inCommit, !direct {
            let (main, draining, liveCount) = (self.main, self.draining, self.liveCount)
            drainJob = MergeUnderWay(inputs: [main.tree.root, draining.root], job: LevelJob(merges) {
                var stretch = DrainStretch(main: main, draining: draining)
                (stretch.moved, stretch.exhausted) = NamespaceState.drainStretch(
                    count, main: &stretch.main, draining: &stretch.draining, horizon: horizon, liveCount: liveCount)
                return stretch
            })
            return
        }
        let (moved, exhausted) = NamespaceState.drainStretch(
            count, main: &main, draining: &draining, horizon: horizon, liveCount: liveCount)
        finishDrain(moved: moved, exhausted: exhausted)
    }

    private mutating func finishDrain(moved: Int, exhausted: Bool) {
        if exhausted {
            drainingFilter = KeyFilter()
            drainingEntries = 0
        } else {
            drainingEntries = max(0, drainingEntries - moved)
        }
    }

    /// Moves the first `count` entries of `draining` into `main` and cuts them out of
    /// `draining` (emptied when its last entry has moved); returns how many moved and whether
    /// `draining` is done.
    private static func drainStretch(
        _ count: Int, main: inout MainLevel, draining: inout VersionedTree, horizon: CommitTime, liveCount: Int
    ) -> (moved: Int, exhausted: Bool) {
        let (moved, last, exhausted) = main.moveIn(first: count, of: draining, horizon: horizon, liveCount: liveCount)
        if exhausted {
            draining = VersionedTree()
        } else if let last {
            // Up to the smallest key after `last`: exactly the entries just moved.
            _ = draining.removeAll(in: StorageKeyRange(lower: [], upper: last + [0]), collect: false, counting: false)
        }
        return (moved, exhausted)
    }

    /// Puts `entries` (keys strictly ascending) in place of an empty namespace's data, built
    /// bottom-up.
    mutating func load(sorted entries: some Sequence<VersionedEntry>, count: Int) {
        removeData()
        main.tree = VersionedTree(sorted: entries)
        main.filter = KeyFilter(keysOf: main.tree, minimumCapacity: 0)
        liveCount = count
        main.live = count
    }

    // MARK: Removing

    /// Removes every entry in `range` from every level (tombstones and history included);
    /// returns the entries that were live at head (all of them when `collect`, else only the
    /// count). `liveNow` is the namespace's live count including changes a commit in progress has
    /// made but not yet counted (`liveCount` between commits).
    mutating func removeAll(in range: StorageKeyRange, collect: Bool, liveNow: Int) -> RemovedEntries {
        // A cut replaces the trees a merge under way started from: its result could not be
        // installed afterwards, and waiting for it would hold up the cut, so an unfinished one is
        // dropped (the trees stay as they are and later commits merge them again).
        installFinishedMerges(waiting: false)
        freshJob = nil
        drainJob = nil
        let roots = upperRoots.filter { !$0.isEmpty }
        if roots.isEmpty {
            let removed = main.tree.removeAll(in: range, collect: collect)
            main.live -= removed.count
            return removed
        }
        // Each key in range the upper trees hold counts as its newest entry says, instead of as
        // the main tree's entry for it (if any) says.
        var adjustment = 0
        var upper: [(entry: VersionedEntry, mainLive: Bool)] = []
        if collect {
            var cursor = StackCursor(TreeStack(roots))
            cursor.seek(atLeast: range.lower)
            while let entry = cursor.current, range.contains(entry.key) {
                let mainLive = mainHoldsLive(entry.key)
                upper.append((entry, mainLive))
                adjustment += (entry.isLive ? 1 : 0) - (mainLive ? 1 : 0)
                cursor.next()
            }
        } else {
            adjustment = upperAdjustment(in: range, roots: roots, liveNow: liveNow)
        }
        var removed = main.tree.removeAll(in: range, collect: collect)
        main.live -= removed.count
        _ = pending.removeAll(in: range, collect: false, counting: false)
        for index in fresh.indices { fresh[index].root = fresh[index].root.removingAll(in: range) }
        _ = recent.removeAll(in: range, collect: false, counting: false)
        _ = draining.removeAll(in: range, collect: false, counting: false)
        removed.count += adjustment
        if collect {
            // Main entries an upper level superseded are replaced by the upper ones.
            let superseded = Set(upper.lazy.filter(\.mainLive).map(\.entry.key))
            removed.entries.removeAll { superseded.contains($0.key) }
            removed.entries.append(contentsOf: upper.lazy.filter(\.entry.isLive).map(\.entry))
        }
        return removed
    }

    /// The sum, over the distinct keys in `range` that the upper trees hold, of (newest entry
    /// live) − (main entry live): what the upper trees change about the range's live count.
    /// Over every key the sum is `liveNow − mainLive`, so it is counted on whichever side of the
    /// range holds fewer upper keys: both sides are walked in turn, a stretch at a time, and the
    /// first to finish answers (a clear of nearly everything costs no more than one of nearly
    /// nothing).
    private func upperAdjustment(in range: StorageKeyRange, roots: [TreeNode], liveNow: Int) -> Int {
        var outsideRanges: [StorageKeyRange] = []
        if !range.lower.isEmpty { outsideRanges.append(StorageKeyRange(lower: [], upper: range.lower)) }
        if let upper = range.upper { outsideRanges.append(StorageKeyRange(lower: upper, upper: nil)) }
        var inside = AdjustmentWalk(roots, [range])
        var outside = AdjustmentWalk(roots, outsideRanges)
        while true {
            if outside.step(256, self) { return liveNow - main.live - outside.total }
            if inside.step(256, self) { return inside.total }
        }
    }

    /// True if the main tree holds a live entry for `key`.
    func mainHoldsLive(_ key: [UInt8]) -> Bool {
        key.withUnsafeBufferPointer { mainHoldsLive($0) }
    }

    func mainHoldsLive(_ key: UnsafeBufferPointer<UInt8>) -> Bool {
        guard main.filter.mayContain(KeyFilter.hash(key)), let (leaf, index) = NamespaceState.slot(key, in: main.tree.root) else {
            return false
        }
        return leaf._withUnsafeGuaranteedRef { $0.slots[index].valueKind != LeafSlot.tombstone }
    }

    // MARK: History sweep

    /// Every few commits that change this namespace, copy one leaf of the main tree at a moving
    /// cursor so that expired versions and tombstones in leaves no commit touches are eventually dropped.
    mutating func sweepStep(horizon: CommitTime) {
        commitsSinceSweep += 1
        // Copying a main leaf now would make a drain in progress start from a replaced tree.
        guard commitsSinceSweep >= NamespaceState.sweepInterval, horizon > 0, drainJob == nil else { return }
        commitsSinceSweep = 0
        // An empty main tree (every entry still above it) has nothing to sweep: copying its
        // empty root would only allocate.
        guard !main.tree.root.isEmpty else {
            sweepCursor = []
            return
        }
        let cursor = sweepCursor
        main.tree.update(cursor, horizon: horizon) { _ in }  // copies (and so prunes) the leaf
        let leaf = main.tree.leaf(for: cursor)
        if leaf.count == 0 || !ByteOrder.less(cursor, leaf.key(at: leaf.count - 1)) {
            sweepCursor = []  // past the last leaf: start over
        } else {
            sweepCursor = leaf.key(at: leaf.count - 1) + [0]
        }
    }

    static let sweepInterval = 4
}

/// The published head: what a new snapshot sees.
struct EngineState: Sendable {
    var namespaces = NamespaceTable()
    var lastCommitTime: CommitTime = 0
    /// Reads before this time are refused: history older than this may have been dropped.
    var retainedSince: CommitTime = 0
    /// The time of the oldest retired subtree in any namespace (`.max` when there is none), so a
    /// commit knows without looking at every namespace whether one has expired.
    var earliestRetired: CommitTime = .max

    /// Drops the retired subtrees the history horizon has passed; returns them.
    mutating func dropRetired(through horizon: CommitTime) -> [RetiredSubtree] {
        guard earliestRetired <= horizon else { return [] }
        var dropped: [RetiredSubtree] = []
        var earliest = CommitTime.max
        for id in namespaces.keys where namespaces.withState(id, { !$0.retired.isEmpty }) == true {
            namespaces.modify(id) { space in
                dropped += space.dropRetired(through: horizon)
                if let first = space.retired.first { earliest = min(earliest, first.time) }
            }
        }
        earliestRetired = earliest
        return dropped
    }
}

/// `NamespaceState.upperAdjustment` for the keys of some ranges (ascending, disjoint), a stretch
/// at a time.
private struct AdjustmentWalk {
    private let roots: [TreeNode]
    private var ranges: ArraySlice<StorageKeyRange>
    private var keys: SlotMerge?
    private(set) var total = 0

    init(_ roots: [TreeNode], _ ranges: [StorageKeyRange]) {
        self.roots = roots
        self.ranges = ranges[...]
        keys = ranges.first.map { SlotMerge(roots, from: $0.lower) }
    }

    /// Takes up to `count` more keys; returns true when every range is done.
    mutating func step(_ count: Int, _ space: NamespaceState) -> Bool {
        var taken = 0
        while taken < count, let range = ranges.first {
            // `roots` hold the leaf.
            guard let (leaf, index) = keys?.currentSlot,
                  let change = leaf._withUnsafeGuaranteedRef({ leaf in
                      leaf.withKey(at: index) { key -> Int? in
                          if let upper = range.upper,
                             !upper.withUnsafeBufferPointer({ ByteOrder.compare(key, 0, key.count, $0) < 0 }) {
                              return nil
                          }
                          let live = leaf.slots[index].valueKind != LeafSlot.tombstone
                          return (live ? 1 : 0) - (space.mainHoldsLive(key) ? 1 : 0)
                      }
                  })
            else {
                // Past this range: on to the next one (which seeks to its own start).
                ranges = ranges.dropFirst()
                keys = ranges.first.map { SlotMerge(roots, from: $0.lower) }
                continue
            }
            total += change
            keys?.next()
            taken += 1
        }
        return ranges.isEmpty
    }
}

/// A search for subtree prefixes in ascending order through one tree (`mayHoldEntries(
/// inSubtreesOfAscending:)`): it remembers the leaf the last search ended in and the nearest
/// separator to the right of that descent (the leaf's upper bound), so a prefix below that bound
/// searches the same leaf without a descent. The tree must stay held and unchanged meanwhile
/// (nodes below a held root are never changed or freed), so nothing is retained.
private struct LeafFinger {
    let root: Unmanaged<TreeNode>
    var leaf: Unmanaged<TreeNode>?
    /// The internal node and index of the separator bounding `leaf` on the right, if any.
    var right: (node: Unmanaged<TreeNode>, separator: Int)?

    init(root: TreeNode) { self.root = Unmanaged.passUnretained(root) }

    /// Whether the tree may hold a key ≥ `lower` in range (`NamespaceState.mayHold`): false only
    /// when the first key ≥ `lower` in the leaf a search for `lower` ends in is out of range, or
    /// the leaf has none and the leaf's upper bound (a lower bound of every later key) is out of
    /// range or there is none. `lower` must not be below the last search's.
    mutating func mayHold(from lower: UnsafeBufferPointer<UInt8>, _ inRange: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        if leaf == nil || right.map({ LeafFinger.compare(lower, separator: $0) >= 0 }) == true { descend(lower) }
        guard let leaf else { return false }
        return leaf._withUnsafeGuaranteedRef { leaf -> Bool in
            let position = leaf.entryIndex(for: lower, from: 0).index
            if position < leaf.count { return leaf.withKey(at: position, inRange) }
            guard let (parent, separator) = right else { return false }
            return LeafFinger.separator(parent, separator, inRange)
        }
    }

    /// `mayHold(from:_:)` for the subtree of `prefix` (the keys starting with it).
    mutating func mayHold(subtreeOf prefix: UnsafeBufferPointer<UInt8>) -> Bool {
        mayHold(from: prefix) { LeafFinger.starts($0, with: prefix) }
    }

    private mutating func descend(_ key: UnsafeBufferPointer<UInt8>) {
        var node = root
        right = nil
        while let (child, index, separators) = node._withUnsafeGuaranteedRef({ n -> (Unmanaged<TreeNode>, Int, Int)? in
            n.isLeaf ? nil : n.children.withUnsafeBufferPointer { children in
                guard !children.isEmpty else { return nil }
                let index = n.childIndex(for: key)
                return (Unmanaged.passUnretained(children[index]), index, n.separatorCount)
            }
        }) {
            if index < separators { right = (node, index) }
            node = child
        }
        leaf = node
    }

    private static func separator<R>(_ parent: Unmanaged<TreeNode>, _ index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        parent._withUnsafeGuaranteedRef { parent in
            let start = index == 0 ? 0 : Int(parent.separatorEnds[index - 1])
            let end = Int(parent.separatorEnds[index])
            return parent.arena.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[start..<end])) }
        }
    }

    private static func compare(_ key: UnsafeBufferPointer<UInt8>, separator: (node: Unmanaged<TreeNode>, separator: Int)) -> Int {
        LeafFinger.separator(separator.node, separator.separator) { ByteOrder.compare(key, 0, key.count, $0) }
    }

    private static func starts(_ key: UnsafeBufferPointer<UInt8>, with prefix: UnsafeBufferPointer<UInt8>) -> Bool {
        key.count >= prefix.count && ByteOrder.compare(key, 0, prefix.count, prefix) == 0
    }
}
