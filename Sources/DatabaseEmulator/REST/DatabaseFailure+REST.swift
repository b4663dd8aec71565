import EmulatorModel
import EmulatorHTTP
import EmulatorSupport

extension DatabaseFailure {
    /// The REST status.
    var httpStatus: HTTPStatus {
        switch self {
        case .invalid, .writeTooBig: HTTPStatus(400, "Bad Request")
        case .permissionDenied, .invalidToken: HTTPStatus(401, "Unauthorized")
        case .conditionFailed: .preconditionFailed
        case .unsupported: .methodNotAllowed
        }
    }

    /// The REST answer: `{"error": message}` in the production layout, or for a failed `if-match`
    /// the current value with its ETag.
    var httpResponse: HTTPResponse {
        if case .conditionFailed(let current) = self {
            var response = HTTPResponse.json(JSONWriter.encode(current.json()), status: httpStatus)
            response.headers.set("ETag", current.etag)
            return response
        }
        return DatabaseEmulator.error(httpStatus, message)
    }
}
