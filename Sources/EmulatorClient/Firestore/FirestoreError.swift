/// Error codes of Firestore calls: the google.rpc.Code numbering (0–16).
public struct FirestoreErrorCode: Sendable, Hashable, CustomStringConvertible {
    public var rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let ok = FirestoreErrorCode(rawValue: 0)
    public static let cancelled = FirestoreErrorCode(rawValue: 1)
    public static let unknown = FirestoreErrorCode(rawValue: 2)
    public static let invalidArgument = FirestoreErrorCode(rawValue: 3)
    public static let deadlineExceeded = FirestoreErrorCode(rawValue: 4)
    public static let notFound = FirestoreErrorCode(rawValue: 5)
    public static let alreadyExists = FirestoreErrorCode(rawValue: 6)
    public static let permissionDenied = FirestoreErrorCode(rawValue: 7)
    public static let resourceExhausted = FirestoreErrorCode(rawValue: 8)
    public static let failedPrecondition = FirestoreErrorCode(rawValue: 9)
    public static let aborted = FirestoreErrorCode(rawValue: 10)
    public static let outOfRange = FirestoreErrorCode(rawValue: 11)
    public static let unimplemented = FirestoreErrorCode(rawValue: 12)
    public static let `internal` = FirestoreErrorCode(rawValue: 13)
    public static let unavailable = FirestoreErrorCode(rawValue: 14)
    public static let dataLoss = FirestoreErrorCode(rawValue: 15)
    public static let unauthenticated = FirestoreErrorCode(rawValue: 16)

    static let names = [
        "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS",
        "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED",
        "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
    ]

    init(name: String) {
        self.init(rawValue: FirestoreErrorCode.names.firstIndex(of: name) ?? 2)
    }

    public var description: String {
        rawValue >= 0 && rawValue < FirestoreErrorCode.names.count ? FirestoreErrorCode.names[rawValue] : "CODE_\(rawValue)"
    }
}

/// A failed Firestore call: a code and the server's (or client's) message.
public struct FirestoreError: Error, Sendable, CustomStringConvertible {
    public var code: FirestoreErrorCode
    public var message: String
    /// The emulator could not be reached (no answer at all), so a queued write may be sent again.
    var isUnreachable = false

    public init(_ code: FirestoreErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
