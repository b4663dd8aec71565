import EmulatorModel
import EmulatorProtobuf
import Testing

@testable import FirestoreEmulator

@Suite("google.firestore.v1 request decoding")
struct ProtoDecodingTests {
    static func fieldRef(_ w: inout ProtoWriter, _ field: Int, _ path: String) {
        w.message(field) { $0.string(2, path) }
    }

    @Test func structuredQueryWithEveryPart() throws {
        var w = ProtoWriter()
        w.message(1) { p in Self.fieldRef(&p, 2, "a"); Self.fieldRef(&p, 2, "b.c") }  // select
        w.message(2) { s in s.string(2, "cities"); s.bool(3, true) }  // from, all_descendants
        w.message(3) { f in  // where: OR(a == 1, b IS_NULL, AND(c in [1, 2]))
            f.message(1) { c in
                c.int32(1, 2)
                c.message(2) { $0.message(2) { ff in Self.fieldRef(&ff, 1, "a"); ff.int32(2, 5); ff.message(3) { ProtoValue.write(.integer(1), to: &$0) } } }
                c.message(2) { $0.message(3) { u in u.int32(1, 3); Self.fieldRef(&u, 2, "b") } }
                c.message(2) { $0.message(1) { inner in
                    inner.int32(1, 1)
                    inner.message(2) { $0.message(2) { ff in
                        Self.fieldRef(&ff, 1, "c"); ff.int32(2, 8)
                        ff.message(3) { ProtoValue.write(.array([.integer(1), .integer(2)]), to: &$0) }
                    } }
                } }
            }
        }
        w.message(4) { o in Self.fieldRef(&o, 1, "a"); o.int32(2, 2) }  // order_by a desc
        w.message(4) { o in Self.fieldRef(&o, 1, "__name__") }  // direction unspecified: ascending
        w.message(7) { c in c.message(1) { ProtoValue.write(.integer(3), to: &$0) }; c.bool(2, true) }
        w.message(8) { c in c.message(1) { ProtoValue.write(.integer(9), to: &$0) } }
        w.int32(6, 2)
        w.message(5) { $0.int32(1, 10) }
        w.uint64(99, 7)  // unknown field
        let q = try ProtoDecoding.structuredQuery(ProtoReader(w.bytes))
        #expect(q == StructuredQuery(
            select: [FieldPath(["a"]), FieldPath(["b", "c"])],
            from: [.init(collectionID: "cities", allDescendants: true)],
            filter: .composite(.or, [
                .field(FieldPath(["a"]), .equal, .integer(1)),
                .unary(FieldPath(["b"]), .isNull),
                .composite(.and, [.field(FieldPath(["c"]), .in, .array([.integer(1), .integer(2)]))]),
            ]),
            orderBy: [.init(FieldPath(["a"]), .descending), .init(.documentID, .ascending)],
            startAt: .init(values: [.integer(3)], before: true),
            endAt: .init(values: [.integer(9)], before: false),
            offset: 2, limit: 10))
    }

    @Test func limitZeroIsPresentAndEmptySelectSelectsAll() throws {
        var w = ProtoWriter()
        w.message(1) { _ in }
        w.message(5) { _ in }
        let q = try ProtoDecoding.structuredQuery(ProtoReader(w.bytes))
        #expect(q.limit == 0)
        #expect(q.select == nil)
    }

    static func invalidQuery(_ name: String) -> [UInt8] {
        var w = ProtoWriter()
        switch name {
        case "operator 0":
            w.message(3) { $0.message(2) { ff in Self.fieldRef(&ff, 1, "a"); ff.message(3) { ProtoValue.write(.null, to: &$0) } } }
        case "negative offset": w.int32(6, -1)
        case "negative limit": w.message(5) { $0.int32(1, -1) }
        case "find_nearest": w.message(9) { _ in }
        case "empty composite": w.message(3) { $0.message(1) { $0.int32(1, 1) } }
        default: w.message(4) { o in Self.fieldRef(&o, 1, "a..b") }
        }
        return w.bytes
    }

    @Test(arguments: ["operator 0", "negative offset", "negative limit", "find_nearest", "empty composite", "bad field path"])
    func invalidQueriesAreRejected(name: String) {
        #expect(throws: EmulatorError.self, "\(name)") { try ProtoDecoding.structuredQuery(ProtoReader(Self.invalidQuery(name))) }
    }

    @Test func writeWithMaskTransformsAndPrecondition() throws {
        var w = ProtoWriter()
        w.message(1) { ProtoDocument(name: "projects/p/databases/d/documents/c/x", fields: ["a": .integer(1)]).write(to: &$0) }
        w.message(3) { $0.string(1, "a"); $0.string(1, "`b.c`") }
        w.message(7) { t in t.string(1, "n"); t.message(3) { ProtoValue.write(.integer(2), to: &$0) } }
        w.message(7) { t in t.string(1, "ts"); t.int32(2, 1) }
        w.message(7) { t in t.string(1, "arr"); t.message(6) { $0.message(1) { ProtoValue.write(.string("x"), to: &$0) } } }
        w.message(4) { $0.bool(1, true) }
        let write = try ProtoDecoding.write(ProtoReader(w.bytes))
        #expect(write == Write(
            .update(try DocumentName.document("projects/p/databases/d/documents/c/x"), fields: ["a": .integer(1)],
                    mask: [FieldPath(["a"]), FieldPath(["b.c"])]),
            transforms: [
                FieldTransform(FieldPath(["n"]), .increment(.integer(2))),
                FieldTransform(FieldPath(["ts"]), .serverTimestamp),
                FieldTransform(FieldPath(["arr"]), .appendMissingElements([.string("x")])),
            ],
            precondition: .exists(true)))
    }

    @Test func emptyUpdateMaskIsPresent() throws {
        var w = ProtoWriter()
        w.message(1) { ProtoDocument(name: "projects/p/databases/d/documents/c/x", fields: [:]).write(to: &$0) }
        w.message(3) { _ in }
        guard case .update(_, _, let mask) = try ProtoDecoding.write(ProtoReader(w.bytes)).operation else {
            Issue.record("not an update")
            return
        }
        #expect(mask == [])
    }

    @Test func writeMustSetExactlyOneOperation() {
        var w = ProtoWriter()
        w.string(2, "projects/p/databases/d/documents/c/x")
        w.string(5, "projects/p/databases/d/documents/c/x")
        #expect(throws: EmulatorError.self) { try ProtoDecoding.write(ProtoReader(w.bytes)) }
        #expect(throws: EmulatorError.self) { try ProtoDecoding.write(ProtoReader([])) }
    }

    @Test func transactionOptions() throws {
        var ro = ProtoWriter()
        ro.message(2) { $0.message(2) { ProtoValue.writeTimestamp(Timestamp(seconds: 1, nanos: 5000), to: &$0) } }
        #expect(try ProtoDecoding.transactionOptions(ProtoReader(ro.bytes)) == .readOnly(readTime: 1_000_005))
        var rw = ProtoWriter()
        rw.message(3) { $0.bytes(1, [7]) }
        #expect(try ProtoDecoding.transactionOptions(ProtoReader(rw.bytes)) == .readWrite(retrying: [7]))
        #expect(try ProtoDecoding.transactionOptions(ProtoReader([])) == .readWrite(retrying: nil))
    }

    @Test(arguments: ["projects/p/databases/d", "projects//databases/d", "projects/p/databases/d/documents", "p/d"])
    func databaseNames(name: String) {
        let valid = name == "projects/p/databases/d"
        let parsed = (try? ProtoDecoding.database(name)) != nil
        #expect(parsed == valid)
    }
}
