@testable import EmulatorStorage

/// A deliberately simple model of the engine: a dictionary per commit.
struct ReferenceModel {
    struct Entry: Equatable {
        var value: [UInt8]
        var createTime: CommitTime
        var updateTime: CommitTime
    }

    typealias State = [StorageKey: Entry]

    var head: State = [:]
    /// The state after each commit, oldest first.
    var history: [(time: CommitTime, state: State)] = [(0, [:])]

    func state(at time: CommitTime) -> State {
        history.last { $0.time <= time }?.state ?? [:]
    }

    /// Applies one commit's operations; returns the net changes and the subtrees deleted by a cut
    /// (`cuts`: the engine cuts every subtree outside `keyByKey`), or the error the engine must throw.
    /// After a cut, a key written again under the subtree is a new entry (times = this commit).
    mutating func commit(
        _ operations: [Operation], at time: CommitTime, cuts: Bool = false, keyByKey: (StorageKey) -> Bool = { _ in false }
    ) -> Result<(changes: [StorageKey: (Entry?, Entry?)], cut: [StorageKey]), StorageError> {
        var working = head
        var cut: [StorageKey] = []
        for operation in operations {
            switch operation {
            case .put(let key, let value, let precondition):
                if let error = check(precondition, working[key], key) { return .failure(error) }
                if let current = working[key] {
                    if current.value != value { working[key] = Entry(value: value, createTime: current.createTime, updateTime: time) }
                } else {
                    working[key] = Entry(value: value, createTime: time, updateTime: time)
                }
            case .delete(let key, let precondition):
                if let error = check(precondition, working[key], key) { return .failure(error) }
                working[key] = nil
            case .deleteSubtree(let key):
                let isCut = cuts && !keyByKey(key)
                if isCut { cut.append(key) }
                for existing in working.keys where key.contains(existing) { working[existing] = nil }
            case .abort:
                return .failure(StorageError(.aborted, "abort"))
            }
        }
        var changes: [StorageKey: (Entry?, Entry?)] = [:]
        for key in Set(head.keys).union(working.keys) {
            let before = head[key]
            // Under a cut, an entry starts afresh; elsewhere live before and after is a net
            // update, whatever happened in between.
            let fresh = cut.contains { $0.contains(key) }
            if let before, let after = working[key], !fresh {
                working[key]?.createTime = before.createTime
                if after.value != before.value { working[key]?.updateTime = time }
            }
            if before?.value == working[key]?.value && !(fresh && working[key] != nil) {
                working[key] = before
            } else {
                changes[key] = (before, working[key])
            }
        }
        head = working
        history.append((time, head))
        return .success((changes, cut))
    }

    mutating func clear(_ subtree: StorageKey, at time: CommitTime) {
        for index in history.indices {
            for key in history[index].state.keys where subtree.contains(key) { history[index].state[key] = nil }
        }
        for key in head.keys where subtree.contains(key) { head[key] = nil }
        history.append((time, head))
    }

    private func check(_ precondition: Precondition, _ entry: Entry?, _ key: StorageKey) -> StorageError? {
        switch precondition {
        case .none: return nil
        case .exists: return entry == nil ? StorageError(.notFound, "", key: key) : nil
        case .missing: return entry != nil ? StorageError(.alreadyExists, "", key: key) : nil
        case .updateTime(let time):
            guard let entry else { return StorageError(.notFound, "", key: key) }
            return entry.updateTime == time ? nil : StorageError(.failedPrecondition, "", key: key)
        case .value(let bytes):
            return entry?.value == bytes ? nil : StorageError(.failedPrecondition, "", key: key)
        }
    }

    enum Operation {
        case put(StorageKey, [UInt8], Precondition)
        case delete(StorageKey, Precondition)
        case deleteSubtree(StorageKey)
        case abort
    }
}
