import EmulatorStorage
import EmulatorSupport
import Glibc

/// The append-only journal of a live data directory: every commit is appended as one LevelDB
/// log record before the commit returns to its caller.
///
/// Group commit (`.sync`): a commit appends its record to an in-memory buffer under the
/// engine's commit serialization (cheap), then waits. One syncer thread writes and syncs
/// everything pending (one `O_DIRECT | O_DSYNC` `pwrite` where the file system allows it, see
/// `JournalDirectWriter`; else `pwrite` + `fdatasync`) and then acknowledges every commit it covered at once, so
/// all the commits that arrive during one sync share the next one. With nothing pending the
/// syncer polls for `pollNanoseconds` before it sleeps. Finishing a sync wakes only
/// the commits it covers (see `JournalLock`), not those already waiting for the next one. A commit is acknowledged
/// only after a sync that started after its record was appended has finished. In `.write`
/// mode the record is written with `write` right away and nothing waits; a background thread
/// `fdatasync`s the journal every `writeModeSyncMilliseconds` when it grew, so a power loss
/// costs at most about that much of the latest writes. A journal that cannot
/// write any more stops the process: continuing would acknowledge writes that are not durable.
final class Journal: CommitLog, @unchecked Sendable {
    // @unchecked Sendable: every mutable property below is guarded by `lock`.
    private let lock = JournalLock()
    private let durability: DataDirectory.Durability
    private let fileSystem: SnapshotFileSystem
    private var file: SnapshotFile
    /// `.sync` mode: writes records durably in one `pwrite` (`O_DIRECT | O_DSYNC`) where the file
    /// system allows it; nil: `pwrite` + `fdatasync` on `file`. Used only by whoever flushes (the
    /// syncer while `flushing`, or `rotate`/`close` under the lock with no flush in progress).
    private var direct: JournalDirectWriter?
    private let useDirect: Bool
    private var writer: LevelDBLogWriter
    private var appended: UInt64 = 0
    private var durable: UInt64 = 0
    /// True while the syncer writes + syncs batch `batch` (up to `flushTarget`) outside the lock.
    private var flushing = false
    /// The number of the syncer's latest batch (in progress while `flushing`).
    private var batch: UInt64 = 0
    /// The last token the batch in progress covers.
    private var flushTarget: UInt64 = 0
    private var stopping = false
    /// Actions waiting (``whenDurable(_:_:)``) for their token to become durable, in token order
    /// per registering thread (not globally).
    private var waiters: [(token: UInt64, action: @Sendable () -> Void)] = []
    private var syncer: PosixThread.Joinable?
    private(set) var sequence: Int
    /// The journal's length (records written to the file so far).
    private var fileBytes: Int
    /// How far the file is zero-filled and synced (`.sync` mode; beyond `fileBytes`).
    private var preallocated = 0
    /// The zero-filled extension step of a `.sync` journal.
    static let preallocationSegment = 1 << 20
    /// Set when a flush left the journal over its size threshold; the next acknowledged commit
    /// starts the checkpoint (outside the lock and off the syncer thread).
    private var pendingCheckpoint = false
    /// Called (outside the lock) after a flush that left the journal over its size threshold.
    var onLarge: (@Sendable () -> Void)?
    let checkpointThreshold: Int
    /// `.write` mode: how often the background thread syncs a journal that grew (0: never).
    let writeModeSyncMilliseconds: Int
    /// `.write` mode: how much of the current file the background thread has synced.
    private var syncedBytes = 0

    init(file: SnapshotFile, sequence: Int, durability: DataDirectory.Durability, fileSystem: SnapshotFileSystem,
         checkpointThreshold: Int, writeModeSyncMilliseconds: Int = 1000) {
        self.file = file
        self.sequence = sequence
        self.durability = durability
        self.fileSystem = fileSystem
        self.writer = LevelDBLogWriter()
        self.fileBytes = 0
        self.checkpointThreshold = checkpointThreshold
        self.writeModeSyncMilliseconds = writeModeSyncMilliseconds
        self.useDirect = durability == .sync && fileSystem.directJournalWrites
        if useDirect { direct = JournalDirectWriter.open(path: file.path, fault: fileSystem.writeFault) }
        if durability == .sync || writeModeSyncMilliseconds > 0 { startSyncer() }
    }

    func append(_ changes: [StorageChange], cleared: [ClearedSubtree], commitTime: CommitTime) -> UInt64 {
        append(JournalRecord.encode(cleared: cleared, changes: changes, commitTime: commitTime))
    }

    func appendClear(_ namespace: NamespaceID, subtree: StorageKey, commitTime: CommitTime) -> UInt64 {
        append(JournalRecord(commitTime: commitTime, operations: [.clear(namespace, subtree)]).encoded())
    }

    /// Runs under the engine's commit serialization. In `.write` mode the record goes to the
    /// file right here (one `write`); in `.sync` mode it waits in the buffer for the syncer.
    private func append(_ bytes: [UInt8]) -> UInt64 {
        lock.lock()
        defer { lock.unlock() }
        writer.append(bytes)
        appended += 1
        let token = appended
        if durability == .write && !flushing {
            preallocated = flush(writer.bytes, to: file, at: fileBytes, preallocated: preallocated).reserved
            fileBytes += writer.bytes.count
            writer.clearBuffer()
            durable = token
            if fileBytes >= checkpointThreshold { pendingCheckpoint = true }
        } else {
            lock.signalWork()
        }
        return token
    }

    func waitUntilDurable(_ token: UInt64) {
        lock.lock()
        while durable < token {
            // The flush in progress covers it, or else the next one (which takes all appended).
            lock.wait(batch: flushing && token <= flushTarget ? batch : batch &+ 1)
        }
        let large = pendingCheckpoint
        pendingCheckpoint = false
        lock.unlock()
        if large { onLarge?() }
    }

    /// Runs `action` once `token` is durable: at once (on this thread) if it is, else on the
    /// syncer thread right after the sync that covers it. Never blocks on the disk.
    func whenDurable(_ token: UInt64, _ action: @escaping @Sendable () -> Void) {
        lock.lock()
        if durable >= token {
            let large = pendingCheckpoint
            pendingCheckpoint = false
            lock.unlock()
            if large { onLarge?() }
            action()
            return
        }
        waiters.append((token, action))
        lock.unlock()
    }

    /// Takes the waiters the durable prefix now covers (the lock held).
    private func takeCoveredWaiters() -> [@Sendable () -> Void] {
        guard !waiters.isEmpty else { return [] }
        var ready: [@Sendable () -> Void] = []
        var index = 0
        while index < waiters.count {
            if waiters[index].token <= durable {
                ready.append(waiters[index].action)
                waiters.swapAt(index, waiters.count - 1)
                waiters.removeLast()
            } else {
                index += 1
            }
        }
        return ready
    }

    /// Runs actions taken with `takeCoveredWaiters` (outside the lock), then the checkpoint a
    /// flush asked for, which acknowledged commits would otherwise start.
    private func run(_ ready: [@Sendable () -> Void], large: Bool) {
        for action in ready { action() }
        if large { onLarge?() }
    }

    private func startSyncer() {
        let started = PosixThread.start { [self] in
            if durability == .sync { runSyncer() } else { runPeriodicSyncer() }
        }
        if let started {
            syncer = started
        } else {
            let text = "emulators: cannot start the journal's sync thread.\n"
            var line = Array(text.utf8); _ = Glibc.write(2, &line, line.count)
            exit(74)
        }
    }

    /// The syncer: waits for appended records, writes and syncs all of them, acknowledges them.
    private func runSyncer() {
        lock.lock()
        while true {
            while !stopping && (appended == durable || flushing) {
                if !flushing {
                    pollForWork()
                    // Re-checked under the lock: an append signals only a sleeping syncer.
                    if stopping || appended != durable { continue }
                }
                lock.waitForWork()
            }
            if stopping { break }
            flushing = true
            batch &+= 1
            let bytes = writer.drain()
            let target = appended
            flushTarget = target
            let output = file, directWriter = direct, offset = fileBytes, reserved = preallocated
            lock.unlock()
            let (extended, refused) = flush(bytes, to: output, direct: directWriter, at: offset, preallocated: reserved)
            lock.lock()
            if refused { direct = nil }
            preallocated = extended
            fileBytes += bytes.count
            durable = target
            flushing = false
            if fileBytes >= checkpointThreshold { pendingCheckpoint = true }
            lock.broadcast(batch: batch)
            let ready = takeCoveredWaiters()
            if !ready.isEmpty {
                // Deferred acknowledgements: the checkpoint trigger cannot wait for a committer.
                let large = pendingCheckpoint
                pendingCheckpoint = false
                lock.unlock()
                run(ready, large: large)
                lock.lock()
            }
        }
        lock.unlock()
    }

    /// How long the syncer polls for the next record before it sleeps on the condition variable.
    /// Polling (with `sched_yield` between looks, so the loops and clients keep the core) avoids a
    /// futex sleep and wake-up per sync; on the benchmark VM it cut CPU per write by ~9% and
    /// raised throughput ~12% at 32 and 128 connections (BENCHMARKS.md, branch `journal4`).
    static let pollNanoseconds: Int64 = 60_000

    /// With the lock held and nothing to sync: looks (the lock released in between) for a record
    /// or a stop request for up to `pollNanoseconds`; returns with the lock held.
    private func pollForWork() {
        lock.unlock()
        let deadline = Self.monotonicNanoseconds() + Self.pollNanoseconds
        repeat {
            _ = sched_yield()
            lock.lock()
            let found = appended != durable || stopping
            lock.unlock()
            if found { break }
        } while Self.monotonicNanoseconds() < deadline
        lock.lock()
    }

    private static func monotonicNanoseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }

    /// The `.write` mode's background syncer: every `writeModeSyncMilliseconds`, syncs what was
    /// written since its last sync. It syncs with the lock held (commits wait for that one
    /// sync, about once a second) so that a rotation cannot close the file under it.
    private func runPeriodicSyncer() {
        lock.lock()
        while !stopping {
            lock.waitForWork(milliseconds: writeModeSyncMilliseconds)
            if stopping { break }
            if fileBytes > syncedBytes {
                do throws(SnapshotError) {
                    try file.sync()
                } catch {
                    Self.stop(error)
                }
                syncedBytes = fileBytes
            }
        }
        lock.unlock()
    }

    /// `.sync` mode: whether records go out through `JournalDirectWriter` (for tests).
    var writesDirectly: Bool { lock.withLock { direct != nil } }

    /// `.write` mode: bytes of the current journal file not yet synced (for tests).
    var unsyncedBytes: Int { lock.withLock { fileBytes - syncedBytes } }

    /// Stops the syncer thread (after the flush it is running, if any) and waits for it.
    private func stopSyncer() {
        lock.withLock {
            stopping = true
            lock.signalWork()
        }
        if let thread = syncer {
            thread.join()
            syncer = nil
        }
    }

    /// Writes `bytes` at `offset` of `output` (and in `.sync` mode syncs them); returns how far
    /// the file is now zero-filled and synced. In `.sync` mode the file is first extended with
    /// synced zeros (`preallocationSegment` at a time) past the end of the write, so the sync of
    /// a commit never has to commit a new file size as well (recovery stops at the zero tail).
    /// With `direct` the records go out in one `O_DIRECT | O_DSYNC` write; if the kernel refuses
    /// it, `flush` closes `direct`, writes the ordinary way and reports `refused` (the caller
    /// drops the writer for this file).
    private func flush(
        _ bytes: [UInt8], to output: SnapshotFile, direct: JournalDirectWriter? = nil, at offset: Int, preallocated: Int
    ) -> (reserved: Int, refused: Bool) {
        var reserved = preallocated
        var refused = false
        do throws(SnapshotError) {
            if durability == .sync && offset + bytes.count > reserved {
                let end = (offset + bytes.count) / Self.preallocationSegment * Self.preallocationSegment + Self.preallocationSegment
                try output.write([UInt8](repeating: 0, count: end - reserved), at: reserved)
                try output.sync()
                reserved = end
            }
            if let direct, durability == .sync {
                if bytes.isEmpty { return (reserved, false) }
                if try direct.write(bytes, at: offset) { return (reserved, false) }
                direct.close()
                refused = true
            }
            try output.write(bytes, at: offset)
            if durability == .sync { try output.sync() }
        } catch {
            Self.stop(error)
        }
        return (reserved, refused)
    }

    /// Acknowledging later writes would break the journal's promise; stop instead.
    private static func stop(_ error: SnapshotError) -> Never {
        let text = "emulators: the data directory journal cannot be written (\(error)); stopping so that no unsaved write is acknowledged.\n"
        var line = Array(text.utf8); _ = Glibc.write(2, &line, line.count)
        exit(74)
    }

    /// Flushes what is pending, then continues in a new journal file `next`. Waits for a flush
    /// in progress first. The lock is held from that flush's end to the switch, so `next`
    /// receives no record before the old file's last write completed (recovery relies on it:
    /// a torn record can only be followed by journals that hold nothing).
    func rotate(to next: SnapshotFile, sequence newSequence: Int) {
        lock.lock()
        while flushing { lock.wait(batch: batch) }
        let bytes = writer.drain()
        _ = flush(bytes, to: file, direct: direct, at: fileBytes, preallocated: preallocated)
        if durability == .write {
            // The old file must be complete on disk before the new one receives records: after
            // a power loss, recovery refuses a torn record that records in a later journal follow.
            do throws(SnapshotError) { try file.sync() } catch { Self.stop(error) }
        }
        durable = appended
        file.close()
        direct?.close()
        file = next
        direct = useDirect ? JournalDirectWriter.open(path: next.path, fault: fileSystem.writeFault) : nil
        sequence = newSequence
        writer = LevelDBLogWriter()
        fileBytes = 0
        syncedBytes = 0
        preallocated = 0
        lock.broadcastAll()
        let ready = takeCoveredWaiters()
        lock.unlock()
        run(ready, large: false)
    }

    /// Flushes and syncs everything appended (clean shutdown).
    func close() {
        stopSyncer()
        lock.lock()
        while flushing { lock.wait(batch: batch) }
        let bytes = writer.drain()
        _ = flush(bytes, to: file, direct: direct, at: fileBytes, preallocated: preallocated)
        fileBytes += bytes.count
        // A clean close leaves no zero tail (recovery would skip it anyway).
        if preallocated > fileBytes { try? file.truncate(to: fileBytes) }
        try? file.sync()
        direct?.close()
        durable = appended
        lock.broadcastAll()
        let ready = takeCoveredWaiters()
        lock.unlock()
        run(ready, large: false)
    }

    /// What a crash leaves: the syncer stops; records not yet written stay unwritten.
    func abandon() {
        stopSyncer()
    }
}
