#if canImport(Glibc)
import EmulatorSupport
import Glibc
#endif
import Synchronization

/// Hot reload of rules files: a background thread looks at each file every `interval` (its
/// inode, size and modification time; then its content's hash, so a touch without an edit does
/// nothing) and hands a changed file's text to `onChange`. Stopped by ``stop()`` (the suite's
/// shutdown) within one interval.
///
/// ```swift
/// let watcher = RulesFileWatcher.start(paths: ["/p/firestore.rules"]) { path, text in
///     RulesLoading.reload(path: path, text: text, context: context)
/// }
/// watcher?.stop()
/// ```
package final class RulesFileWatcher: Sendable {
    /// What a file looked like when last seen.
    struct Fingerprint: Equatable {
        var inode: UInt64
        var size: Int64
        var seconds: Int
        var nanoseconds: Int
    }

    private struct State {
        var stopped = false
        var seen: [String: (fingerprint: Fingerprint?, hash: UInt64?)] = [:]
    }

    private let state: Mutex<State>
    private let paths: [String]
    private let interval: Duration
    private let onChange: @Sendable (_ path: String, _ text: String) -> Void

    private init(paths: [String], interval: Duration, onChange: @escaping @Sendable (String, String) -> Void) {
        self.paths = paths
        self.interval = interval
        self.onChange = onChange
        var state = State()
        // The files as loaded at start: only later edits are changes (chokidar's ignoreInitial).
        for path in paths {
            state.seen[path] = (Self.fingerprint(path), LocalFiles.read(path).map(Self.hash))
        }
        self.state = Mutex(state)
    }

    /// Starts watching `paths` (duplicates ignored); nil when there is nothing to watch or no thread.
    package static func start(
        paths: [String], interval: Duration = .milliseconds(250),
        onChange: @escaping @Sendable (_ path: String, _ text: String) -> Void
    ) -> RulesFileWatcher? {
        var unique: [String] = []
        for p in paths where !unique.contains(p) { unique.append(p) }
        guard !unique.isEmpty else { return nil }
        let watcher = RulesFileWatcher(paths: unique, interval: interval, onChange: onChange)
        guard PosixThread.spawn({ watcher.run() }) else { return nil }
        return watcher
    }

    /// Stops the thread (it exits within one interval); no `onChange` starts after this returns.
    package func stop() {
        state.withLock { $0.stopped = true }
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    private func run() {
        let (seconds, attoseconds) = interval.components
        var pause = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        while !isStopped {
            _ = withUnsafePointer(to: &pause) { nanosleep($0, nil) }
            pollOnce()
        }
    }

    /// Looks at every file once and reports those whose content changed.
    func pollOnce() {
        for path in paths {
            guard let fingerprint = Self.fingerprint(path) else { continue }  // missing for now (an editor's rename)
            let previous = state.withLock { $0.seen[path] }
            if previous?.fingerprint == fingerprint { continue }
            guard let bytes = LocalFiles.read(path) else { continue }
            let hash = Self.hash(bytes)
            let changed = state.withLock { state -> Bool in
                if state.stopped { return false }
                let changed = state.seen[path]?.hash != hash
                state.seen[path] = (fingerprint, hash)
                return changed
            }
            if changed { onChange(path, String(decoding: bytes, as: UTF8.self)) }
        }
    }

    static func fingerprint(_ path: String) -> Fingerprint? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Fingerprint(
            inode: UInt64(info.st_ino), size: Int64(info.st_size), seconds: Int(info.st_mtim.tv_sec),
            nanoseconds: Int(info.st_mtim.tv_nsec))
    }

    /// FNV-1a over the bytes.
    static func hash(_ bytes: [UInt8]) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes {
            h ^= UInt64(b)
            h = h &* 0x0000_0100_0000_01b3
        }
        return h
    }
}
