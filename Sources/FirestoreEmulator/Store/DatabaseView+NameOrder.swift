import EmulatorModel
import EmulatorStorage

extension DatabaseView {
    /// Visits the children of `collection` in Firestore's document-name order (descending:
    /// the reverse) until `visit` returns false; nothing is decoded here.
    ///
    /// Key order is byte order of the ids, but Firestore puts numeric ids `__id<n>__` first, by
    /// their integer (``ResourcePath/compareSegments(_:_:)``). Every numeric id lies between
    /// `__id` and `__ie` in key order, so that range is read first (one seek when it holds none)
    /// and sorted, and the walk over the other ids skips them.
    ///
    /// - Parameters:
    ///   - start: an id the walk may start at: ids before it (in walk order) are not visited.
    ///     The caller still checks each id against its cursor; this only saves reading them.
    ///   - includeMissing: also visit ids that have no document but have descendants
    ///     ("missing" documents), with a nil entry.
    func walkInNameOrder(
        _ collection: ResourcePath, descending: Bool, from start: String?, includeMissing: Bool,
        _ visit: (String, StoredEntry?) throws(EmulatorError) -> Bool
    ) throws(EmulatorError) {
        let parent = Self.key(collection)
        let startIsNumeric = start.map { ResourcePath.numericID($0) != nil }

        func numericPhase() throws(EmulatorError) -> Bool {
            let range = StorageKeyRange(
                from: .including(Self.key(collection.appending("__id"))), to: .excluding(Self.key(collection.appending("__ie"))))
            var numeric: [(id: String, entry: StoredEntry?)] = []
            for child in source.childEntries(namespace, of: parent, in: range, reverse: false) {
                guard let id = child.key.lastSegment, ResourcePath.numericID(id) != nil else { continue }
                if child.entry == nil && !includeMissing { continue }
                numeric.append((id, child.entry))
            }
            numeric.sort { ResourcePath.compareSegments($0.id, $1.id) < 0 }
            if descending { numeric.reverse() }
            for (id, entry) in numeric {
                if let start, startIsNumeric == true {
                    let c = ResourcePath.compareSegments(id, start)
                    if descending ? c > 0 : c < 0 { continue }
                }
                guard try visit(id, entry) else { return false }
            }
            return true
        }

        func otherPhase() throws(EmulatorError) -> Bool {
            var range = StorageKeyRange.all
            if let start, startIsNumeric == false {
                let key = Self.key(collection.appending(start))
                range = descending ? StorageKeyRange(from: .unbounded, to: .including(key)) : StorageKeyRange(from: .including(key), to: .unbounded)
            }
            for child in source.childEntries(namespace, of: parent, in: range, reverse: descending) {
                guard let id = child.key.lastSegment, ResourcePath.numericID(id) == nil else { continue }
                if child.entry == nil && !includeMissing { continue }
                guard try visit(id, child.entry) else { return false }
            }
            return true
        }

        // A start among the other ids comes after every numeric id (ascending); a numeric start
        // comes before every other id (descending).
        if descending {
            if startIsNumeric != true { guard try otherPhase() else { return } }
            _ = try numericPhase()
        } else {
            if startIsNumeric != false { guard try numericPhase() else { return } }
            _ = try otherPhase()
        }
    }
}
