/// A namespace's pending tree as it was before the last commit that wrote to it, kept by the
/// engine between commits so that the next commit can write into it in place instead of copying
/// the path to each key it writes.
///
/// The published head holds the pending tree, so a commit that writes into it copies the root
/// and the leaf it changes (and, once the head moves on, frees the ones it copied): for a small
/// commit, most of what it allocates and frees. The tree the head held before the last commit is
/// held by nobody but this spare once the commit that replaced it has ended, unless a reader
/// still has a snapshot of it. The next commit brings the spare up to date (the keys the last
/// commit stored, copied from the head's tree) and writes into it: every node only the spare
/// holds is changed in place. Nothing is ever changed unless `isKnownUniquelyReferenced` says
/// the commit's tree is its only owner (as for any copy-on-write change), so a snapshot that
/// still holds the spare's nodes gets them copied, as before.
///
/// Only for a commit whose changes to `pending` were all stores of single keys
/// (`NamespaceState.storeInPending`): anything else (a merge of new children, a cut, sealing
/// the tree) counts in `NamespaceState.pendingRewrites`, and then no spare is kept. The engine
/// keeps one per namespace (namespaces without history keep none: what a commit superseded
/// there is freed when it ends), and a commit changes it in place, as it records its stores.
struct PendingSpare: Sendable {
    let namespace: NamespaceID
    /// False for a namespace without history: nothing recorded, nothing kept.
    let recording: Bool
    /// Between commits: the tree as it was before `keys` were stored (nil: no spare). During a
    /// commit that stored into `pending`: the tree `pending` was at its first store.
    var tree: VersionedTree?
    /// The root of the tree `tree` lags behind: the spare is used only while `pending` is that tree.
    var basis: TreeNode?
    /// The keys stored since `tree` (in `basis`'s tree, with their entries as it holds them).
    var keys: [[UInt8]] = []
    /// During a commit: whether it stored into `pending` yet, and `pendingRewrites` then.
    var started = false
    var rewritesAtStart = 0

    init(namespace: NamespaceID, recording: Bool) {
        self.namespace = namespace
        self.recording = recording
    }

    /// Ends a commit that was abandoned after storing (its state, with the spare's tree, is gone).
    mutating func abandon() {
        guard started else { return }
        started = false
        tree = nil
        basis = nil
        keys = []
    }
}

extension NamespaceState {
    /// Stores `entry` in `pending` for a commit that records its stores in `spare`. The commit's
    /// first store puts the spare's tree in place of `pending` first, when it lags behind exactly
    /// this `pending`, bringing it up to date.
    mutating func storeInPending(_ entry: VersionedEntry, recording spare: inout PendingSpare) {
        if spare.recording {
            if !spare.started { beginRecording(&spare) }
            spare.keys.append(entry.key)
        }
        storedPending.store(entry, horizon: 0)
    }

    private mutating func beginRecording(_ spare: inout PendingSpare) {
        if spare.basis === storedPending.root, var lagging = spare.tree.take() {
            // The same entries as `pending`, then in place of it: reads see no difference.
            for key in spare.keys {
                if let entry = storedPending.entry(key) {
                    lagging.store(entry, horizon: 0)
                } else {
                    lagging.store(VersionedEntry(absent: key), horizon: 0)  // (removes it)
                }
            }
            swap(&lagging, &storedPending)
            spare.tree = lagging
        } else {
            spare.tree = storedPending
        }
        spare.basis = nil
        // (Emptied one by one: it holds a few keys, and keeps its room.)
        while !spare.keys.isEmpty { spare.keys.removeLast() }
        spare.started = true
        spare.rewritesAtStart = pendingRewrites
    }

    /// Makes `spare` the spare for the next commit, this state being the result of the commit
    /// that recorded in it: none when it changed `pending` other than by single stores.
    func keep(_ spare: inout PendingSpare) {
        guard spare.started else { return }
        spare.started = false
        if pendingRewrites == spare.rewritesAtStart, let tree = spare.tree, tree.root !== storedPending.root {
            spare.basis = storedPending.root
        } else {
            spare.tree = nil
            spare.basis = nil
            spare.keys = []
        }
    }
}
