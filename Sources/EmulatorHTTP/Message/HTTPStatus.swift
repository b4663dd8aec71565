/// An HTTP response status code and its reason phrase.
package struct HTTPStatus: Sendable, Hashable {
    package var code: Int
    package var reason: String

    package init(_ code: Int, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    package static let switchingProtocols = HTTPStatus(101, "Switching Protocols")
    package static let ok = HTTPStatus(200, "OK")
    package static let noContent = HTTPStatus(204, "No Content")
    package static let badRequest = HTTPStatus(400, "Bad Request")
    package static let unauthorized = HTTPStatus(401, "Unauthorized")
    package static let forbidden = HTTPStatus(403, "Forbidden")
    package static let notFound = HTTPStatus(404, "Not Found")
    package static let methodNotAllowed = HTTPStatus(405, "Method Not Allowed")
    package static let requestTimeout = HTTPStatus(408, "Request Timeout")
    package static let conflict = HTTPStatus(409, "Conflict")
    package static let preconditionFailed = HTTPStatus(412, "Precondition Failed")
    package static let contentTooLarge = HTTPStatus(413, "Payload Too Large")
    package static let tooManyRequests = HTTPStatus(429, "Too Many Requests")
    package static let headerFieldsTooLarge = HTTPStatus(431, "Request Header Fields Too Large")
    package static let internalServerError = HTTPStatus(500, "Internal Server Error")
    package static let notImplemented = HTTPStatus(501, "Not Implemented")
    package static let serviceUnavailable = HTTPStatus(503, "Service Unavailable")
    package static let gatewayTimeout = HTTPStatus(504, "Gateway Timeout")
}

extension HTTPStatus {
    package static let `continue` = HTTPStatus(100, "Continue")
    package static let notModified = HTTPStatus(304, "Not Modified")
    package static let lengthRequired = HTTPStatus(411, "Length Required")
    package static let uriTooLong = HTTPStatus(414, "URI Too Long")
    package static let expectationFailed = HTTPStatus(417, "Expectation Failed")
    package static let upgradeRequired = HTTPStatus(426, "Upgrade Required")
    package static let httpVersionNotSupported = HTTPStatus(505, "HTTP Version Not Supported")
}
