import EmulatorModel

/// Why a REST request failed, with the official status and message text.
enum DatabaseRESTError: Error {
    /// 400 with the given message.
    case badRequest(String)
    /// 401 `Permission denied` (rules said no).
    case permissionDenied
    /// 401 for a token that cannot be parsed.
    case invalidToken

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
    /// Production's REST text (the SDKs show their `write_too_big` status as `WRITE_TOO_BIG: ` + this).
    /// Status from the REST reference ("terminates with an HTTP 400 error"); the text is ours.
    static let readTimedOut = "The read did not finish within the requested timeout."
    static let writeTooBig = "Data to write exceeds the maximum size that can be modified with a single request."

    var status: (code: Int, reason: String) {
        switch self {
        case .badRequest: (400, "Bad Request")
        case .permissionDenied, .invalidToken: (401, "Unauthorized")
        }
    }

    var message: String {
        switch self {
        case .badRequest(let message): message
        case .permissionDenied: "Permission denied"
        case .invalidToken: "Could not parse auth token."
        }
    }
}
