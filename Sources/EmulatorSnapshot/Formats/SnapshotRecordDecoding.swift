/// Single records of the snapshot formats decoded on their own, for tools that check bytes
/// record by record (the fuzz targets in `Tests/Fuzz`). Importers read whole files instead.
package enum SnapshotRecordDecoding {
    /// A Firestore export entity (`EntityProto`) as a document, or nil when it is malformed.
    package static func firestoreEntity(_ record: [UInt8]) -> FirestoreExportDocument? {
        try? EntityProto.decode(record)
    }

    /// A Firestore export entity transcoded straight to stored bytes (the import fast path),
    /// or nil when it is malformed.
    package static func firestoreStoredEntity(_ record: [UInt8]) -> FirestoreStoredDocument? {
        try? EntityProto.transcode(record)
    }

    /// A `--data-dir` journal record, or nil when it is malformed.
    package static func journalRecord(_ record: [UInt8]) -> JournalRecord? {
        try? JournalRecord.decode(record)
    }
}
