import EmulatorModel
import EmulatorStorage

extension DocumentStore {
    /// The live documents, at head, whose immediate collection is `collectionID` and that lie
    /// below `parent`: a collection group, read from an index of the group's members instead of
    /// a scan of the whole database. Nil when the index cannot answer (the caller scans).
    func groupDocuments(
        _ database: DatabaseID, parent: ResourcePath, collectionID: String
    ) throws(EmulatorError) -> (documents: [StoredDocument], readTime: Int64)? {
        let ns = Self.namespace(database)
        let id = ensureGroupIndex(ns, collectionID: collectionID)
        let before = clock() - 1
        let snapshot: StorageSnapshot
        do { snapshot = try engine.snapshot() } catch { return nil }
        guard let hits = try? snapshot.scanIndex(ns, id) else { return nil }
        let parentKey = DatabaseView<StorageSnapshot>.key(parent)
        var out: [StoredDocument] = []
        for hit in hits {
            if !parent.isEmpty && !parentKey.isAncestor(of: hit.key) { continue }
            guard let e = snapshot.get(ns, hit.key) else { continue }
            out.append(try DatabaseView<StorageSnapshot>.decode(e, path: DatabaseView<StorageSnapshot>.path(hit.key)))
        }
        return (out, readTime(snapshot, clockBefore: before))
    }

    /// Ensures the index of the members of collection group `collectionID` (every document whose
    /// immediate collection it is, in key order) and returns its id.
    func ensureGroupIndex(_ ns: NamespaceID, collectionID: String) -> String {
        let id = "firestore-group|\(collectionID)"
        // The id as the key encoding stores a segment: escaped bytes and a 0x00 terminator.
        let wanted = StorageKey(segments: [collectionID]).encoded
        ensureIndex(ns, id: id) {
            IndexDefinition(
                id: id, scope: .root, includes: { Self.isMember($0.encoded, ofGroup: wanted) },
                extract: { _, _ in [[1]] })
        }
        return id
    }

    /// Whether an encoded key names a document (even depth) whose second-to-last segment is
    /// `wanted` (an encoded segment with its terminator). Segment terminators are the only 0x00
    /// bytes of an encoding, so this needs no decoding.
    static func isMember(_ encoded: [UInt8], ofGroup wanted: [UInt8]) -> Bool {
        var zeros = 0
        for byte in encoded where byte == 0 { zeros += 1 }
        guard zeros >= 2, zeros % 2 == 0, let last = encoded.indices.last, encoded[last] == 0 else { return false }
        // End of the second-to-last segment: the 0x00 before the last one.
        var end = last - 1
        while end >= 0 && encoded[end] != 0 { end -= 1 }
        guard end >= 0 else { return false }
        var start = end - 1
        while start >= 0 && encoded[start] != 0 { start -= 1 }
        let segment = encoded[(start + 1)...end]
        return segment.elementsEqual(wanted)
    }
}
