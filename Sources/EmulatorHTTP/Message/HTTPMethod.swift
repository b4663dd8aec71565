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
        case 3 where Self.spells(bytes, "GET"): self = .get
        case 3 where Self.spells(bytes, "PUT"): self = .put
        case 4 where Self.spells(bytes, "POST"): self = .post
        case 4 where Self.spells(bytes, "HEAD"): self = .head
        case 5 where Self.spells(bytes, "PATCH"): self = .patch
        case 6 where Self.spells(bytes, "DELETE"): self = .delete
        case 7 where Self.spells(bytes, "OPTIONS"): self = .options
        default: self.init(String(decoding: bytes, as: UTF8.self))
        }
    }

    /// Whether `bytes` (as many as `word` has) are `word`'s: compared with the literal's memory
    /// (`elementsEqual` with a string's UTF-8 view walks the view generically).
    private static func spells(_ bytes: some Collection<UInt8>, _ word: StaticString) -> Bool {
        var i = 0
        for byte in bytes {
            if byte != word.utf8Start[i] { return false }
            i += 1
        }
        return true
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
