import EmulatorStorage
import Glibc

/// The append-only journal of a live data directory: every commit is appended as one LevelDB
/// log record before the commit returns to its caller.
///
/// Group commit (`.sync`): a commit appends its record to an in-memory buffer under the
/// engine's commit serialization (cheap), then waits. One syncer thread writes and
/// `fdatasync`s everything pending and then acknowledges every commit it covered at once, so
/// all the commits that arrive during one sync share the next one. A commit is acknowledged
/// only after a sync that started after its record was appended has finished. In `.write`
/// mode the record is written with `write` right away and nothing waits. A journal that cannot
/// write any more stops the process: continuing would acknowledge writes that are not durable.
final class Journal: CommitLog, @unchecked Sendable {
    // @unchecked Sendable: every mutable property below is guarded by `lock`.
    private let lock = JournalLock()
    private let durability: DataDirectory.Durability
    private let fileSystem: SnapshotFileSystem
    private var file: SnapshotFile
    private var writer: LevelDBLogWriter
    private var appended: UInt64 = 0
    private var durable: UInt64 = 0
    /// True while a write + sync runs outside the lock (the syncer's, or a rotation's).
    private var flushing = false
    private var stopping = false
    private var syncer: pthread_t?
    private(set) var sequence: Int
    private var fileBytes: Int
    /// Set when a flush left the journal over its size threshold; the next acknowledged commit
    /// starts the checkpoint (outside the lock and off the syncer thread).
    private var pendingCheckpoint = false
    /// Called (outside the lock) after a flush that left the journal over its size threshold.
    var onLarge: (@Sendable () -> Void)?
    let checkpointThreshold: Int

    init(file: SnapshotFile, sequence: Int, durability: DataDirectory.Durability, fileSystem: SnapshotFileSystem,
         checkpointThreshold: Int) {
        self.file = file
        self.sequence = sequence
        self.durability = durability
        self.fileSystem = fileSystem
        self.writer = LevelDBLogWriter()
        self.fileBytes = 0
        self.checkpointThreshold = checkpointThreshold
        if durability == .sync { startSyncer() }
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
            flush(writer.bytes, to: file)
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
        while durable < token { lock.wait() }
        let large = pendingCheckpoint
        pendingCheckpoint = false
        lock.unlock()
        if large { onLarge?() }
    }

    private func startSyncer() {
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            Unmanaged<Journal>.fromOpaque(raw).takeRetainedValue().runSyncer()
            return nil
        }, Unmanaged.passRetained(self).toOpaque())
        if started == 0 {
            syncer = thread
        } else {
            let text = "emulators: cannot start the journal's sync thread (error \(started)).\n"
            var line = Array(text.utf8); _ = Glibc.write(2, &line, line.count)
            exit(74)
        }
    }

    /// The syncer: waits for appended records, writes and syncs all of them, acknowledges them.
    private func runSyncer() {
        lock.lock()
        while true {
            while !stopping && (appended == durable || flushing) { lock.waitForWork() }
            if stopping { break }
            flushing = true
            let bytes = writer.drain()
            let target = appended
            let output = file
            lock.unlock()
            flush(bytes, to: output)
            lock.lock()
            fileBytes += bytes.count
            durable = target
            flushing = false
            if fileBytes >= checkpointThreshold { pendingCheckpoint = true }
            lock.broadcast()
        }
        lock.unlock()
    }

    /// Stops the syncer thread (after the flush it is running, if any) and waits for it.
    private func stopSyncer() {
        lock.withLock {
            stopping = true
            lock.signalWork()
        }
        if let thread = syncer {
            pthread_join(thread, nil)
            syncer = nil
        }
    }

    private func flush(_ bytes: [UInt8], to output: SnapshotFile) {
        do throws(SnapshotError) {
            try output.write(bytes)
            if durability == .sync { try output.sync() }
        } catch {
            // Acknowledging later writes would break the journal's promise; stop instead.
            let text = "emulators: the data directory journal cannot be written (\(error)); stopping so that no unsaved write is acknowledged.\n"
            var line = Array(text.utf8); _ = Glibc.write(2, &line, line.count)
            exit(74)
        }
    }

    /// Flushes what is pending, then continues in a new journal file `next`; returns the
    /// sequence number of the new file. Waits for a flush in progress first.
    func rotate(to next: SnapshotFile, sequence newSequence: Int) {
        lock.lock()
        while flushing { lock.wait() }
        let bytes = writer.drain()
        flush(bytes, to: file)
        if durability == .write { try? file.sync() }
        durable = appended
        file.close()
        file = next
        sequence = newSequence
        writer = LevelDBLogWriter()
        fileBytes = 0
        lock.broadcast()
        lock.unlock()
    }

    /// Flushes and syncs everything appended (clean shutdown).
    func close() {
        stopSyncer()
        lock.lock()
        while flushing { lock.wait() }
        let bytes = writer.drain()
        flush(bytes, to: file)
        try? file.sync()
        durable = appended
        lock.broadcast()
        lock.unlock()
    }

    /// What a crash leaves: the syncer stops; records not yet written stay unwritten.
    func abandon() {
        stopSyncer()
    }
}
