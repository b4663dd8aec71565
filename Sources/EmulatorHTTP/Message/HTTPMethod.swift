/// An HTTP request method. Unknown methods are kept verbatim.
package enum HTTPMethod: Sendable, Hashable {
    case get, head, post, put, patch, delete, options
    case other(String)

    package init(_ token: String) {
        switch token {
        case "GET": self = .get
        case "HEAD": self = .head
        case "POST": self = .post
        case "PUT": self = .put
        case "PATCH": self = .patch
        case "DELETE": self = .delete
        case "OPTIONS": self = .options
        default: self = .other(token)
        }
    }

    /// The method spelled by `bytes` (a request line's first word), without building a string
    /// for the known methods.
    package init(bytes: some Collection<UInt8>) {
        switch bytes.count {
        case 3 where bytes.elementsEqual("GET".utf8): self = .get
        case 3 where bytes.elementsEqual("PUT".utf8): self = .put
        case 4 where bytes.elementsEqual("POST".utf8): self = .post
        case 4 where bytes.elementsEqual("HEAD".utf8): self = .head
        case 5 where bytes.elementsEqual("PATCH".utf8): self = .patch
        case 6 where bytes.elementsEqual("DELETE".utf8): self = .delete
        case 7 where bytes.elementsEqual("OPTIONS".utf8): self = .options
        default: self.init(String(decoding: bytes, as: UTF8.self))
        }
    }

    package var token: String {
        switch self {
        case .get: "GET"
        case .head: "HEAD"
        case .post: "POST"
        case .put: "PUT"
        case .patch: "PATCH"
        case .delete: "DELETE"
        case .options: "OPTIONS"
        case .other(let token): token
        }
    }
}
