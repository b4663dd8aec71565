package import EmulatorModel
package import SecurityRules

/// Who is calling: nil for unauthenticated, `.owner` for the emulator's admin token (`Bearer owner`),
/// which bypasses security rules, or the claims of an (unsigned) ID token.
package enum FirestoreCaller: Sendable, Equatable {
    case anonymous
    case owner
    case user(token: String)

    /// The caller an `Authorization` header value names (REST and gRPC metadata alike):
    /// `Bearer owner` in any case is the owner, another bearer token a user, anything else
    /// (or no header) anonymous.
    package init(authorization: String?) {
        guard let authorization else {
            self = .anonymous
            return
        }
        // Over the contiguous bytes (every native string has them): a walk of the string's UTF-8
        // view by index costs more than the rest of a cached GET's routing.
        self = authorization.utf8.withContiguousStorageIfAvailable(Self.init(authorizationBytes:))
            ?? Array(authorization.utf8).withUnsafeBufferPointer(Self.init(authorizationBytes:))
    }

    /// The caller `bytes` (an `Authorization` value) name: skip leading spaces, take the scheme up
    /// to the next space, then the token after that one space with spaces trimmed from both ends.
    /// Spaces are ASCII, so the token's bytes are whole characters.
    private init(authorizationBytes bytes: UnsafeBufferPointer<UInt8>) {
        var start = 0
        while start < bytes.count, bytes[start] == 0x20 { start += 1 }
        var space = start
        while space < bytes.count, bytes[space] != 0x20 { space += 1 }
        guard space < bytes.count, Self.equalsIgnoringASCIICase(bytes[start..<space], "bearer") else {
            self = .anonymous
            return
        }
        var tokenStart = space + 1
        var tokenEnd = bytes.count
        while tokenStart < tokenEnd, bytes[tokenStart] == 0x20 { tokenStart += 1 }
        while tokenStart < tokenEnd, bytes[tokenEnd - 1] == 0x20 { tokenEnd -= 1 }
        let token = UnsafeBufferPointer(rebasing: bytes[tokenStart..<tokenEnd])
        self = token.isEmpty
            ? .anonymous : Self.equalsIgnoringASCIICase(token, "owner") ? .owner : .user(token: String(decoding: token, as: UTF8.self))
    }

    /// Whether `token` is the emulator's admin token: `owner`, in any case.
    package static func isOwnerToken(_ token: some StringProtocol) -> Bool {
        equalsIgnoringASCIICase(token.utf8, "owner")
    }

    /// Whether `bytes` spell `lowercase` (ASCII letters) in any case. For these words ASCII case
    /// folding is Unicode lowercasing: no other character lowercases to `b e a r o w n`.
    static func equalsIgnoringASCIICase(_ bytes: some Collection<UInt8>, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        var i = 0
        for byte in bytes {
            let folded = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
            if folded != lowercase.utf8Start[i] { return false }
            i += 1
        }
        return true
    }
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
    /// A plain set whose document was not looked up (the gate said it need not be): `method`
    /// is `.update` as a placeholder and `resource` is nil. Whether it creates or updates
    /// follows from the batch's earlier writes to the same path and the state before the batch.
    package var existenceUnknown = false

    package init(
        method: Method, database: DatabaseID, path: ResourcePath, caller: FirestoreCaller, resource: StoredDocument? = nil,
        requestResource: ValueMap? = nil, query: StructuredQuery? = nil, isCollectionGroup: Bool = false, time: Int64,
        existenceUnknown: Bool = false
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
        self.existenceUnknown = existenceUnknown
    }
}

/// The seam between the emulator and security rules: asked for every read, query and write,
/// below the transport, so REST and gRPC pass through the same checks.
///
/// The default allows everything, which is the official emulator's behaviour when no rules file
/// is configured. Lookups read other documents for `get()`/`exists()` (`before`: the state the
/// request started from) and `getAfter()`/`existsAfter()` (`after`: with the whole batch
/// applied); they are valid only during the call.
package struct FirestoreRulesGate: Sendable {
    package typealias Lookup = (ResourcePath) -> StoredDocument?
    /// Decides a batch of accesses (one read, or every write of a commit): nil allows.
    private let decide: @Sendable ([FirestoreAccess], _ before: Lookup, _ after: Lookup) -> EmulatorError?
    /// True for ``allowAll``: callers may skip building accesses.
    package let allowsEverything: Bool
    /// False when the rules never read a stored document's fields (`resource`): writes may then
    /// hand over accesses whose `resource` has empty fields, and skip decoding them.
    package let readsStoredFields: Bool
    /// True when the gate decides a plain set without knowing whether its document exists
    /// (it works that out itself when a rule needs it): writes may then skip the lookup and hand
    /// over accesses with ``FirestoreAccess/existenceUnknown``.
    package let decidesWritesWithoutExistence: Bool
    /// How often each rule ran (`:ruleCoverage`); nil for gates not compiled from a rules file.
    package var coverage: RulesCoverage?
    /// Where decisions go for the Emulator UI's Requests view (the owner's included); nil: nowhere.
    package var requestLog: RulesRequestLog?

    /// A gate from a yes/no decision per access; a denial is PERMISSION_DENIED
    /// "Missing or insufficient permissions.".
    package init(_ allow: @escaping @Sendable (FirestoreAccess, Lookup) -> Bool) {
        self.decide = { accesses, before, _ in
            for access in accesses where !allow(access, before) {
                return .permissionDenied("Missing or insufficient permissions.")
            }
            return nil
        }
        self.allowsEverything = false
        self.readsStoredFields = true
        self.decidesWritesWithoutExistence = false
    }

    /// A gate that decides whole batches: nil allows, otherwise the error to return (a denial, or
    /// a bad token). `readsStoredFields: false` promises that `decide` never reads the fields of
    /// an access's `resource`.
    package init(
        readsStoredFields: Bool = true, decidesWritesWithoutExistence: Bool = false,
        decidingBatch decide: @escaping @Sendable ([FirestoreAccess], _ before: Lookup, _ after: Lookup) -> EmulatorError?
    ) {
        self.decide = decide
        self.allowsEverything = false
        self.readsStoredFields = readsStoredFields
        self.decidesWritesWithoutExistence = decidesWritesWithoutExistence
    }

    private init(allowingEverything: ()) {
        self.decide = { _, _, _ in nil }
        self.allowsEverything = true
        self.readsStoredFields = false
        self.decidesWritesWithoutExistence = true
    }

    /// Allows every access.
    package static let allowAll = FirestoreRulesGate(allowingEverything: ())
    /// Denies every access except the owner's.
    package static let denyAll = FirestoreRulesGate { _, _ in false }

    /// Records a request by the owner, which no rule is asked about (when a log is attached).
    func noteOwner(_ method: String, _ database: DatabaseID, _ path: ResourcePath) {
        guard let requestLog else { return }
        requestLog.record(
            RulesRequestRecord(
                time: requestLog.now(), emulator: "firestore", outcome: .owner, rules: coverage?.source,
                describe: { RulesRequestDescription(method: method, path: FirestoreRulesEngine.displayPath(database, path), uid: nil) }))
    }

    /// Throws unless the read is allowed.
    func check(_ access: FirestoreAccess, lookup: Lookup) throws(EmulatorError) {
        if access.caller == .owner {
            noteOwner(access.method.rawValue, access.database, access.path)
            return
        }
        if allowsEverything { return }
        if let error = decide([access], lookup, lookup) { throw error }
    }

    /// Throws unless `caller` may list collection ids: rules cannot grant it, so only the owner
    /// may while rules are in force.
    func checkListCollectionIDs(_ caller: FirestoreCaller) throws(EmulatorError) {
        if caller == .owner || allowsEverything { return }
        throw .permissionDenied(Self.listCollectionIDsDenied)
    }

    static let listCollectionIDsDenied =
        "Missing or insufficient permissions. Security rules never allow listing collection ids; call it as the owner (Bearer owner)."

    /// Throws unless every write of a batch is allowed.
    func checkBatch(_ accesses: [FirestoreAccess], before: Lookup, after: Lookup) throws(EmulatorError) {
        if allowsEverything || accesses.isEmpty { return }
        // Index the array: a `contains` closure would copy every access.
        var anyOwner = false
        for i in accesses.indices where accesses[i].caller == .owner {
            anyOwner = true
            break
        }
        if anyOwner, requestLog != nil {
            for access in accesses where access.caller == .owner { noteOwner(access.method.rawValue, access.database, access.path) }
        }
        let checked = anyOwner ? accesses.filter { $0.caller != .owner } : accesses
        if checked.isEmpty { return }
        if let error = decide(checked, before, after) { throw error }
    }
}
