import EmulatorModel
import EmulatorProtobuf

/// What a snapshot listener watches, as a `google.firestore.v1.Target`.
enum ListenTargetSpec: Sendable {
    case document(DocumentReference)
    case query(Query)

    /// `ListenRequest { database, add_target { query | documents, resume_token, target_id } }`:
    /// with a resume token the server knows what the client saw and sends what changed since
    /// (or RESET and the current result, which the listener compares with what it delivered).
    func addRequest(targetID: Int32, resumeToken: [UInt8]? = nil) -> [UInt8] {
        var w = ProtoWriter()
        switch self {
        case .document(let ref):
            w.string(1, ref.firestore.databaseName)
            w.message(2) { t in
                t.message(3) { $0.string(2, ref.name) }
                if let resumeToken { t.bytes(4, resumeToken) }
                t.int32(5, targetID)
            }
        case .query(let query):
            w.string(1, query.firestore.databaseName)
            w.message(2) { t in
                t.message(2) { q in
                    q.string(1, query.parentName)
                    q.message(2) { query.writeStructuredQuery(to: &$0) }
                }
                if let resumeToken { t.bytes(4, resumeToken) }
                t.int32(5, targetID)
            }
        }
        return w.bytes
    }
}

extension Query {
    /// The parent resource name of the query (`…/documents` or `…/documents/<doc>`).
    var parentName: String {
        description.parentPath.isEmpty ? firestore.documentsName : firestore.documentsName + "/" + description.parentPath
    }

    /// The `StructuredQuery` message, as ``structuredQuery`` spells it in JSON (a `limitToLast`
    /// query reversed, see ``wireShape``).
    func writeStructuredQuery(to w: inout ProtoWriter) {
        let d = description
        w.message(2) { from in
            from.string(2, d.collectionID)
            if d.allDescendants { from.bool(3, true) }
        }
        if !d.filters.isEmpty {
            let node = d.filters.count == 1 ? d.filters[0] : .composite("AND", d.filters)
            w.message(3) { node.writeProto(to: &$0, documentsName: firestore.documentsName, collectionPath: collectionPath) }
        }
        let (orders, start, end) = wireShape
        for order in orders {
            w.message(4) { o in
                o.message(1) { $0.string(2, order.path.canonicalString) }
                o.int32(2, order.descending ? 2 : 1)
            }
        }
        func cursor(_ field: Int, _ c: (values: [Value], before: Bool)) {
            w.message(field) { m in
                for v in c.values { m.message(1) { ProtoValue.write(v, to: &$0) } }
                if c.before { m.bool(2, true) }
            }
        }
        if let start { cursor(7, start) }
        if let end { cursor(8, end) }
        if let limit = d.limit { w.message(5) { $0.int32(1, Int32(clamping: limit)) } }
    }
}

extension Filter.Node {
    static let fieldOperators: [String: Int32] = [
        "LESS_THAN": 1, "LESS_THAN_OR_EQUAL": 2, "GREATER_THAN": 3, "GREATER_THAN_OR_EQUAL": 4, "EQUAL": 5,
        "NOT_EQUAL": 6, "ARRAY_CONTAINS": 7, "IN": 8, "ARRAY_CONTAINS_ANY": 9, "NOT_IN": 10,
    ]
    static let unaryOperators: [String: Int32] = ["IS_NAN": 2, "IS_NULL": 3, "IS_NOT_NAN": 4, "IS_NOT_NULL": 5]

    /// The `StructuredQuery.Filter` message.
    func writeProto(to w: inout ProtoWriter, documentsName: String, collectionPath: String) {
        switch self {
        case .field(let path, let op, let value):
            let v = path.isDocumentID ? Filter.Node.reference(value, documentsName: documentsName, collectionPath: collectionPath) : value
            w.message(2) { f in
                f.message(1) { $0.string(2, path.canonicalString) }
                f.int32(2, Filter.Node.fieldOperators[op] ?? 0)
                f.message(3) { ProtoValue.write(v, to: &$0) }
            }
        case .unary(let path, let op):
            w.message(3) { u in
                u.int32(1, Filter.Node.unaryOperators[op] ?? 0)
                u.message(2) { $0.string(2, path.canonicalString) }
            }
        case .composite(let op, let nodes):
            w.message(1) { c in
                c.int32(1, op == "OR" ? 2 : 1)
                for node in nodes { c.message(2) { node.writeProto(to: &$0, documentsName: documentsName, collectionPath: collectionPath) } }
            }
        }
    }
}
