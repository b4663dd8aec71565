/// A live key with the value visible at some read time.
package struct StoredEntry: Sendable, Equatable {
    package var key: StorageKey
    /// The opaque value bytes the caller stored.
    package var value: [UInt8]
    /// When this key was last created (survives overwrites; a delete then re-create moves it).
    package var createTime: CommitTime
    /// When the value last changed (a write of identical bytes keeps it).
    package var updateTime: CommitTime

    package init(key: StorageKey, value: [UInt8], createTime: CommitTime, updateTime: CommitTime) {
        self.key = key
        self.value = value
        self.createTime = createTime
        self.updateTime = updateTime
    }
}

/// A condition checked against the state a commit sees (head plus its own earlier writes).
package enum Precondition: Sendable, Equatable {
    case none
    /// A live entry must exist (else `.notFound`).
    case exists
    /// No live entry may exist (else `.alreadyExists`).
    case missing
    /// A live entry must exist with exactly this update time (else `.notFound` / `.failedPrecondition`).
    case updateTime(CommitTime)
    /// The current value must equal these bytes; nil means "must be absent" (else `.failedPrecondition`).
    /// Subtree hashes (RTDB ETags) are checked by reading inside the commit body instead.
    case value([UInt8]?)
}

/// The update and create time of a key after a write in a commit.
package struct WriteTimes: Sendable, Equatable {
    /// The commit time, or the previous update time when the write changed nothing.
    package var updateTime: CommitTime
    package var createTime: CommitTime
}
