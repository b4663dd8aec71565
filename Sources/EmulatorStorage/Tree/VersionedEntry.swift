/// One superseded version of an entry; `value == nil` is a tombstone.
struct EntryVersion: Sendable {
    var time: CommitTime
    var createTime: CommitTime
    var value: [UInt8]?
}

/// One key in a tree leaf: its current version inline, older versions (oldest first) in `history`.
///
/// A current `value` of nil is a tombstone: the key is deleted since `updateTime`, but older
/// versions may still be read at earlier times until history expires.
struct VersionedEntry: Sendable {
    var key: [UInt8]
    var value: [UInt8]?
    var createTime: CommitTime
    var updateTime: CommitTime
    var history: VersionHistory

    init(key: [UInt8], value: [UInt8]?, createTime: CommitTime, updateTime: CommitTime) {
        self.key = key
        self.value = value
        self.createTime = createTime
        self.updateTime = updateTime
        self.history = []
    }

    /// A placeholder for a key with no entry: a tombstone without history reads as absent.
    init(absent key: [UInt8]) {
        self.init(key: key, value: nil, createTime: 0, updateTime: 0)
    }

    var isLive: Bool { value != nil }

    /// False when the entry carries nothing any read can see, so it can leave the tree.
    var isRetained: Bool { value != nil || !history.isEmpty }

    /// The version visible at `time`: (value, createTime, updateTime), or nil if absent then.
    @inline(__always)
    func visible(at time: CommitTime) -> (value: [UInt8], createTime: CommitTime, updateTime: CommitTime)? {
        if updateTime <= time {
            guard let value else { return nil }
            return (value, createTime, updateTime)
        }
        var index = history.count - 1
        while index >= 0 {
            let version = history[index]
            if version.time <= time {
                guard let value = version.value else { return nil }
                return (value, version.createTime, version.time)
            }
            index -= 1
        }
        return nil
    }

    /// Drops versions no read at or after `horizon` can see. Returns false if the whole entry can go.
    mutating func prune(horizon: CommitTime) -> Bool {
        if !history.isEmpty {
            // history[i] is superseded at history[i+1].time (or updateTime for the last one).
            var drop = 0
            while drop < history.count {
                let supersededAt = drop + 1 < history.count ? history[drop + 1].time : updateTime
                if supersededAt <= horizon { drop += 1 } else { break }
            }
            if drop > 0 { history.removeFirst(drop) }
        }
        // A tombstone without history reads as absent at every time.
        return value != nil || !history.isEmpty
    }

    /// Sets the current version at `time` (a commit time ≥ updateTime). `value == nil` deletes.
    /// Writing the same bytes to a live entry changes nothing. Returns true if anything changed.
    mutating func write(_ newValue: [UInt8]?, at time: CommitTime) -> Bool {
        if updateTime == time {
            // Second write to this key in the same commit: rewrite the commit's version, or undo it
            // if it returns the key to its state before the commit.
            let before = history.last
            let beforeValue = before?.value
            if ByteOrder.equal(newValue, beforeValue), let before {
                value = before.value
                createTime = before.createTime
                updateTime = before.time
                history.removeLast()
                return true
            }
            if newValue == nil && before == nil {
                // Created in this commit, deleted in this commit: never existed.
                value = nil
                return true
            }
            if value == nil, newValue != nil {
                // Deleted and written again in one commit: a net update keeps its create time.
                createTime = before?.value != nil ? before?.createTime ?? time : time
            }
            value = newValue
            return true
        }
        if let current = value, let newValue, ByteOrder.equal(current, newValue) { return false }
        if value == nil && history.isEmpty {
            // Absent (a fresh placeholder or a history-less tombstone): a plain creation.
            guard let newValue else { return false }
            value = newValue
            createTime = time
            updateTime = time
            return true
        }
        if value == nil && newValue == nil { return false }
        history.append(EntryVersion(time: updateTime, createTime: createTime, value: value))
        if value == nil { createTime = time }
        value = newValue
        updateTime = time
        return true
    }
}
