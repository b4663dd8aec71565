import EmulatorStorage
import Glibc

/// The append-only journal of a live data directory: every commit is appended as one LevelDB
/// log record before the commit returns to its caller.
///
/// Group commit: commits append under the engine's commit serialization (cheap, in memory);
/// then each waits until a flush covers its record. One waiting thread writes and syncs
/// everything appended so far while the others wait, so N concurrent commits share one
/// `fdatasync`. A journal that cannot write any more stops the process: continuing would
/// acknowledge writes that are not durable.
final class Journal: CommitLog, @unchecked Sendable {
    // @unchecked Sendable: every mutable property below is guarded by `lock`.
    private let lock = JournalLock()
    private let durability: DataDirectory.Durability
    private let fileSystem: SnapshotFileSystem
    private var file: SnapshotFile
    private var writer: LevelDBLogWriter
    private var appended: UInt64 = 0
    private var durable: UInt64 = 0
    private var flushing = false
    private(set) var sequence: Int
    private var fileBytes: Int
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
    }

    func append(_ changes: [StorageChange], cleared: [ClearedSubtree], commitTime: CommitTime) -> UInt64 {
        append(JournalRecord.encode(cleared: cleared, changes: changes, commitTime: commitTime))
    }

    func appendClear(_ namespace: NamespaceID, subtree: StorageKey, commitTime: CommitTime) -> UInt64 {
        append(JournalRecord(commitTime: commitTime, operations: [.clear(namespace, subtree)]).encoded())
    }

    /// Runs under the engine's commit serialization. In `.write` mode the record goes to the
    /// file right here (one `write`, no second lock round trip); `.sync` mode leaves it for the
    /// group flush in `waitUntilDurable`.
    private func append(_ bytes: [UInt8]) -> UInt64 {
        lock.lock()
        writer.append(bytes)
        appended += 1
        let token = appended
        var large = false
        if durability == .write && !flushing {
            flush(writer.bytes, to: file)
            fileBytes += writer.bytes.count
            writer.clearBuffer()
            durable = token
            large = fileBytes >= checkpointThreshold
        }
        lock.unlock()
        if large { lock.withLock { pendingCheckpoint = true } }
        return token
    }

    /// Set when a `.write`-mode append crossed the checkpoint threshold (the checkpoint runs in
    /// `waitUntilDurable`, outside the commit serialization).
    private var pendingCheckpoint = false

    func waitUntilDurable(_ token: UInt64) {
        var large = false
        lock.lock()
        if pendingCheckpoint {
            pendingCheckpoint = false
            large = true
        }
        while durable < token {
            if flushing {
                lock.wait()
                continue
            }
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
            large = fileBytes >= checkpointThreshold
            lock.broadcast()
        }
        lock.unlock()
        if large { onLarge?() }
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
        lock.lock()
        while flushing { lock.wait() }
        let bytes = writer.drain()
        flush(bytes, to: file)
        try? file.sync()
        durable = appended
        lock.unlock()
    }
}
