import EmulatorStorage

/// Reads and checks a data directory completely before anything is loaded.
struct DataDirectoryRecovery {
    let root: String
    let fileSystem: SnapshotFileSystem

    struct State {
        var hadCheckpoint = false
        /// Checkpoint entries, in dump order.
        var entries: [(NamespaceID, StorageKey, [UInt8])] = []
        var records: [JournalRecord] = []
        var journals: [Int] = []
        var lastJournal = 0

        /// Loads everything into `engine`: the checkpoint in large commits, then each journaled
        /// commit as one commit (clears as clears), in order.
        func apply(to engine: StorageEngine) -> (entries: Int, commits: Int) {
            var index = 0
            while index < entries.count {
                let end = min(index + 20_000, entries.count)
                engine.commit { (txn: inout CommitBuilder) in
                    for i in index..<end { _ = try? txn.put(entries[i].0, entries[i].1, entries[i].2) }
                }
                index = end
            }
            for record in records {
                var pending: [JournalRecord.Operation] = []
                func flush() {
                    guard !pending.isEmpty else { return }
                    engine.commit { (txn: inout CommitBuilder) in
                        for op in pending {
                            switch op {
                            case .put(let ns, let key, let value): _ = try? txn.put(ns, key, value)
                            case .delete(let ns, let key): _ = try? txn.delete(ns, key)
                            case .clear: break
                            }
                        }
                    }
                    pending.removeAll()
                }
                for op in record.operations {
                    if case .clear(let ns, let subtree) = op {
                        flush()
                        engine.clear(ns, subtree: subtree)
                    } else {
                        pending.append(op)
                    }
                }
                flush()
            }
            return (entries.count, records.count)
        }
    }

    static func journalSequence(_ name: String) -> Int? {
        guard name.hasPrefix("journal-"), name.hasSuffix(".log") else { return nil }
        return Int(name.dropFirst(8).dropLast(4))
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
        for (position, sequence) in replay.enumerated() {
            let file = root + "/" + DataDirectory.journalName(sequence)
            try readJournal(file, isLast: position == replay.count - 1, into: &state)
        }
        return state
    }

    private func readCheckpoint(_ file: String, into state: inout State) throws(SnapshotError) -> Int {
        var log = LevelDBLogReader(bytes: try fileSystem.read(file), file: file)
        guard let header = try log.next(), header.starts(with: DataDirectory.checkpointMagic) else {
            throw SnapshotError(.corrupted, "not a checkpoint file (bad header)", file: file, offset: 0)
        }
        var firstJournal = 0
        do throws(ProtoReader.Failure) {
            firstJournal = try ProtoReader.reading(header, from: DataDirectory.checkpointMagic.count) {
                (r: inout ProtoReader) throws(ProtoReader.Failure) in Int(truncatingIfNeeded: try r.readRawVarint())
            }
        } catch {
            throw SnapshotError(.corrupted, "bad checkpoint header: \(error.message)", file: file, offset: 0)
        }
        while true {
            let offset = log.position
            guard let record = try log.next() else { break }
            do throws(ProtoReader.Failure) {
                let entries = try ProtoReader.reading(record) { (r: inout ProtoReader) throws(ProtoReader.Failure) in
                    var entries: [(NamespaceID, StorageKey, [UInt8])] = []
                    while r.position < record.count {
                        let ns = try JournalRecord.namespace(&r)
                        let key = try JournalRecord.storageKey(&r)
                        entries.append((ns, key, r.copy(try JournalRecord.lengthPrefixed(&r))))
                    }
                    return entries
                }
                state.entries.append(contentsOf: entries)
            } catch {
                throw SnapshotError(.corrupted, "bad checkpoint record: \(error.message)", file: file, offset: offset)
            }
        }
        return firstJournal
    }

    private func readJournal(_ file: String, isLast: Bool, into state: inout State) throws(SnapshotError) {
        var log = LevelDBLogReader(bytes: try fileSystem.read(file), file: file)
        while true {
            let offset = log.position
            let record: [UInt8]
            do throws(SnapshotError) {
                guard let next = try log.next() else { return }
                record = next
            } catch {
                // A torn tail of the newest journal was never acknowledged: drop it.
                if isLast && log.lastErrorWasTruncation { return }
                throw error
            }
            do throws(ProtoReader.Failure) {
                state.records.append(try JournalRecord.decode(record))
            } catch {
                throw SnapshotError(.corrupted, "bad journal record: \(error.message)", file: file, offset: offset)
            }
        }
    }
}
