/// Which state a read sees: the latest, a transaction's, a new transaction's, or a past time (µs).
package enum ReadConsistency: Sendable, Equatable {
    case latest
    case transaction([UInt8])
    case newTransaction(TransactionOptions)
    case readTime(Int64)
}

/// `TransactionOptions`: read-write (optionally retrying an earlier id, with a concurrency mode)
/// or read-only at a time.
package enum TransactionOptions: Sendable, Equatable {
    case readWrite(retrying: [UInt8]?, concurrency: ConcurrencyMode = .unspecified)
    case readOnly(readTime: Int64?)
}

/// `TransactionOptions.ConcurrencyMode`: unspecified takes the database's mode, which is
/// pessimistic here (production's default for Firestore, and the official emulator's only mode).
package enum ConcurrencyMode: Sendable, Equatable {
    case unspecified, optimistic, pessimistic
}

/// The lock owner and age of a pessimistic transaction.
struct TransactionLock: Sendable {
    var owner: UInt64
    var age: UInt64

    init(_ entry: TransactionRegistry.Entry) {
        owner = entry.owner
        age = entry.age
    }
}

/// How a read is carried out once its consistency selector is resolved.
struct ResolvedRead: Sendable {
    /// The snapshot time to read at; nil reads the head (and reports the head time).
    var time: Int64?
    /// A read-write transaction whose read set the read must extend.
    var recordingTransaction: [UInt8]?
    /// The id of a transaction this request began, returned first in the response.
    var newTransaction: [UInt8]?
    /// A pessimistic transaction: what the read returns must be locked first.
    var lock: TransactionLock?
}
