package import EmulatorModel

/// Who is calling: nil for unauthenticated, `.owner` for the emulator's admin token (`Bearer owner`),
/// which bypasses security rules, or the claims of an (unsigned) ID token.
package enum FirestoreCaller: Sendable, Equatable {
    case anonymous
    case owner
    case user(token: String)
}

/// One access a request makes, as security rules see it.
package struct FirestoreAccess: Sendable {
    package enum Method: String, Sendable { case get, list, create, update, delete }

    package var method: Method
    package var database: DatabaseID
    package var path: ResourcePath
    package var caller: FirestoreCaller
    /// The stored document (`resource`), if any.
    package var resource: StoredDocument?
    /// The document as it would be after a write (`request.resource`).
    package var requestResource: ValueMap?
    /// For `list`: the query whose constraints rules check (`path` is then the collection).
    package var query: StructuredQuery?
    /// For `list`: a collection-group query (`path` ends with the collection id, any parent).
    package var isCollectionGroup: Bool
    /// `request.time` (µs): the commit time of a write, the read time of a read.
    package var time: Int64

    package init(
        method: Method, database: DatabaseID, path: ResourcePath, caller: FirestoreCaller, resource: StoredDocument? = nil,
        requestResource: ValueMap? = nil, query: StructuredQuery? = nil, isCollectionGroup: Bool = false, time: Int64
    ) {
        self.method = method
        self.database = database
        self.path = path
        self.caller = caller
        self.resource = resource
        self.requestResource = requestResource
        self.query = query
        self.isCollectionGroup = isCollectionGroup
        self.time = time
    }
}

/// The seam between the emulator and security rules: asked for every read, query result and
/// write, below the transport, so REST and gRPC pass through the same checks.
///
/// The default allows everything, which is the official emulator's behaviour when no rules file
/// is configured. `lookup` reads other documents for `get()`/`exists()` from the state the
/// request sees (head, the read time, or the commit in progress); it is valid only during the call.
package struct FirestoreRulesGate: Sendable {
    package typealias Lookup = (ResourcePath) -> StoredDocument?
    private let decide: @Sendable (FirestoreAccess, Lookup) -> EmulatorError?
    /// True for ``allowAll``: callers may skip building accesses.
    package let allowsEverything: Bool

    /// A gate from a yes/no decision; a denial is PERMISSION_DENIED "Missing or insufficient permissions.".
    package init(_ allow: @escaping @Sendable (FirestoreAccess, Lookup) -> Bool) {
        self.decide = { access, lookup in
            allow(access, lookup) ? nil : .permissionDenied("Missing or insufficient permissions.")
        }
        self.allowsEverything = false
    }

    /// A gate that answers nil to allow, or the error to return (a denial, or a bad token).
    package init(deciding decide: @escaping @Sendable (FirestoreAccess, Lookup) -> EmulatorError?) {
        self.decide = decide
        self.allowsEverything = false
    }

    private init(allowingEverything: ()) {
        self.decide = { _, _ in nil }
        self.allowsEverything = true
    }

    /// Allows every access.
    package static let allowAll = FirestoreRulesGate(allowingEverything: ())
    /// Denies every access except the owner's.
    package static let denyAll = FirestoreRulesGate { _, _ in false }

    /// Throws PERMISSION_DENIED when the access is not allowed.
    func check(_ access: FirestoreAccess, lookup: Lookup) throws(EmulatorError) {
        if access.caller == .owner || allowsEverything { return }
        if let error = decide(access, lookup) { throw error }
    }
}
