import EmulatorSupport

/// What a request handler answers: `{"s":"ok","d":data}` or `{"s":status,"d":message}`.
enum DatabaseWireResult: Equatable, Sendable {
    case ok(JSONValue)
    case failure(String, String)

    static let permissionDenied = DatabaseWireResult.failure("permission_denied", "Permission denied")
    static func invalid(_ message: String) -> DatabaseWireResult { .failure("invalid_data", message) }
}

extension DatabaseWireResult {
    /// The wire status for a REST validation failure.
    static func rest(_ error: DatabaseRESTError) -> DatabaseWireResult {
        switch error {
        case .permissionDenied: .permissionDenied
        case .invalidToken: .failure("invalid_token", error.message)
        case .badRequest(let message):
            message == DatabaseRESTError.writeTooBig ? .failure("too_big", message) : .invalid(message)
        }
    }
}

/// A request refused before anything was written, with its answer.
struct DatabaseWireRejection: Error {
    var result: DatabaseWireResult
    init(_ result: DatabaseWireResult) { self.result = result }
}
