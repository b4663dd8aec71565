import EmulatorModel
import SecurityRules

/// Whether a write handed over with ``FirestoreAccess/existenceUnknown`` creates or updates: its
/// document exists when an earlier write of the batch to the same path created or updated it,
/// not when that write deleted it, and otherwise when it existed before the batch. The index of
/// earlier writes is built on the first question only (most batches never ask).
struct ExistenceResolver {
    private var previous: [Int]?

    mutating func method(
        of i: Int, in accesses: UnsafeBufferPointer<FirestoreAccess>, before: FirestoreRulesGate.Lookup
    ) -> FirestoreRulesMethod {
        let previous = self.previous ?? Self.previousWrites(accesses)
        self.previous = previous
        let p = previous[i]
        if p >= 0 { return accesses[p].method == .delete ? .create : .update }
        return before(accesses[i].path) == nil ? .create : .update
    }

    /// For each access, the index of the latest earlier access to the same path, or -1.
    private static func previousWrites(_ accesses: UnsafeBufferPointer<FirestoreAccess>) -> [Int] {
        var latest: [ResourcePath: Int] = [:]
        var previous = [Int](repeating: -1, count: accesses.count)
        for i in accesses.indices {
            if let p = latest.updateValue(i, forKey: accesses[i].path) { previous[i] = p }
        }
        return previous
    }
}
