import EmulatorProtobuf
import EmulatorStorage

/// Reads and checks a data directory completely before anything is loaded.
struct DataDirectoryRecovery {
    let root: String
    let fileSystem: SnapshotFileSystem

    struct State {
        var hadCheckpoint = false
        /// The checkpoint's entries with every journaled commit applied on top.
        var replay = JournalReplay()
        var checkpointEntries = 0
        var commits = 0
        var journals: [Int] = []
        var lastJournal = 0
        /// The journal whose torn last record was dropped, and where its last complete record
        /// ends: `DataDirectory.open` cuts the file there before it starts a new journal.
        var tornTail: (file: String, end: Int)?

        /// Loads the recovered contents into `engine`: one `restore` per namespace, every entry
        /// with its original create and update time (the engine's clock continues after them).
        func apply(to engine: StorageEngine) -> (entries: Int, commits: Int) {
            for (namespace, entries) in replay.result() {
                // Keys and values were validated when read; the engine has no limits configured yet.
                _ = try? engine.restore(namespace, entries)
            }
            return (checkpointEntries, commits)
        }
    }

    /// The sequence number of a journal file's name, for names the journal writes only
    /// (`journal-00000042.log`; not `journal-42.log` or `journal-+42.log`).
    static func journalSequence(_ name: String) -> Int? {
        guard name.hasPrefix("journal-"), name.hasSuffix(".log"),
            let sequence = Int(name.dropFirst(8).dropLast(4)), sequence > 0,
            DataDirectory.journalName(sequence) == name
        else { return nil }
        return sequence
    }

    func read() throws(SnapshotError) -> State {
        var state = State()
        var firstJournal = 0
        let checkpointPath = root + "/" + DataDirectory.checkpointFile
        if fileSystem.exists(checkpointPath) {
            state.hadCheckpoint = true
            firstJournal = try readCheckpoint(checkpointPath, into: &state)
        }
        let names = try fileSystem.list(root)
        let sequences = names.compactMap(Self.journalSequence).sorted()
        state.lastJournal = max(sequences.last ?? 0, firstJournal)
        let replay = sequences.filter { $0 >= firstJournal }
        state.journals = replay
        try checkNoJournalIsMissing(replay, hadCheckpoint: state.hadCheckpoint, firstJournal: firstJournal)
        for (position, sequence) in replay.enumerated() {
            let file = root + "/" + DataDirectory.journalName(sequence)
            guard let torn = try readJournal(file, into: &state) else { continue }
            // A torn record (an append cut short by a crash) was never acknowledged, and it can
            // only be the last record written: a journal file is created before the previous
            // one is finished with (at a start, before its checkpoint; at a rotation, before the
            // last flush into the old file), but it receives records only after that flush
            // completed (`Journal.rotate`). So the torn tail is dropped when every later journal
            // holds nothing (empty or zero-filled: a start or rotation that was interrupted);
            // followed by a record in a later journal it is damage.
            for later in replay[(position + 1)...] {
                let name = DataDirectory.journalName(later)
                if try !isBlank(root + "/" + name) {
                    var error = torn.error
                    error.message += " (not a torn tail: the later journal \(name) is not empty)"
                    throw error
                }
            }
            state.tornTail = (file, torn.end)
            break
        }
        return state
    }

    /// Journals are created one after another (each one's directory entry synced before the
    /// checkpoint that names it) and removed only once a checkpoint covers them; a checkpoint is
    /// only ever replaced (renamed over), and names the journal that was current when it was
    /// written. So the journals to replay run without a gap from the checkpoint's first journal,
    /// which exists (before any checkpoint: from journal 1). A missing journal, or a missing
    /// checkpoint, lost acknowledged commits: refused.
    private func checkNoJournalIsMissing(_ replay: [Int], hadCheckpoint: Bool, firstJournal: Int) throws(SnapshotError) {
        if !hadCheckpoint, let first = replay.first, first != 1 {
            throw SnapshotError(
                .notFound, "the checkpoint is missing (\(DataDirectory.journalName(first)) is not the first journal)",
                file: root + "/" + DataDirectory.checkpointFile)
        }
        var expected = hadCheckpoint ? firstJournal : 1
        for sequence in replay {
            if sequence != expected { break }
            expected += 1
        }
        if expected <= (replay.last ?? 0) || (hadCheckpoint && replay.isEmpty) {
            throw SnapshotError(
                .notFound, "a journal is missing ("
                    + (hadCheckpoint ? "the checkpoint's first journal is \(firstJournal)" : "no checkpoint yet: they start at 1")
                    + "; found "
                    + (replay.isEmpty ? "none" : replay.map(DataDirectory.journalName).joined(separator: ", ")) + ")",
                file: root + "/" + DataDirectory.journalName(expected))
        }
    }

    /// True when a journal holds no record: empty, or zero-filled only (`.sync` preallocation).
    private func isBlank(_ file: String) throws(SnapshotError) -> Bool {
        try fileSystem.read(file).allSatisfy { $0 == 0 }
    }

    private func readCheckpoint(_ file: String, into state: inout State) throws(SnapshotError) -> Int {
        var log = LevelDBLogReader(bytes: try fileSystem.read(file), file: file)
        guard let header = try log.next(),
            let magic = [DataDirectory.checkpointMagic, DataDirectory.checkpointMagicWithoutTimes].first(where: { header.starts(with: $0) })
        else {
            throw SnapshotError(.corrupted, "not a checkpoint file (bad header)", file: file, offset: 0)
        }
        let hasTimes = magic == DataDirectory.checkpointMagic
        var firstJournal = 0
        do throws(ProtoFailure) {
            var r = ProtoRecordReader(header, range: magic.count..<header.count)
            firstJournal = Int(truncatingIfNeeded: try r.varint())
        } catch {
            throw SnapshotError(.corrupted, "bad checkpoint header: \(error.message)", file: file, offset: 0)
        }
        while true {
            let offset = log.position
            guard let record = try log.next() else { break }
            do throws(ProtoFailure) {
                var r = ProtoRecordReader(record)
                var entries: [(NamespaceID, StoredEntry)] = []
                while !r.isAtEnd {
                    let ns = try JournalRecord.namespace(&r)
                    let key = try JournalRecord.storageKey(&r)
                    let value = try r.bytes()
                    // Checkpoints written before times were kept: 0 = "the time of the restore".
                    var created: CommitTime = 0, updated: CommitTime = 0
                    if hasTimes {
                        created = CommitTime(bitPattern: try r.varint())
                        updated = CommitTime(bitPattern: try r.varint())
                    }
                    entries.append((ns, StoredEntry(key: key, value: value, createTime: created, updateTime: updated)))
                }
                for (namespace, entry) in entries { state.replay.addCheckpointEntry(namespace, entry) }
                state.checkpointEntries += entries.count
            } catch {
                throw SnapshotError(.corrupted, "bad checkpoint record: \(error.message)", file: file, offset: offset)
            }
        }
        return firstJournal
    }

    /// Applies every record of a journal; returns nil at a clean end, or, when the file ends in
    /// a torn record, that error and where the last complete record ends (the caller decides
    /// whether it is a torn tail). Any other damage throws.
    private func readJournal(
        _ file: String, into state: inout State
    ) throws(SnapshotError) -> (error: SnapshotError, end: Int)? {
        var log = LevelDBLogReader(bytes: try fileSystem.read(file), file: file)
        log.zeroTailEndsLog = true  // `.sync` journals are zero-filled ahead of their records
        while true {
            let offset = log.position
            let record: [UInt8]
            do throws(SnapshotError) {
                guard let next = try log.next() else { return nil }
                record = next
            } catch {
                if log.lastErrorWasTruncation { return (error, log.validEnd) }
                throw error
            }
            do throws(ProtoFailure) {
                state.replay.apply(try JournalRecord.decode(record))
                state.commits += 1
            } catch {
                throw SnapshotError(.corrupted, "bad journal record: \(error.message)", file: file, offset: offset)
            }
        }
    }
}
