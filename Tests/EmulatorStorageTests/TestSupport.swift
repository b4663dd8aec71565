import Synchronization
@testable import EmulatorStorage

/// A clock tests move by hand (microseconds).
final class ManualClock: Sendable {
    private let time: Mutex<CommitTime>
    init(_ start: CommitTime = 1_000_000) { time = Mutex(start) }
    var now: CommitTime { time.withLock { $0 } }
    func advance(by micros: CommitTime) { time.withLock { $0 += micros } }
    var storageClock: StorageClock { StorageClock { [self] in self.now } }
}

/// Collects what a subscriber hears.
final class FeedRecorder: Sendable {
    private let batches = Mutex<[ChangeBatch]>([])
    var all: [ChangeBatch] { batches.withLock { $0 } }
    func record(_ batch: ChangeBatch) { batches.withLock { $0.append(batch) } }
}

func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

func key(_ path: String) -> StorageKey { StorageKey(path) }

let testNamespace: NamespaceID = "test/ns"

extension StorageEngine {
    /// Puts several values in one commit.
    @discardableResult
    func put(_ values: [(String, String)], in namespace: NamespaceID = testNamespace) throws -> CommitTime {
        try commit { (txn: inout CommitBuilder) throws(StorageError) in
            for (path, value) in values { try txn.put(namespace, StorageKey(path), bytes(value)) }
        }.commitTime
    }

    func value(_ path: String, in namespace: NamespaceID = testNamespace, at time: CommitTime? = nil) throws -> String? {
        try snapshot(at: time).get(namespace, StorageKey(path)).map { String(decoding: $0.value, as: UTF8.self) }
    }
}
