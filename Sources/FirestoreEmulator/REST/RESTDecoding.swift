import EmulatorModel
import EmulatorSupport

/// Decodes the proto3 JSON of Firestore requests into the service's types.
enum RESTDecoding {
    static func fieldPath(_ json: JSONValue?, context: String) throws(EmulatorError) -> FieldPath {
        let o = try JSONObject(json, context: context)
        guard let s = try o.string("fieldPath") else {
            throw .invalidArgument("Invalid JSON payload received. Missing fieldPath at '\(context)'.")
        }
        return try FieldPath(parsing: s)
    }

    static func mask(_ json: JSONValue?, context: String) throws(EmulatorError) -> [FieldPath]? {
        guard json != nil else { return nil }
        let o = try JSONObject(json, context: context)
        var out: [FieldPath] = []
        for v in try o.array("fieldPaths") {
            guard case .string(let s) = v else { throw o.bad("fieldPaths", "expected strings") }
            out.append(try FieldPath(parsing: s))
        }
        return out
    }

    static func document(_ json: JSONValue?, context: String) throws(EmulatorError) -> (name: String?, fields: ValueMap) {
        let o = try JSONObject(json, context: context)
        let fields = try o["fields"].map { v throws(EmulatorError) in try ValueMap(firestoreFields: v) } ?? ValueMap()
        return (try o.string("name"), fields)
    }

    static func value(_ json: JSONValue?, context: String) throws(EmulatorError) -> Value {
        guard let json else { throw .invalidArgument("Invalid JSON payload received. Missing value at '\(context)'.") }
        return try Value(firestoreJSON: json)
    }

    // MARK: Queries

    static func structuredQuery(_ json: JSONValue?) throws(EmulatorError) -> StructuredQuery {
        let o = try JSONObject(json, context: "structuredQuery")
        var q = StructuredQuery(from: [])
        for f in try o.array("from") {
            let s = try JSONObject(f, context: "structuredQuery.from")
            q.from.append(.init(collectionID: try s.string("collectionId") ?? "", allDescendants: try s.bool("allDescendants") ?? false))
        }
        if let select = try o.object("select") {
            let fields = try select.array("fields")
            if !fields.isEmpty {
                q.select = []
                for f in fields { q.select?.append(try fieldPath(f, context: "structuredQuery.select.fields")) }
            }
        }
        if let w = o["where"] { q.filter = try filter(w, context: "structuredQuery.where") }
        for ord in try o.array("orderBy") {
            let oo = try JSONObject(ord, context: "structuredQuery.orderBy")
            let field = try fieldPath(oo["field"], context: "structuredQuery.orderBy.field")
            q.orderBy.append(.init(field, try direction(oo["direction"])))
        }
        if let c = try o.object("startAt") { q.startAt = try cursor(c) }
        if let c = try o.object("endAt") { q.endAt = try cursor(c) }
        if let offset = try o.int("offset") {
            guard offset >= 0, offset <= Int64(Int32.max) else { throw .invalidArgument("offset must be non-negative.") }
            q.offset = Int(offset)
        }
        if let limit = o["limit"] {
            guard let n = try JSONObject.integer(limit), n <= Int64(Int32.max) else { throw o.bad("limit", "expected an integer") }
            if n < 0 { throw .invalidArgument("limit is negative.") }
            q.limit = Int(n)
        }
        if o.has("findNearest") { throw .unimplemented("Vector search (findNearest) is not supported by the emulator.") }
        return q
    }

    static func direction(_ json: JSONValue?) throws(EmulatorError) -> StructuredQuery.Direction {
        switch json {
        case nil, .string("ASCENDING")?, .string("DIRECTION_UNSPECIFIED")?, .int(1)?, .int(0)?: return .ascending
        case .string("DESCENDING")?, .int(2)?: return .descending
        default: throw .invalidArgument("Invalid JSON payload received. Invalid value at 'orderBy.direction'.")
        }
    }

    static func cursor(_ o: JSONObject) throws(EmulatorError) -> StructuredQuery.Cursor {
        var values: [Value] = []
        for v in try o.array("values") { values.append(try Value(firestoreJSON: v)) }
        return .init(values: values, before: try o.bool("before") ?? false)
    }

    static func filter(_ json: JSONValue, context: String) throws(EmulatorError) -> QueryFilter {
        let o = try JSONObject(json, context: context)
        if let c = try o.object("compositeFilter") {
            let op: QueryFilter.CompositeOperator
            switch c["op"] {
            case .string("AND")?, .int(1)?: op = .and
            case .string("OR")?, .int(2)?: op = .or
            default: throw .invalidArgument("Invalid composite filter operator at '\(context)'.")
            }
            var filters: [QueryFilter] = []
            for f in try c.array("filters") { filters.append(try filter(f, context: context + ".compositeFilter.filters")) }
            if filters.isEmpty { throw .invalidArgument("A composite filter must contain at least one filter.") }
            return .composite(op, filters)
        }
        if let f = try o.object("fieldFilter") {
            let path = try fieldPath(f["field"], context: context + ".fieldFilter.field")
            // Enums arrive as names, or as numbers from clients that ask for `enum-encoding=int`.
            let op: QueryFilter.FieldOperator
            switch f["op"] {
            case .string(let name)? where QueryFilter.FieldOperator(rawValue: name) != nil:
                op = QueryFilter.FieldOperator(rawValue: name) ?? .equal
            case .int(let n)? where QueryFilter.FieldOperator(protoNumber: Int(n)) != nil:
                op = QueryFilter.FieldOperator(protoNumber: Int(n)) ?? .equal
            default:
                throw .invalidArgument("Invalid field filter operator at '\(context)': \(f["op"].map { "\($0)" } ?? "unspecified").")
            }
            return .field(path, op, try value(f["value"], context: context + ".fieldFilter.value"))
        }
        if let u = try o.object("unaryFilter") {
            let path = try fieldPath(u["field"], context: context + ".unaryFilter.field")
            let op: QueryFilter.UnaryOperator
            switch u["op"] {
            case .string(let name)? where QueryFilter.UnaryOperator(rawValue: name) != nil:
                op = QueryFilter.UnaryOperator(rawValue: name) ?? .isNull
            case .int(let n)? where QueryFilter.UnaryOperator(protoNumber: Int(n)) != nil:
                op = QueryFilter.UnaryOperator(protoNumber: Int(n)) ?? .isNull
            default:
                throw .invalidArgument("Invalid unary filter operator at '\(context)'.")
            }
            return .unary(path, op)
        }
        throw .invalidArgument("Invalid JSON payload received. A filter must set compositeFilter, fieldFilter or unaryFilter at '\(context)'.")
    }

    static func aggregationQuery(_ json: JSONValue?) throws(EmulatorError) -> AggregationQuery {
        let o = try JSONObject(json, context: "structuredAggregationQuery")
        let query = try structuredQuery(o["structuredQuery"])
        var aggregations: [AggregationQuery.Aggregation] = []
        for a in try o.array("aggregations") {
            let ao = try JSONObject(a, context: "structuredAggregationQuery.aggregations")
            let alias = try ao.string("alias")
            if let c = try ao.object("count") {
                aggregations.append(.init(.count(upTo: try c.int("upTo")), alias: alias))
            } else if let s = try ao.object("sum") {
                aggregations.append(.init(.sum(try fieldPath(s["field"], context: "sum.field")), alias: alias))
            } else if let s = try ao.object("avg") {
                aggregations.append(.init(.average(try fieldPath(s["field"], context: "avg.field")), alias: alias))
            } else {
                throw .invalidArgument("Invalid aggregation: one of count, sum or avg must be set.")
            }
        }
        return AggregationQuery(query: query, aggregations: aggregations)
    }

    // MARK: Consistency and transactions

    static func transactionOptions(_ o: JSONObject?) throws(EmulatorError) -> TransactionOptions {
        guard let o else { return .readWrite(retrying: nil) }
        if let ro = try o.object("readOnly") { return .readOnly(readTime: try ro.timestamp("readTime")) }
        if let rw = try o.object("readWrite") { return .readWrite(retrying: try rw.bytes("retryTransaction")) }
        return .readWrite(retrying: nil)
    }

    static func consistency(_ o: JSONObject) throws(EmulatorError) -> ReadConsistency {
        var selected: [ReadConsistency] = []
        if let t = try o.bytes("transaction") { selected.append(.transaction(t)) }
        if let n = try o.object("newTransaction") { selected.append(.newTransaction(try transactionOptions(n))) }
        if let t = try o.timestamp("readTime") { selected.append(.readTime(t)) }
        if selected.count > 1 {
            throw .invalidArgument("Only one of transaction, new_transaction or read_time may be set.")
        }
        return selected.first ?? .latest
    }

    // MARK: Writes

    /// A document name; names inside `database` (the common case) skip re-parsing the prefix.
    static func documentName(_ name: String, in database: DatabaseID?) throws(EmulatorError) -> DocumentName {
        guard let database, name.utf8.count <= DocumentName.maxNameBytes else { return try DocumentName.document(name) }
        let root = database.rootName.utf8
        let bytes = name.utf8
        guard bytes.count > root.count + 1, bytes.starts(with: root),
            bytes[bytes.index(bytes.startIndex, offsetBy: root.count)] == 0x2F
        else { return try DocumentName.document(name) }
        var segments: [String] = []
        for part in bytes.dropFirst(root.count + 1).split(separator: 0x2F, omittingEmptySubsequences: false) {
            let segment = String(decoding: part, as: UTF8.self)
            do { try ResourcePath.validateSegment(segment) } catch { return try DocumentName.document(name) }
            segments.append(segment)
        }
        let path = ResourcePath(segments: segments)
        guard path.isDocument else { return try DocumentName.document(name) }
        return DocumentName(projectID: database.project, databaseID: database.database, path: path)
    }

    static func write(_ json: JSONValue, context: String, database: DatabaseID? = nil) throws(EmulatorError) -> Write {
        let o = try JSONObject(json, context: context)
        var transforms: [FieldTransform] = []
        for t in try o.array("updateTransforms") { transforms.append(try fieldTransform(t)) }
        let operation: Write.Operation
        var set = 0
        if o.has("update") { set += 1 }
        if o.has("delete") { set += 1 }
        if o.has("transform") { set += 1 }
        if o.has("verify") { set += 1 }
        guard set == 1 else { throw .invalidArgument("A write must set exactly one of update, delete, transform or verify.") }
        if o.has("update") {
            let (name, fields) = try document(o["update"], context: context + ".update")
            guard let name else { throw .invalidArgument("A document to update must have a name.") }
            operation = .update(
                try documentName(name, in: database), fields: fields, mask: try mask(o["updateMask"], context: context + ".updateMask"))
        } else if let name = try o.string("delete") {
            operation = .delete(try documentName(name, in: database))
        } else if let name = try o.string("verify") {
            operation = .verify(try documentName(name, in: database))
        } else {
            let t = try JSONObject(o["transform"], context: context + ".transform")
            guard let name = try t.string("document") else { throw .invalidArgument("A transform must name its document.") }
            for f in try t.array("fieldTransforms") { transforms.append(try fieldTransform(f)) }
            operation = .transform(try documentName(name, in: database))
        }
        return Write(operation, transforms: transforms, precondition: try precondition(o.object("currentDocument")))
    }

    static func precondition(_ o: JSONObject?) throws(EmulatorError) -> WritePrecondition {
        guard let o else { return .none }
        if let e = try o.bool("exists") { return .exists(e) }
        if let t = try o.timestamp("updateTime") { return .updateTime(t) }
        return .none
    }

    static func fieldTransform(_ json: JSONValue) throws(EmulatorError) -> FieldTransform {
        let o = try JSONObject(json, context: "fieldTransforms")
        guard let p = try o.string("fieldPath") else { throw .invalidArgument("A field transform must have a fieldPath.") }
        let path = try FieldPath(parsing: p)
        if let s = o["setToServerValue"] {
            switch s {
            case .string("REQUEST_TIME"), .int(1): break
            default: throw .invalidArgument("Unknown server value \(s).")
            }
            return .init(path, .serverTimestamp)
        }
        if let v = o["increment"] { return .init(path, .increment(try Value(firestoreJSON: v))) }
        if let v = o["maximum"] { return .init(path, .maximum(try Value(firestoreJSON: v))) }
        if let v = o["minimum"] { return .init(path, .minimum(try Value(firestoreJSON: v))) }
        if let a = try o.object("appendMissingElements") { return .init(path, .appendMissingElements(try values(a))) }
        if let a = try o.object("removeAllFromArray") { return .init(path, .removeAllFromArray(try values(a))) }
        throw .invalidArgument("A field transform must set one transform type.")
    }

    private static func values(_ o: JSONObject) throws(EmulatorError) -> [Value] {
        var out: [Value] = []
        for v in try o.array("values") { out.append(try Value(firestoreJSON: v)) }
        return out
    }
}
