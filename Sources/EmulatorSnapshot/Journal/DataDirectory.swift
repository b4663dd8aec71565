import EmulatorProtobuf
package import EmulatorStorage
import EmulatorSupport
import Glibc
import Synchronization

/// A live data directory (`--data-dir <dir>`): the engine's contents survive any stop, even
/// `kill -9`, because every commit is journaled before it is acknowledged.
///
/// Layout: `checkpoint.log` (a full dump of every namespace, plus the number of the first journal
/// to replay after it) and `journal-<n>.log` files (one record per commit). Recovery loads the
/// checkpoint and replays the journals. A torn last record (an append cut short by the crash,
/// never acknowledged) is dropped, also in an older journal when every newer one holds nothing
/// (a start or rotation interrupted right after creating it), and cut off its file before the
/// next journal is created; damage anywhere else is refused with the file and offset, and
/// nothing is loaded.
///
/// ```swift
/// let engine = StorageEngine()
/// let data = try DataDirectory.open("emulator-data-live", engine: engine)  // recovers, then journals
/// defer { data.close() }
/// ```
package final class DataDirectory: Sendable {
    /// What "acknowledged" guarantees.
    package enum Durability: Sendable {
        /// Written and synced (group commit: one `O_DIRECT | O_DSYNC` write, or `write` +
        /// `fdatasync` where direct I/O is refused) before a commit returns: survives power loss.
        case sync
        /// `write` before a commit returns: survives the process being killed; a background
        /// `fdatasync` about every second bounds what a power loss can take.
        case write
    }

    package static let checkpointFile = "checkpoint.log"
    /// Checkpoint header: entries carry their create and update times.
    static let checkpointMagic = Array("emulators-checkpoint-2".utf8)
    /// Checkpoints written before times were kept (still read).
    static let checkpointMagicWithoutTimes = Array("emulators-checkpoint-1".utf8)

    package let path: String
    private let engine: StorageEngine
    let journal: Journal
    private let fileSystem: SnapshotFileSystem
    private let checkpointing = Mutex(false)
    /// The thread of the last background checkpoint (joined before the next one and at close),
    /// and whether it is still running.
    private let worker = Mutex<(thread: PosixThread.Joinable?, running: Bool)>((nil, false))
    /// What recovery loaded: (entries from the checkpoint, commits replayed from journals).
    package let recovered: (entries: Int, commits: Int)

    /// Opens (creating if needed) `path`, loads its contents into `engine` (which should be
    /// empty), writes a fresh checkpoint, and journals every later commit.
    package static func open(
        _ path: String, engine: StorageEngine, durability: Durability = .sync,
        checkpointBytes: Int = 64 << 20, fileSystem: SnapshotFileSystem = SnapshotFileSystem(),
        writeModeSyncMilliseconds: Int = 1000
    ) throws(SnapshotError) -> DataDirectory {
        let root = fileSystem.absolute(path)
        if fileSystem.exists(root) && !fileSystem.isDirectory(root) {
            throw SnapshotError(.refused, "the data directory is a file", file: root)
        }
        try fileSystem.makeDirectories(root)
        // One process per data directory: a second one would interleave journals.
        let lockFD = Glibc.open(root + "/LOCK", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard lockFD >= 0 else { throw SnapshotFileSystem.ioError("opening the lock file", root + "/LOCK", errno) }
        guard flock(lockFD, LOCK_EX | LOCK_NB) == 0 else {
            Glibc.close(lockFD)
            throw SnapshotError(.refused, "the data directory is in use by another emulators process", file: root)
        }
        let state: DataDirectoryRecovery.State
        let file: SnapshotFile
        let sequence: Int
        do throws(SnapshotError) {
            state = try DataDirectoryRecovery(root: root, fileSystem: fileSystem).read()
            // Cut a dropped torn tail off its file (synced) before another journal exists, so
            // that no later start finds a torn record in a journal that is not the newest.
            if let torn = state.tornTail { try fileSystem.truncateFile(torn.file, to: torn.end) }
            // Start a new journal, then checkpoint what was recovered so old journals can go.
            sequence = state.lastJournal + 1
            file = try fileSystem.create(root + "/" + journalName(sequence))
            try fileSystem.syncDirectory(root)
        } catch {
            Glibc.close(lockFD)
            throw error
        }
        let counts = state.apply(to: engine)
        let journal = Journal(
            file: file, sequence: sequence, durability: durability, fileSystem: fileSystem, checkpointThreshold: checkpointBytes,
            writeModeSyncMilliseconds: writeModeSyncMilliseconds)
        let directory = DataDirectory(
            path: root, engine: engine, journal: journal, fileSystem: fileSystem, recovered: counts, lockFD: lockFD)
        if counts.commits > 0 || state.journals.count > 0 || !state.hadCheckpoint {
            do throws(SnapshotError) {
                try directory.writeCheckpoint(firstJournal: sequence)
            } catch {
                // Stop the journal's thread and release the lock: a later open may try again
                // (it finds the new journal empty and the old ones as they were).
                directory.abandon()
                throw error
            }
        }
        journal.onLarge = { [weak directory] in directory?.checkpointInBackground() }
        engine.setCommitLog(journal)
        return directory
    }

    /// Holds the `flock` on `<dir>/LOCK` until `close()` (or the process ends).
    /// -1 once closed: `close()` after `abandonForTesting()` (or twice) must not close a
    /// descriptor number that by then belongs to another file.
    private let lockFD: Mutex<Int32>

    private init(path: String, engine: StorageEngine, journal: Journal, fileSystem: SnapshotFileSystem,
                 recovered: (entries: Int, commits: Int), lockFD: Int32) {
        self.lockFD = Mutex(lockFD)
        self.path = path
        self.engine = engine
        self.journal = journal
        self.fileSystem = fileSystem
        self.recovered = recovered
    }

    static func journalName(_ sequence: Int) -> String {
        let digits = String(sequence)
        return "journal-" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits + ".log"
    }

    /// Writes a checkpoint now: rotates the journal, dumps a snapshot taken after the rotation,
    /// swaps it in atomically, and removes the journals it covers.
    package func checkpoint() throws(SnapshotError) {
        guard checkpointing.withLock({ busy in defer { busy = true }; return !busy }) else { return }
        defer { checkpointing.withLock { $0 = false } }
        let next = journal.sequence + 1
        let file = try fileSystem.create(path + "/" + Self.journalName(next))
        try fileSystem.syncDirectory(path)
        journal.rotate(to: file, sequence: next)
        try writeCheckpoint(firstJournal: next)
    }

    /// Starts a checkpoint on its own thread (the commit that crossed the threshold returns at
    /// once); does nothing while one is running.
    private func checkpointInBackground() {
        worker.withLock { state in
            guard !state.running else { return }
            if let previous = state.thread {
                // Finished (not running), so this returns at once.
                previous.join()
                state.thread = nil
            }
            if let thread = PosixThread.start({ [self] in runCheckpoint() }) { state = (thread, true) }
        }
    }

    private func runCheckpoint() {
        defer { worker.withLock { $0.running = false } }
        do throws(SnapshotError) { try checkpoint() } catch {
            let text = "emulators: checkpoint of \(path) failed: \(error)\n"
            var line = Array(text.utf8)
            _ = Glibc.write(2, &line, line.count)
        }
    }

    private func joinWorker() {
        if let thread = worker.withLock({ state -> PosixThread.Joinable? in defer { state.thread = nil }; return state.thread }) {
            thread.join()
        }
    }

    private func writeCheckpoint(firstJournal: Int) throws(SnapshotError) {
        let snapshot: StorageSnapshot
        do throws(StorageError) { snapshot = try engine.snapshot() } catch {
            throw SnapshotError(.io, "cannot read the engine: \(error)")
        }
        let temporary = path + "/" + Self.checkpointFile + ".tmp"
        fileSystem.removeTree(temporary)
        let file = try fileSystem.create(temporary)
        defer { file.close() }
        var log = LevelDBLogWriter()
        var header = ProtoWriter()
        header.bytes = Self.checkpointMagic
        header.varint(UInt64(firstJournal))
        header.varint(UInt64(bitPattern: snapshot.readTime))
        log.append(header.bytes)
        var batch = ProtoWriter()
        var count = 0
        for namespace in snapshot.namespaces {
            let name = Array(namespace.name.utf8)
            for entry in snapshot.scan(namespace) {
                batch.varint(UInt64(name.count)); batch.bytes.append(contentsOf: name)
                batch.varint(UInt64(entry.key.encoded.count)); batch.bytes.append(contentsOf: entry.key.encoded)
                batch.varint(UInt64(entry.value.count)); batch.bytes.append(contentsOf: entry.value)
                batch.varint(UInt64(bitPattern: entry.createTime)); batch.varint(UInt64(bitPattern: entry.updateTime))
                count += 1
                if batch.bytes.count >= 64 << 10 {
                    log.append(batch.bytes)
                    batch.bytes.removeAll(keepingCapacity: true)
                    if log.bytes.count >= 1 << 20 { try file.write(log.drain()) }
                }
            }
        }
        if !batch.bytes.isEmpty { log.append(batch.bytes) }
        try file.write(log.drain())
        try file.sync()
        try fileSystem.rename(temporary, path + "/" + Self.checkpointFile)
        try fileSystem.syncDirectory(path)
        for name in (try? fileSystem.list(path)) ?? [] {
            if let sequence = DataDirectoryRecovery.journalSequence(name), sequence < firstJournal {
                fileSystem.removeTree(path + "/" + name)
            }
        }
    }

    /// What a crash leaves: the lock released, nothing flushed beyond what commits already wrote.
    func abandonForTesting() { abandon() }

    private func abandon() {
        engine.setCommitLog(nil)
        joinWorker()
        journal.abandon()
        releaseLock()
    }

    /// Flushes the journal (clean shutdown). Commits after this are not journaled.
    package func close() {
        engine.setCommitLog(nil)
        joinWorker()
        journal.close()
        releaseLock()
    }

    private func releaseLock() {
        let fd = lockFD.withLock { fd in
            defer { fd = -1 }
            return fd
        }
        if fd >= 0 { Glibc.close(fd) }
    }
}
