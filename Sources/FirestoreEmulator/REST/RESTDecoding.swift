import EmulatorModel
import EmulatorSupport

/// Decodes the proto3 JSON of Firestore requests into the service's types. Every object is
/// checked against its ``RESTMessage`` (unknown members are INVALID_ARGUMENT), and errors name
/// the member with production's proto path (`writes[0].update.fields[1].value`).
enum RESTDecoding {
    static func fieldPath(_ o: JSONObject?, in parent: JSONObject, _ camel: String) throws(EmulatorError) -> FieldPath {
        guard let o, let s = try o.string("fieldPath") else {
            throw .invalidArgument("Invalid JSON payload received. Missing field_path at '\(parent.path(camel))'.")
        }
        return try FieldPath(parsing: s)
    }

    /// A `FieldReference` member of `o`.
    static func fieldReference(_ o: JSONObject, _ camel: String) throws(EmulatorError) -> FieldPath {
        try fieldPath(o.object(camel, .fieldReference), in: o, camel)
    }

    static func mask(_ o: JSONObject?) throws(EmulatorError) -> [FieldPath]? {
        guard let o else { return nil }
        var out: [FieldPath] = []
        for v in try o.array("fieldPaths") {
            guard case .string(let s) = v else { throw o.bad("fieldPaths", "TYPE_STRING") }
            out.append(try FieldPath(parsing: s))
        }
        return out
    }

    static func document(_ o: JSONObject) throws(EmulatorError) -> (name: String?, fields: ValueMap) {
        let fields = try o["fields"].map { v throws(EmulatorError) in try ValueMap(firestoreFields: v, context: o.path("fields")) } ?? ValueMap()
        return (try o.string("name"), fields)
    }

    static func value(_ o: JSONObject, _ camel: String) throws(EmulatorError) -> Value {
        guard let json = o[camel] else {
            throw .invalidArgument("Invalid JSON payload received. Missing value at '\(o.path(camel))'.")
        }
        return try Value(firestoreJSON: json, context: o.path(camel))
    }

    // MARK: Queries

    static func structuredQuery(_ o: JSONObject?) throws(EmulatorError) -> StructuredQuery {
        var q = StructuredQuery(from: [])
        guard let o else { return q }
        for s in try o.objects("from", .collectionSelector) {
            q.from.append(.init(collectionID: try s.string("collectionId") ?? "", allDescendants: try s.bool("allDescendants") ?? false))
        }
        if let select = try o.object("select", .projection) {
            let fields = try select.objects("fields", .fieldReference)
            if !fields.isEmpty {
                q.select = []
                for (i, f) in fields.enumerated() {
                    guard let s = try f.string("fieldPath") else {
                        throw .invalidArgument("Invalid JSON payload received. Missing field_path at '\(select.path("fields"))[\(i)]'.")
                    }
                    q.select?.append(try FieldPath(parsing: s))
                }
            }
        }
        if let w = try o.object("where", .filter) { q.filter = try filter(w) }
        for ord in try o.objects("orderBy", .order) {
            q.orderBy.append(.init(try fieldReference(ord, "field"), try direction(ord)))
        }
        if let c = try o.object("startAt", .cursor) { q.startAt = try cursor(c) }
        if let c = try o.object("endAt", .cursor) { q.endAt = try cursor(c) }
        if let offset = try o.int("offset") {
            guard offset >= 0, offset <= Int64(Int32.max) else { throw .invalidArgument("offset must be non-negative.") }
            q.offset = Int(offset)
        }
        if let limit = o["limit"] {
            guard let n = try JSONObject.integer(limit, context: o.path("limit")), n <= Int64(Int32.max) else {
                throw o.bad("limit", "TYPE_INT32")
            }
            if n < 0 { throw .invalidArgument("limit is negative.") }
            q.limit = Int(n)
        }
        if o.has("findNearest") { throw .unimplemented("Vector search (findNearest) is not supported by the emulator.") }
        return q
    }

    static func direction(_ o: JSONObject) throws(EmulatorError) -> StructuredQuery.Direction {
        switch o["direction"] {
        case nil, .string("ASCENDING")?, .string("DIRECTION_UNSPECIFIED")?, .int(1)?, .int(0)?: return .ascending
        case .string("DESCENDING")?, .int(2)?: return .descending
        default: throw o.bad("direction", "TYPE_ENUM")
        }
    }

    static func cursor(_ o: JSONObject) throws(EmulatorError) -> StructuredQuery.Cursor {
        var values: [Value] = []
        let base = o.path("values")
        for (i, v) in try o.array("values").enumerated() { values.append(try Value(firestoreJSON: v, context: "\(base)[\(i)]")) }
        return .init(values: values, before: try o.bool("before") ?? false)
    }

    static func filter(_ o: JSONObject) throws(EmulatorError) -> QueryFilter {
        if let c = try o.object("compositeFilter", .compositeFilter) {
            let op: QueryFilter.CompositeOperator
            switch c["op"] {
            case .string("AND")?, .int(1)?: op = .and
            case .string("OR")?, .int(2)?: op = .or
            default: throw .invalidArgument("Invalid composite filter operator at '\(c.path("op"))'.")
            }
            var filters: [QueryFilter] = []
            for f in try c.objects("filters", .filter) { filters.append(try filter(f)) }
            if filters.isEmpty { throw .invalidArgument("A composite filter must contain at least one filter.") }
            return .composite(op, filters)
        }
        if let f = try o.object("fieldFilter", .fieldFilter) {
            let path = try fieldReference(f, "field")
            // Enums arrive as names, or as numbers from clients that ask for `enum-encoding=int`.
            let op: QueryFilter.FieldOperator
            switch f["op"] {
            case .string(let name)? where QueryFilter.FieldOperator(rawValue: name) != nil:
                op = QueryFilter.FieldOperator(rawValue: name) ?? .equal
            case .int(let n)? where QueryFilter.FieldOperator(protoNumber: Int(n)) != nil:
                op = QueryFilter.FieldOperator(protoNumber: Int(n)) ?? .equal
            default:
                throw .invalidArgument("Invalid field filter operator at '\(f.context)': \(f["op"].map { "\($0)" } ?? "unspecified").")
            }
            return .field(path, op, try value(f, "value"))
        }
        if let u = try o.object("unaryFilter", .unaryFilter) {
            let path = try fieldReference(u, "field")
            let op: QueryFilter.UnaryOperator
            switch u["op"] {
            case .string(let name)? where QueryFilter.UnaryOperator(rawValue: name) != nil:
                op = QueryFilter.UnaryOperator(rawValue: name) ?? .isNull
            case .int(let n)? where QueryFilter.UnaryOperator(protoNumber: Int(n)) != nil:
                op = QueryFilter.UnaryOperator(protoNumber: Int(n)) ?? .isNull
            default:
                throw .invalidArgument("Invalid unary filter operator at '\(u.context)'.")
            }
            return .unary(path, op)
        }
        throw .invalidArgument(
            "Invalid JSON payload received. A filter must set compositeFilter, fieldFilter or unaryFilter at '\(o.context)'.")
    }

    static func aggregationQuery(_ o: JSONObject?) throws(EmulatorError) -> AggregationQuery {
        guard let o else { return AggregationQuery(query: StructuredQuery(from: []), aggregations: []) }
        let query = try structuredQuery(o.object("structuredQuery", .structuredQuery))
        var aggregations: [AggregationQuery.Aggregation] = []
        for ao in try o.objects("aggregations", .aggregation) {
            let alias = try ao.string("alias")
            if let c = try ao.object("count", .count) {
                aggregations.append(.init(.count(upTo: try c.int("upTo", type: "TYPE_INT64")), alias: alias))
            } else if let s = try ao.object("sum", .sumOrAverage) {
                aggregations.append(.init(.sum(try fieldReference(s, "field")), alias: alias))
            } else if let s = try ao.object("avg", .sumOrAverage) {
                aggregations.append(.init(.average(try fieldReference(s, "field")), alias: alias))
            } else {
                throw .invalidArgument("Invalid aggregation: one of count, sum or avg must be set.")
            }
        }
        return AggregationQuery(query: query, aggregations: aggregations)
    }

    // MARK: Consistency and transactions

    static func transactionOptions(_ o: JSONObject?) throws(EmulatorError) -> TransactionOptions {
        guard let o else { return .readWrite(retrying: nil) }
        if let ro = try o.object("readOnly", .readOnly) { return .readOnly(readTime: try ro.timestamp("readTime")) }
        if let rw = try o.object("readWrite", .readWrite) {
            return .readWrite(retrying: try rw.bytes("retryTransaction"), concurrency: try concurrencyMode(rw))
        }
        return .readWrite(retrying: nil)
    }

    /// `TransactionOptions.ReadWrite.concurrencyMode`: by name or number.
    static func concurrencyMode(_ o: JSONObject) throws(EmulatorError) -> ConcurrencyMode {
        switch o["concurrencyMode"] {
        case nil, .null?, .string("CONCURRENCY_MODE_UNSPECIFIED")?, .int(0)?: return .unspecified
        case .string("OPTIMISTIC")?, .int(1)?: return .optimistic
        case .string("PESSIMISTIC")?, .int(2)?: return .pessimistic
        default: throw o.bad("concurrencyMode", "TYPE_ENUM")
        }
    }

    static func consistency(_ o: JSONObject) throws(EmulatorError) -> ReadConsistency {
        var selected: [ReadConsistency] = []
        if let t = try o.bytes("transaction") { selected.append(.transaction(t)) }
        if let n = try o.object("newTransaction", .transactionOptions) { selected.append(.newTransaction(try transactionOptions(n))) }
        if let t = try o.timestamp("readTime") { selected.append(.readTime(t)) }
        if selected.count > 1 {
            throw .invalidArgument("Only one of transaction, new_transaction or read_time may be set.")
        }
        return selected.first ?? .latest
    }

    // MARK: Writes

    /// Parses the document names of one request; names inside `database` (the common case) skip
    /// re-parsing the prefix, and the prefix bytes are built once per request.
    struct NameParser {
        let database: DatabaseID
        let root: [UInt8]

        init(_ database: DatabaseID) {
            self.database = database
            root = Array(database.rootName.utf8)
        }

        func document(_ name: String) throws(EmulatorError) -> DocumentName {
            guard name.utf8.count <= DocumentName.maxNameBytes else { return try DocumentName.document(name) }
            let fast: DocumentName?? = name.utf8.withContiguousStorageIfAvailable { bytes in
                root.withUnsafeBufferPointer { root in RESTDecoding.fastDocumentName(bytes, root: root, database: database) }
            }
            if let fast = fast ?? nil { return fast }
            return try DocumentName.document(name)
        }
    }

    /// `root/c/d/…` split into ids without copies beyond the ids themselves; nil when anything is
    /// unusual (the full parser then gives the precise error).
    static func fastDocumentName(
        _ bytes: UnsafeBufferPointer<UInt8>, root: UnsafeBufferPointer<UInt8>, database: DatabaseID
    ) -> DocumentName? {
        let r = root.count
        guard bytes.count > r + 1, bytes[r] == 0x2F, UTF8Order.compare(UnsafeBufferPointer(rebasing: bytes[0..<r]), root) == 0
        else { return nil }
        var segments: [String] = []
        segments.reserveCapacity(4)
        var start = r + 1
        var i = start
        while i <= bytes.count {
            if i == bytes.count || bytes[i] == 0x2F {
                let n = i - start
                // Empty, `.`/`..`, `__…__` or over-long ids go through the full validation.
                if n == 0 || n > ResourcePath.maxSegmentBytes { return nil }
                if bytes[start] == 0x2E && (n == 1 || (n == 2 && bytes[start + 1] == 0x2E)) { return nil }
                if n >= 4 && bytes[start] == 0x5F && bytes[start + 1] == 0x5F && bytes[i - 1] == 0x5F && bytes[i - 2] == 0x5F {
                    return nil
                }
                guard let segment = FastWriteDecoder.text(UnsafeBufferPointer(rebasing: bytes[start..<i])) else { return nil }
                segments.append(segment)
                start = i + 1
            }
            i += 1
        }
        let path = ResourcePath(segments: segments)
        guard path.isDocument else { return nil }
        return DocumentName(projectID: database.project, databaseID: database.database, path: path)
    }

    static func write(_ o: JSONObject, names: NameParser? = nil) throws(EmulatorError) -> Write {
        func documentName(_ name: String) throws(EmulatorError) -> DocumentName {
            if let names { return try names.document(name) }
            return try DocumentName.document(name)
        }
        var transforms: [FieldTransform] = []
        for t in try o.objects("updateTransforms", .fieldTransform) { transforms.append(try fieldTransform(t)) }
        let operation: Write.Operation
        var set = 0
        if o.has("update") { set += 1 }
        if o.has("delete") { set += 1 }
        if o.has("transform") { set += 1 }
        if o.has("verify") { set += 1 }
        guard set == 1 else { throw .invalidArgument("A write must set exactly one of update, delete, transform or verify.") }
        if let u = try o.object("update", .document) {
            let (name, fields) = try document(u)
            guard let name else { throw .invalidArgument("A document to update must have a name.") }
            operation = .update(try documentName(name), fields: fields, mask: try mask(o.object("updateMask", .documentMask)))
        } else if let name = try o.string("delete") {
            operation = .delete(try documentName(name))
        } else if let name = try o.string("verify") {
            operation = .verify(try documentName(name))
        } else {
            guard let t = try o.object("transform", .documentTransform), let name = try t.string("document") else {
                throw .invalidArgument("A transform must name its document.")
            }
            for f in try t.objects("fieldTransforms", .fieldTransform) { transforms.append(try fieldTransform(f)) }
            operation = .transform(try documentName(name))
        }
        return Write(operation, transforms: transforms, precondition: try precondition(o.object("currentDocument", .precondition)))
    }

    static func precondition(_ o: JSONObject?) throws(EmulatorError) -> WritePrecondition {
        guard let o else { return .none }
        if let e = try o.bool("exists") { return .exists(e) }
        if let t = try o.timestamp("updateTime") { return .updateTime(t) }
        return .none
    }

    static func fieldTransform(_ o: JSONObject) throws(EmulatorError) -> FieldTransform {
        guard let p = try o.string("fieldPath") else { throw .invalidArgument("A field transform must have a fieldPath.") }
        let path = try FieldPath(parsing: p)
        if let s = o["setToServerValue"] {
            switch s {
            case .string("REQUEST_TIME"), .int(1): break
            default: throw o.bad("setToServerValue", "TYPE_ENUM")
            }
            return .init(path, .serverTimestamp)
        }
        if o.has("increment") { return .init(path, .increment(try value(o, "increment"))) }
        if o.has("maximum") { return .init(path, .maximum(try value(o, "maximum"))) }
        if o.has("minimum") { return .init(path, .minimum(try value(o, "minimum"))) }
        if let a = try o.object("appendMissingElements", .arrayValue) { return .init(path, .appendMissingElements(try values(a))) }
        if let a = try o.object("removeAllFromArray", .arrayValue) { return .init(path, .removeAllFromArray(try values(a))) }
        throw .invalidArgument("A field transform must set one transform type.")
    }

    private static func values(_ o: JSONObject) throws(EmulatorError) -> [Value] {
        var out: [Value] = []
        let base = o.path("values")
        for (i, v) in try o.array("values").enumerated() { out.append(try Value(firestoreJSON: v, context: "\(base)[\(i)]")) }
        return out
    }
}
