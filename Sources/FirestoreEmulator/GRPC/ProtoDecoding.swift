import EmulatorModel
import EmulatorProtobuf

/// Decodes google.firestore.v1 protobuf requests into the service's types (the gRPC twin of
/// `RESTDecoding`). Field numbers: firestore.proto, query.proto, write.proto, common.proto.
enum ProtoDecoding {
    /// `projects/{p}/databases/{d}`.
    static func database(_ name: String) throws(EmulatorError) -> DatabaseID {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "projects", parts[2] == "databases", !parts[1].isEmpty, !parts[3].isEmpty else {
            throw .invalidArgument("Invalid database name: \"\(name)\"; must match projects/{project_id}/databases/{database_id}.")
        }
        return DatabaseID(project: String(parts[1]), database: String(parts[3]))
    }

    static func fieldReference(_ reader: ProtoReader) throws(EmulatorError) -> FieldPath {
        var r = reader
        var path: String?
        while let (f, w) = try r.next() {
            if f == 2 { try r.expect(w, .lengthDelimited, f); path = try r.string() } else { try r.skip(w) }
        }
        guard let path else { throw .invalidArgument("A field reference must have a field_path.") }
        return try FieldPath(parsing: path)
    }

    /// DocumentMask: present (possibly empty) → paths; the caller passes nil when absent.
    static func mask(_ reader: ProtoReader) throws(EmulatorError) -> [FieldPath] {
        var r = reader
        var out: [FieldPath] = []
        while let (f, w) = try r.next() {
            if f == 1 { try r.expect(w, .lengthDelimited, f); out.append(try FieldPath(parsing: r.string())) } else { try r.skip(w) }
        }
        return out
    }

    // MARK: Queries

    static func structuredQuery(_ reader: ProtoReader) throws(EmulatorError) -> StructuredQuery {
        var r = reader
        var q = StructuredQuery(from: [])
        while let (f, w) = try r.next() {
            if w != .lengthDelimited && f != 6 { try r.skip(w); continue }
            switch f {
            case 1:
                var p = try r.message()
                var fields: [FieldPath] = []
                while let (pf, pw) = try p.next() {
                    if pf == 2 { try p.expect(pw, .lengthDelimited, pf); fields.append(try fieldReference(p.message())) } else { try p.skip(pw) }
                }
                q.select = fields.isEmpty ? nil : fields
            case 2:
                var s = try r.message()
                var selector = StructuredQuery.Selector(collectionID: "")
                while let (sf, sw) = try s.next() {
                    switch sf {
                    case 2: try s.expect(sw, .lengthDelimited, sf); selector.collectionID = try s.string()
                    case 3: try s.expect(sw, .varint, sf); selector.allDescendants = try s.bool()
                    default: try s.skip(sw)
                    }
                }
                q.from.append(selector)
            case 3: q.filter = try filter(r.message())
            case 4:
                var o = try r.message()
                var field: FieldPath?
                var direction = StructuredQuery.Direction.ascending
                while let (of, ow) = try o.next() {
                    switch of {
                    case 1: try o.expect(ow, .lengthDelimited, of); field = try fieldReference(o.message())
                    case 2:
                        try o.expect(ow, .varint, of)
                        switch try o.int32() {
                        case 0, 1: direction = .ascending
                        case 2: direction = .descending
                        case let d: throw .invalidArgument("Invalid order direction \(d).")
                        }
                    default: try o.skip(ow)
                    }
                }
                guard let field else { throw .invalidArgument("An order must have a field.") }
                q.orderBy.append(.init(field, direction))
            case 7: q.startAt = try cursor(r.message())
            case 8: q.endAt = try cursor(r.message())
            case 6:
                try r.expect(w, .varint, f)
                let offset = try r.int32()
                guard offset >= 0 else { throw .invalidArgument("offset must be non-negative.") }
                q.offset = Int(offset)
            case 5:
                let n = try int32Wrapper(r.message())
                if n < 0 { throw .invalidArgument("limit is negative.") }
                q.limit = Int(n)
            case 9:
                throw .unimplemented("Vector search (findNearest) is not supported by the emulator.")
            default:
                try r.skip(w)
            }
        }
        return q
    }

    /// `google.protobuf.Int32Value`.
    static func int32Wrapper(_ reader: ProtoReader) throws(EmulatorError) -> Int32 {
        var r = reader
        var v: Int32 = 0
        while let (f, w) = try r.next() {
            if f == 1 { try r.expect(w, .varint, f); v = try r.int32() } else { try r.skip(w) }
        }
        return v
    }

    /// `google.protobuf.Int64Value`.
    static func int64Wrapper(_ reader: ProtoReader) throws(EmulatorError) -> Int64 {
        var r = reader
        var v: Int64 = 0
        while let (f, w) = try r.next() {
            if f == 1 { try r.expect(w, .varint, f); v = try r.int64() } else { try r.skip(w) }
        }
        return v
    }

    static func cursor(_ reader: ProtoReader) throws(EmulatorError) -> StructuredQuery.Cursor {
        var r = reader
        var c = StructuredQuery.Cursor(values: [], before: false)
        while let (f, w) = try r.next() {
            switch f {
            case 1: try r.expect(w, .lengthDelimited, f); c.values.append(try ProtoValue.read(r.message()))
            case 2: try r.expect(w, .varint, f); c.before = try r.bool()
            default: try r.skip(w)
            }
        }
        return c
    }

    static let fieldOperators: [Int32: QueryFilter.FieldOperator] = [
        1: .lessThan, 2: .lessThanOrEqual, 3: .greaterThan, 4: .greaterThanOrEqual, 5: .equal, 6: .notEqual,
        7: .arrayContains, 8: .in, 9: .arrayContainsAny, 10: .notIn,
    ]
    static let unaryOperators: [Int32: QueryFilter.UnaryOperator] = [2: .isNaN, 3: .isNull, 4: .isNotNaN, 5: .isNotNull]

    static func filter(_ reader: ProtoReader) throws(EmulatorError) -> QueryFilter {
        var r = reader
        var result: QueryFilter?
        while let (f, w) = try r.next() {
            guard w == .lengthDelimited, (1...3).contains(f) else { try r.skip(w); continue }
            var m = try r.message()
            switch f {
            case 1:
                var op: QueryFilter.CompositeOperator?
                var filters: [QueryFilter] = []
                while let (cf, cw) = try m.next() {
                    switch cf {
                    case 1:
                        try m.expect(cw, .varint, cf)
                        switch try m.int32() {
                        case 1: op = .and
                        case 2: op = .or
                        default: op = nil
                        }
                    case 2: try m.expect(cw, .lengthDelimited, cf); filters.append(try filter(m.message()))
                    default: try m.skip(cw)
                    }
                }
                guard let op else { throw .invalidArgument("Invalid composite filter operator.") }
                if filters.isEmpty { throw .invalidArgument("A composite filter must contain at least one filter.") }
                result = .composite(op, filters)
            case 2:
                var field: FieldPath?
                var op: Int32 = 0
                var value: Value?
                while let (ff, fw) = try m.next() {
                    switch ff {
                    case 1: try m.expect(fw, .lengthDelimited, ff); field = try fieldReference(m.message())
                    case 2: try m.expect(fw, .varint, ff); op = try m.int32()
                    case 3: try m.expect(fw, .lengthDelimited, ff); value = try ProtoValue.read(m.message())
                    default: try m.skip(fw)
                    }
                }
                guard let field else { throw .invalidArgument("A field filter must have a field.") }
                guard let fop = fieldOperators[op] else { throw .invalidArgument("Invalid field filter operator: \(op).") }
                guard let value else { throw .invalidArgument("A field filter must have a value.") }
                result = .field(field, fop, value)
            default:
                var field: FieldPath?
                var op: Int32 = 0
                while let (uf, uw) = try m.next() {
                    switch uf {
                    case 1: try m.expect(uw, .varint, uf); op = try m.int32()
                    case 2: try m.expect(uw, .lengthDelimited, uf); field = try fieldReference(m.message())
                    default: try m.skip(uw)
                    }
                }
                guard let field else { throw .invalidArgument("A unary filter must have a field.") }
                guard let uop = unaryOperators[op] else { throw .invalidArgument("Invalid unary filter operator: \(op).") }
                result = .unary(field, uop)
            }
        }
        guard let result else { throw .invalidArgument("A filter must set composite_filter, field_filter or unary_filter.") }
        return result
    }

    static func aggregationQuery(_ reader: ProtoReader) throws(EmulatorError) -> AggregationQuery {
        var r = reader
        var query: StructuredQuery?
        var aggregations: [AggregationQuery.Aggregation] = []
        while let (f, w) = try r.next() {
            switch f {
            case 1: try r.expect(w, .lengthDelimited, f); query = try structuredQuery(r.message())
            case 3:
                try r.expect(w, .lengthDelimited, f)
                var a = try r.message()
                var op: AggregationQuery.Aggregation.Operator?
                var alias: String?
                while let (af, aw) = try a.next() {
                    switch af {
                    case 1:
                        try a.expect(aw, .lengthDelimited, af)
                        var c = try a.message()
                        var upTo: Int64?
                        while let (cf, cw) = try c.next() {
                            if cf == 1 { try c.expect(cw, .lengthDelimited, cf); upTo = try int64Wrapper(c.message()) } else { try c.skip(cw) }
                        }
                        op = .count(upTo: upTo)
                    case 2, 3:
                        try a.expect(aw, .lengthDelimited, af)
                        var s = try a.message()
                        var field: FieldPath?
                        while let (sf, sw) = try s.next() {
                            if sf == 1 { try s.expect(sw, .lengthDelimited, sf); field = try fieldReference(s.message()) } else { try s.skip(sw) }
                        }
                        guard let field else { throw .invalidArgument("A sum or avg aggregation must have a field.") }
                        op = af == 2 ? .sum(field) : .average(field)
                    case 7: try a.expect(aw, .lengthDelimited, af); alias = try a.string()
                    default: try a.skip(aw)
                    }
                }
                guard let op else { throw .invalidArgument("Invalid aggregation: one of count, sum or avg must be set.") }
                aggregations.append(.init(op, alias: alias))
            default: try r.skip(w)
            }
        }
        guard let query else { throw .invalidArgument("structured_aggregation_query must set structured_query.") }
        return AggregationQuery(query: query, aggregations: aggregations)
    }

    // MARK: Transactions

    static func transactionOptions(_ reader: ProtoReader) throws(EmulatorError) -> TransactionOptions {
        var r = reader
        var options = TransactionOptions.readWrite(retrying: nil)
        while let (f, w) = try r.next() {
            switch f {
            case 2:
                try r.expect(w, .lengthDelimited, f)
                var ro = try r.message()
                var time: Int64?
                while let (of, ow) = try ro.next() {
                    if of == 2 { try ro.expect(ow, .lengthDelimited, of); time = try ProtoValue.readMicroseconds(ro.message()) } else { try ro.skip(ow) }
                }
                options = .readOnly(readTime: time)
            case 3:
                try r.expect(w, .lengthDelimited, f)
                var rw = try r.message()
                var retry: [UInt8]?
                var mode = ConcurrencyMode.unspecified
                while let (of, ow) = try rw.next() {
                    switch of {
                    case 1: try rw.expect(ow, .lengthDelimited, of); retry = try rw.bytes()
                    case 2:
                        // concurrency_mode: 1 OPTIMISTIC, 2 PESSIMISTIC (unknown values: the default).
                        try rw.expect(ow, .varint, of)
                        switch try rw.int32() {
                        case 1: mode = .optimistic
                        case 2: mode = .pessimistic
                        default: mode = .unspecified
                        }
                    default: try rw.skip(ow)
                    }
                }
                options = .readWrite(retrying: retry, concurrency: mode)
            default: try r.skip(w)
            }
        }
        return options
    }

    /// Collects the consistency selector of a request: the caller maps its field numbers.
    struct Consistency {
        var selected: [ReadConsistency] = []

        var value: ReadConsistency {
            get throws(EmulatorError) {
                if selected.count > 1 { throw .invalidArgument("Only one of transaction, new_transaction or read_time may be set.") }
                return selected.first ?? .latest
            }
        }
    }

    // MARK: Writes

    static func write(_ reader: ProtoReader) throws(EmulatorError) -> Write {
        var r = reader
        var operation: Write.Operation?
        var operations = 0
        var updateFields: ProtoDocument?
        var mask: [FieldPath]?
        var transforms: [FieldTransform] = []
        var documentTransforms: [FieldTransform] = []
        var precondition = WritePrecondition.none
        while let (f, w) = try r.next() {
            switch f {
            case 1:
                try r.expect(w, .lengthDelimited, f)
                updateFields = try ProtoDocument(r.message())
                operations += 1
            case 2:
                try r.expect(w, .lengthDelimited, f)
                operation = .delete(try DocumentName.document(r.string()))
                operations += 1
            case 5:
                try r.expect(w, .lengthDelimited, f)
                operation = .verify(try DocumentName.document(r.string()))
                operations += 1
            case 6:
                try r.expect(w, .lengthDelimited, f)
                var t = try r.message()
                var name: String?
                while let (tf, tw) = try t.next() {
                    switch tf {
                    case 1: try t.expect(tw, .lengthDelimited, tf); name = try t.string()
                    case 2: try t.expect(tw, .lengthDelimited, tf); documentTransforms.append(try fieldTransform(t.message()))
                    default: try t.skip(tw)
                    }
                }
                guard let name else { throw .invalidArgument("A transform must name its document.") }
                operation = .transform(try DocumentName.document(name))
                operations += 1
            case 3: try r.expect(w, .lengthDelimited, f); mask = try self.mask(r.message())
            case 7: try r.expect(w, .lengthDelimited, f); transforms.append(try fieldTransform(r.message()))
            case 4: try r.expect(w, .lengthDelimited, f); precondition = try self.precondition(r.message())
            default: try r.skip(w)
            }
        }
        guard operations == 1 else { throw .invalidArgument("A write must set exactly one of update, delete, transform or verify.") }
        if let doc = updateFields {
            guard !doc.name.isEmpty else { throw .invalidArgument("A document to update must have a name.") }
            operation = .update(try DocumentName.document(doc.name), fields: doc.fields, mask: mask)
        }
        guard let operation else { throw .invalidArgument("A write must set exactly one of update, delete, transform or verify.") }
        return Write(operation, transforms: transforms + documentTransforms, precondition: precondition)
    }

    static func precondition(_ reader: ProtoReader) throws(EmulatorError) -> WritePrecondition {
        var r = reader
        var p = WritePrecondition.none
        while let (f, w) = try r.next() {
            switch f {
            case 1: try r.expect(w, .varint, f); p = .exists(try r.bool())
            case 2: try r.expect(w, .lengthDelimited, f); p = .updateTime(try ProtoValue.readMicroseconds(r.message()))
            default: try r.skip(w)
            }
        }
        return p
    }

    static func fieldTransform(_ reader: ProtoReader) throws(EmulatorError) -> FieldTransform {
        var r = reader
        var path: FieldPath?
        var kind: FieldTransform.Kind?
        while let (f, w) = try r.next() {
            switch f {
            case 1: try r.expect(w, .lengthDelimited, f); path = try FieldPath(parsing: r.string())
            case 2:
                try r.expect(w, .varint, f)
                let v = try r.int32()
                guard v == 1 else { throw .invalidArgument("Unknown server value \(v).") }
                kind = .serverTimestamp
            case 3: try r.expect(w, .lengthDelimited, f); kind = .increment(try ProtoValue.read(r.message()))
            case 4: try r.expect(w, .lengthDelimited, f); kind = .maximum(try ProtoValue.read(r.message()))
            case 5: try r.expect(w, .lengthDelimited, f); kind = .minimum(try ProtoValue.read(r.message()))
            case 6: try r.expect(w, .lengthDelimited, f); kind = .appendMissingElements(try arrayValues(r.message()))
            case 7: try r.expect(w, .lengthDelimited, f); kind = .removeAllFromArray(try arrayValues(r.message()))
            default: try r.skip(w)
            }
        }
        guard let path else { throw .invalidArgument("A field transform must have a field_path.") }
        guard let kind else { throw .invalidArgument("A field transform must set one transform type.") }
        return FieldTransform(path, kind)
    }

    static func arrayValues(_ reader: ProtoReader) throws(EmulatorError) -> [Value] {
        var r = reader
        var out: [Value] = []
        while let (f, w) = try r.next() {
            if f == 1 { try r.expect(w, .lengthDelimited, f); out.append(try ProtoValue.read(r.message())) } else { try r.skip(w) }
        }
        return out
    }
}
