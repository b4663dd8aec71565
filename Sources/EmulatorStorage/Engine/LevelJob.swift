import Dispatch
import Synchronization

/// Where a namespace's level merges (fresh trees into `recent`, stretches of `draining` into the
/// main tree) are computed.
package enum MergeMode: Sendable {
    /// In the commit that needs them.
    case inCommit
    /// On a background queue (one for the process, so merges take at most one core): a later
    /// commit installs the result when it is ready, and waits for it only when the levels would
    /// otherwise grow past their bounds.
    case background
    /// Computed at once, installed by a later commit as if a background merge had just finished
    /// (tests use it to exercise the installs deterministically).
    case deferred
}

/// A level merge computed away from the commit that started it. Its result depends only on its
/// inputs (trees, which never change once shared, and filters), so a later commit may install
/// it as long as the namespace still holds those same trees; if anything replaced one of them (a
/// cut, a clear, a direct write) the result is dropped and the levels simply stay as they were.
final class LevelJob<Output: Sendable>: Sendable {
    private let output: Mutex<Output?>
    private let finished = DispatchSemaphore(value: 0)
    let mode: MergeMode

    init(_ mode: MergeMode, _ work: @escaping @Sendable () -> Output) {
        self.mode = mode
        guard mode == .background else {
            output = Mutex(work())
            return
        }
        output = Mutex(nil)
        levelMergeQueue.async { [self] in
            let result = work()
            output.withLock { $0 = result }
            finished.signal()
        }
    }

    /// The result, if the merge has finished.
    var result: Output? { output.withLock { $0 } }

    /// The result, waiting for the merge to finish if it has not.
    func wait() -> Output {
        while true {
            if let result { return result }
            finished.wait()
            finished.signal()  // a later wait (a commit retried after this one failed) passes too
        }
    }
}

private let levelMergeQueue = DispatchQueue(label: "emulators.storage.level-merges", qos: .utility)

/// Lets go of `value` (trees and filters an installed merge replaced) on the merge queue, so that
/// freeing them (thousands of nodes, and large filter arrays whose unmapping stalls both cores)
/// is not the committing thread's work. The state the commit started from holds them too until
/// the commit has published, hence the few milliseconds' delay (the last reference to go frees
/// them; whatever else holds them, a snapshot, keeps them alive).
func releaseOffTheCommit(_ value: some Sendable, mode: MergeMode) {
    guard mode == .background else { return }
    levelMergeQueue.asyncAfter(deadline: .now() + .milliseconds(5)) { [value] in withExtendedLifetime(value) {} }
}

/// A merge under way and the trees it started from: it is installed only while the namespace
/// still holds these same trees (a fresh merge: `recent`, then the fresh trees it merges, newest
/// first; a drain: the main tree, then `draining`).
struct MergeUnderWay<Output: Sendable>: Sendable {
    let inputs: [TreeNode]
    let job: LevelJob<Output>
}

/// Fresh trees merged into `recent` (`NamespaceState.mergeFresh`).
struct FreshMerge: Sendable {
    var recent: VersionedTree
    var filter: KeyFilter
    /// Keys `recent` did not hold before.
    var added = 0
    /// Entries in the merged fresh trees (a key in several counts for each).
    let runEntries: Int
}

/// A stretch of `draining` moved into the main tree (`NamespaceState.drainStretch`).
struct DrainStretch: Sendable {
    var main: MainLevel
    var draining: VersionedTree
    var moved = 0
    var exhausted = false
}
