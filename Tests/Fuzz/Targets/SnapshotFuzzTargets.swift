import EmulatorSnapshot

extension FuzzTargets {
    static let snapshotTargets: [FuzzTarget] = [
        FuzzTarget("leveldb-log", "LevelDB log reader (export files, journal files)") { input in
            var reader = LevelDBLogReader(bytes: input, file: "fuzz")
            var records = 0
            do {
                while let record = try reader.next() {
                    records += 1
                    // Each record is also an entity, as in an export's output files.
                    if records <= 4 { _ = SnapshotRecordDecoding.firestoreEntity(record) }
                }
            } catch {
                return
            }
        },
        FuzzTarget("entity-proto", "Firestore export entity: decoded and transcoded") { input in
            _ = SnapshotRecordDecoding.firestoreEntity(input)
            _ = SnapshotRecordDecoding.firestoreStoredEntity(input)
        },
        FuzzTarget("journal-record", "--data-dir journal record") { input in
            _ = SnapshotRecordDecoding.journalRecord(input)
        },
    ]
}
