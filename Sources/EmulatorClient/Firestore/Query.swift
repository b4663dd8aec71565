import EmulatorModel
import EmulatorSupport

/// What a query asks for (value type; `Query` methods return changed copies).
struct QueryDescription: Sendable {
    var parentPath: String
    var collectionID: String
    var allDescendants = false
    var filters: [Filter.Node] = []
    var orders: [(path: ModelFieldPath, descending: Bool)] = []
    var limit: Int?
    var limitToLast = false
    var startAt: (values: [Value], before: Bool)?
    var endAt: (values: [Value], before: Bool)?
}

/// A query over one collection (or a collection group). Build with the chaining methods, run
/// with ``getDocuments()`` or listen with ``addSnapshotListener(_:)``.
///
/// ```swift
/// let snapshot = try await db.collection("books")
///     .whereField("numberOfPages", isGreaterThan: 500)
///     .order(by: "numberOfPages", descending: true)
///     .limit(to: 10)
///     .getDocuments()
/// ```
public class Query: @unchecked Sendable {
    // Safe: both stored properties are immutable and Sendable; subclasses add only `let`s.
    public let firestore: Firestore
    let description: QueryDescription

    init(firestore: Firestore, description: QueryDescription) {
        self.firestore = firestore
        self.description = description
    }

    private func with(_ change: (inout QueryDescription) -> Void) -> Query {
        var d = description
        change(&d)
        return Query(firestore: firestore, description: d)
    }

    public func whereFilter(_ filter: Filter) -> Query { with { $0.filters.append(filter.node) } }
    public func whereField(_ field: String, isEqualTo value: Any) -> Query { whereFilter(.whereField(field, isEqualTo: value)) }
    public func whereField(_ field: String, isNotEqualTo value: Any) -> Query { whereFilter(.whereField(field, isNotEqualTo: value)) }
    public func whereField(_ field: String, isLessThan value: Any) -> Query { whereFilter(.whereField(field, isLessThan: value)) }
    public func whereField(_ field: String, isLessThanOrEqualTo value: Any) -> Query {
        whereFilter(.whereField(field, isLessThanOrEqualTo: value))
    }
    public func whereField(_ field: String, isGreaterThan value: Any) -> Query { whereFilter(.whereField(field, isGreaterThan: value)) }
    public func whereField(_ field: String, isGreaterThanOrEqualTo value: Any) -> Query {
        whereFilter(.whereField(field, isGreaterThanOrEqualTo: value))
    }
    public func whereField(_ field: String, arrayContains value: Any) -> Query { whereFilter(.whereField(field, arrayContains: value)) }
    public func whereField(_ field: String, arrayContainsAny values: [Any]) -> Query {
        whereFilter(.whereField(field, arrayContainsAny: values))
    }
    public func whereField(_ field: String, in values: [Any]) -> Query { whereFilter(.whereField(field, in: values)) }
    public func whereField(_ field: String, notIn values: [Any]) -> Query { whereFilter(.whereField(field, notIn: values)) }
    public func whereField(_ field: FieldPath, isEqualTo value: Any) -> Query { whereFilter(.whereField(field, isEqualTo: value)) }

    public func order(by field: String, descending: Bool = false) -> Query {
        with { $0.orders.append((FieldPath.dotted(field), descending)) }
    }
    public func order(by field: FieldPath, descending: Bool = false) -> Query { with { $0.orders.append((field.model, descending)) } }

    public func limit(to n: Int) -> Query {
        with {
            $0.limit = n
            $0.limitToLast = false
        }
    }
    /// The last `n` results in query order (needs at least one `order(by:)`).
    public func limit(toLast n: Int) -> Query {
        with {
            $0.limit = n
            $0.limitToLast = true
        }
    }

    private func cursor(_ values: [Any]) -> [Value] { values.map { (try? FieldData(any: $0).plainValue()) ?? .null } }
    public func start(at values: [Any]) -> Query { let v = cursor(values); return with { $0.startAt = (v, true) } }
    public func start(after values: [Any]) -> Query { let v = cursor(values); return with { $0.startAt = (v, false) } }
    public func end(at values: [Any]) -> Query { let v = cursor(values); return with { $0.endAt = (v, false) } }
    public func end(before values: [Any]) -> Query { let v = cursor(values); return with { $0.endAt = (v, true) } }
    public func start(atDocument document: DocumentSnapshot) -> Query { let v = cursor(document); return with { $0.startAt = (v, true) } }
    public func start(afterDocument document: DocumentSnapshot) -> Query {
        let v = cursor(document)
        return with { $0.startAt = (v, false) }
    }
    public func end(atDocument document: DocumentSnapshot) -> Query { let v = cursor(document); return with { $0.endAt = (v, false) } }
    public func end(beforeDocument document: DocumentSnapshot) -> Query { let v = cursor(document); return with { $0.endAt = (v, true) } }

    /// A document cursor: its values for every order-by field, then its name.
    private func cursor(_ document: DocumentSnapshot) -> [Value] {
        var values: [Value] = []
        for order in effectiveOrders where !order.path.isDocumentID {
            values.append(document.modelValue(at: order.path) ?? .null)
        }
        values.append(.reference(document.reference.name))
        return values
    }

    /// Explicit orders, then the first inequality field (if not ordered), then `__name__`.
    var effectiveOrders: [(path: ModelFieldPath, descending: Bool)] {
        var orders = description.orders
        if orders.isEmpty, let field = firstInequality(description.filters) { orders.append((field, false)) }
        if !orders.contains(where: { $0.path.isDocumentID }) { orders.append((ModelFieldPath.documentID, orders.last?.descending ?? false)) }
        return orders
    }

    private func firstInequality(_ nodes: [Filter.Node]) -> ModelFieldPath? {
        for n in nodes {
            switch n {
            case .field(let p, let op, _)
            where ["LESS_THAN", "LESS_THAN_OR_EQUAL", "GREATER_THAN", "GREATER_THAN_OR_EQUAL", "NOT_EQUAL", "NOT_IN"].contains(op):
                return p
            case .unary(let p, let op) where op.hasPrefix("IS_NOT"): return p
            case .composite(_, let inner): if let p = firstInequality(inner) { return p }
            default: continue
            }
        }
        return nil
    }

    var collectionPath: String {
        description.parentPath.isEmpty ? description.collectionID : description.parentPath + "/" + description.collectionID
    }

    /// The orders and cursors sent to the server. Cursors and `limitToLast` need the implicit
    /// orders (inequality field, `__name__`) spelled out; a `limitToLast` query goes as its
    /// reverse (orders flipped, cursors swapped), the SDKs' way, and is put back in order locally.
    var wireShape: (orders: [(path: ModelFieldPath, descending: Bool)], start: (values: [Value], before: Bool)?, end: (values: [Value], before: Bool)?) {
        let d = description
        let orders = d.limitToLast || d.startAt != nil || d.endAt != nil ? effectiveOrders : d.orders
        guard d.limitToLast else { return (orders, d.startAt, d.endAt) }
        return (
            orders.map { ($0.path, !$0.descending) }, d.endAt.map { ($0.values, !$0.before) },
            d.startAt.map { ($0.values, !$0.before) }
        )
    }

    /// The `structuredQuery` JSON (with `limitToLast` turned into a reversed query).
    var structuredQuery: JSONValue {
        let d = description
        var members = [
            JSONMember(
                "from",
                .array([
                    .object([JSONMember("collectionId", .string(d.collectionID)), JSONMember("allDescendants", .bool(d.allDescendants))])
                ]))
        ]
        if !d.filters.isEmpty {
            let node = d.filters.count == 1 ? d.filters[0] : .composite("AND", d.filters)
            members.append(JSONMember("where", node.json(documentsName: firestore.documentsName, collectionPath: collectionPath)))
        }
        let (orders, start, end) = wireShape
        if !orders.isEmpty {
            members.append(
                JSONMember(
                    "orderBy",
                    .array(
                        orders.map {
                            .object([
                                JSONMember("field", .object([JSONMember("fieldPath", .string($0.path.canonicalString))])),
                                JSONMember("direction", .string($0.descending ? "DESCENDING" : "ASCENDING")),
                            ])
                        })))
        }
        func cursorJSON(_ c: (values: [Value], before: Bool)) -> JSONValue {
            .object([JSONMember("values", .array(c.values.map(\.firestoreJSON))), JSONMember("before", .bool(c.before))])
        }
        if let start { members.append(JSONMember("startAt", cursorJSON(start))) }
        if let end { members.append(JSONMember("endAt", cursorJSON(end))) }
        if let limit = d.limit { members.append(JSONMember("limit", .int(Int64(limit)))) }
        return .object(members)
    }

    var parentTarget: String {
        let parent = description.parentPath.isEmpty ? firestore.documentsName : firestore.documentsName + "/" + description.parentPath
        return "/v1/" + Firestore.urlPath(parent)
    }

    func run() throws(FirestoreError) -> [DocumentSnapshot] {
        let json = try firestore.call(
            "POST", parentTarget + ":runQuery", body: .object([JSONMember("structuredQuery", structuredQuery)]))
        guard case .array(let items) = json else { throw FirestoreError(.internal, "runQuery did not return an array") }
        var docs: [DocumentSnapshot] = []
        for item in items {
            guard let doc = item[member: "document"], case .string(let name)? = doc[member: "name"],
                let ref = DocumentReference(name: name, firestore: firestore)
            else { continue }
            docs.append(try DocumentSnapshot(json: doc, reference: ref))
        }
        if description.limitToLast { docs.reverse() }
        return docs
    }

    /// Runs the query on the server.
    public func getDocuments() async throws -> QuerySnapshot {
        let query = self
        return QuerySnapshot(query: self, documents: try await blocking { try query.runAfterWrites() }, previous: nil)
    }

    /// The number of matching documents, counted by the server.
    public var count: AggregateQuery { AggregateQuery(query: self, fields: [.count()]) }

    /// Counts, sums and averages over the matching documents, computed by the server.
    public func aggregate(_ fields: [AggregateField]) -> AggregateQuery { AggregateQuery(query: self, fields: fields) }
}

/// A collection: a query over its documents that can also add documents.
public final class CollectionReference: Query, @unchecked Sendable {
    // Safe: adds only an immutable String.
    /// The path of the collection below the database root.
    public let path: String

    init(firestore: Firestore, path: String) {
        self.path = path
        let parts = path.split(separator: "/")
        super.init(
            firestore: firestore,
            description: QueryDescription(
                parentPath: parts.dropLast().joined(separator: "/"), collectionID: parts.last.map(String.init) ?? ""))
    }

    public var collectionID: String { description.collectionID }
    public var parent: DocumentReference? {
        description.parentPath.isEmpty ? nil : DocumentReference(firestore: firestore, path: description.parentPath)
    }

    public func document(_ documentPath: String) -> DocumentReference {
        DocumentReference(firestore: firestore, path: path + "/" + Firestore.normalize(documentPath))
    }

    /// A new document with a random 20-character id.
    public func document() -> DocumentReference { document(CollectionReference.autoID()) }

    static func autoID() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var rng = SystemRandomNumberGenerator()
        return String((0..<20).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &rng)] })
    }
}
