import EmulatorHTTP
import EmulatorModel

extension FirestoreREST {
    /// The query parameters each document method binds (lowerCamelCase; snake_case is accepted
    /// too): the request fields that are neither in the URL path nor in the body.
    enum QueryParameters {
        static let get: Set<String> = ["mask.fieldPaths", "transaction", "readTime"]
        static let list: Set<String> = [
            "pageSize", "pageToken", "orderBy", "mask.fieldPaths", "transaction", "readTime", "showMissing",
        ]
        static let create: Set<String> = ["documentId", "mask.fieldPaths"]
        static let patch: Set<String> = [
            "updateMask.fieldPaths", "mask.fieldPaths", "currentDocument.exists", "currentDocument.updateTime",
        ]
        static let delete: Set<String> = ["currentDocument.exists", "currentDocument.updateTime"]

        /// Google's standard query parameters, accepted on every method (`$`-prefixed forms too).
        static let system: Set<String> = [
            "access_token", "alt", "callback", "fields", "key", "oauth_token", "prettyPrint", "quotaUser",
            "upload_protocol", "uploadType", "userIp", "trace", "pp", "bearer_token", "requestReason",
        ]
    }

    /// Rejects a query parameter the method does not bind, as production does:
    /// `Invalid JSON payload received. Unknown name "foo": Cannot bind query parameter. Field 'foo'
    /// could not be found in request message.` (production's answer to
    /// `GET …/documents/{id}?bogusQueryParamXyz=1`, quoted in public code).
    static func checkQueryParameters(_ request: HTTPRequest, allowed: Set<String>) throws(EmulatorError) {
        for item in request.queryItems {
            let name = item.name
            if name.utf8.first == 0x24 || QueryParameters.system.contains(name) { continue }  // `$alt`, …
            let camel = name.split(separator: ".").map { JSONObject.camelCase(String($0)) }.joined(separator: ".")
            if allowed.contains(camel) { continue }
            throw .invalidArgument(
                "Invalid JSON payload received. Unknown name \"\(name)\": Cannot bind query parameter. Field '\(name)' could not be found in request message.")
        }
    }
}
