/// The results of a query at one moment, with the changes since the previous snapshot.
public struct QuerySnapshot: Sendable {
    public let query: Query
    public let documents: [QueryDocumentSnapshot]
    public let documentChanges: [DocumentChange]

    public let metadata: SnapshotMetadata

    init(query: Query, documents: [DocumentSnapshot], previous: [DocumentSnapshot]?, metadata: SnapshotMetadata = SnapshotMetadata()) {
        self.query = query
        self.documents = documents
        self.documentChanges = DocumentChange.diff(old: previous ?? [], new: documents)
        self.metadata = metadata
    }

    public var isEmpty: Bool { documents.isEmpty }

    public var count: Int { documents.count }
}

/// One document's change between two query snapshots.
public struct DocumentChange: Sendable {
    public enum ChangeType: Sendable, Hashable { case added, modified, removed }

    public let type: ChangeType
    public let document: QueryDocumentSnapshot
    /// Position in the previous snapshot (`-1` for added documents).
    public let oldIndex: Int
    /// Position in the new snapshot (`-1` for removed documents).
    public let newIndex: Int

    static func diff(old: [DocumentSnapshot], new: [DocumentSnapshot]) -> [DocumentChange] {
        var oldIndex: [String: Int] = [:]
        for (i, d) in old.enumerated() { oldIndex[d.reference.path] = i }
        var newIndex: [String: Int] = [:]
        for (i, d) in new.enumerated() { newIndex[d.reference.path] = i }
        var changes: [DocumentChange] = []
        for (i, d) in old.enumerated() where newIndex[d.reference.path] == nil {
            changes.append(DocumentChange(type: .removed, document: d, oldIndex: i, newIndex: -1))
        }
        for (i, d) in new.enumerated() {
            if let o = oldIndex[d.reference.path] {
                let retimed = old[o].updateTime != nil && d.updateTime != nil && old[o].updateTime != d.updateTime
                if retimed || old[o].fields != d.fields {
                    changes.append(DocumentChange(type: .modified, document: d, oldIndex: o, newIndex: i))
                }
            } else {
                changes.append(DocumentChange(type: .added, document: d, oldIndex: -1, newIndex: i))
            }
        }
        return changes
    }
}
