import EmulatorModel

/// Why a Realtime Database operation failed, whatever the transport. The service and the
/// decoders in front of it throw it; each transport maps it to its own wire form: REST a status
/// and `{"error": message}` (`DatabaseFailure+REST`), the wire protocol of the SDKs
/// `{"s": status, "d": message}` (`DatabaseFailure+Wire`).
///
/// ```swift
/// do { try service.set(value, at: path, in: namespace, auth: auth) }
/// catch { error.httpResponse }   // REST; `error.wireStatus` on a WebSocket
/// ```
enum DatabaseFailure: Error, Equatable {
    /// The request or its data is malformed (REST 400, wire `invalid_data`), with the message.
    case invalid(String)
    /// The write touches more data than its `writeSizeLimit` allows (REST 400, wire `too_big`).
    case writeTooBig
    /// The rules said no (REST 401, wire `permission_denied`).
    case permissionDenied
    /// A token that cannot be parsed (REST 401, wire `invalid_token`).
    case invalidToken
    /// A compare-and-set (REST `if-match`, a wire transaction's hash) found another value: the
    /// current one (REST 412 with it and its ETag, wire `datastale`).
    case conditionFailed(current: DatabaseNode)
    /// A method or action the database does not have (REST 405, wire `failed`), with the message.
    case unsupported(String)

    static let invalidJSON = "Invalid data; couldn't parse JSON object, array, or value."
    static let invalidPatchBody =
        "Invalid data; couldn't parse JSON object. Are you sending a JSON object with valid key names?"
    static let invalidPath = "Invalid path: Invalid token in path"
    // Query parameter texts as production answers them (observed by third-party clients and fakes).
    static let orderByMissing = "orderBy must be defined when other query parameters are defined"
    static let invalidOrderBy = "orderBy must be a valid JSON encoded path"
    static let notAPrimitive = "Constraint index field must be a JSON primitive"
    static let bothLimits = "Only one of limitToFirst and limitToLast may be specified"
    static let equalToWithBounds = "equalTo cannot be specified in addition to startAfter, startAt, endAt, or endBefore"
    /// Status from the REST reference ("terminates with an HTTP 400 error"); the text is ours.
    static let readTimedOut = "The read did not finish within the requested timeout."
    /// Production's REST text (the SDKs show their `write_too_big` status as `WRITE_TOO_BIG: ` + this).
    static let writeTooBigMessage = "Data to write exceeds the maximum size that can be modified with a single request."

    /// The message every transport shows.
    var message: String {
        switch self {
        case .invalid(let message), .unsupported(let message): message
        case .writeTooBig: Self.writeTooBigMessage
        case .permissionDenied: "Permission denied"
        case .invalidToken: "Could not parse auth token."
        case .conditionFailed: "Transaction hash does not match"
        }
    }
}
