import EmulatorProtobuf
import Testing
import EmulatorModel
@testable import EmulatorSnapshot

@Suite struct EntityProtoTests {
    @Test func protobufWireEncodings() {
        var w = ProtoWriter()
        w.uint64(1, 150)
        w.string(2, "a")
        w.int64(3, -1)
        w.group(5) { $0.double(6, 1.0) }
        #expect(w.bytes == [0x08, 0x96, 0x01, 0x12, 0x01, 0x61, 0x18] + [UInt8](repeating: 0xFF, count: 9) + [0x01]
            + [0x2B, 0x31, 0, 0, 0, 0, 0, 0, 0xF0, 0x3F, 0x2C])
    }

    @Test func protobufReaderRejectsTruncationWithOffset() {
        #expect(throws: ProtoFailure(offset: 1, message: "length 5 beyond the end of the message")) {
            var r = ProtoRecordReader([0x12, 0x05, 0x61])
            while let (_, w) = try r.next() { try r.skip(w) }
        }
        // A length that needs a two-byte varint is written in place.
        var w = ProtoWriter()
        w.message(1) { $0.bytes(2, [UInt8](repeating: 7, count: 200)) }
        #expect(Array(w.bytes.prefix(6)) == [0x0A, 0xCB, 0x01, 0x12, 0xC8, 0x01])
        #expect(w.bytes.count == 3 + 3 + 200)
    }

    @Test func entityBytesFollowTheManagedExportLayout() {
        let doc = FirestoreExportDocument(projectID: "demo", path: ResourcePath(segments: ["c", "d"]), fields: ["a": .integer(1)])
        let path: [UInt8] = [0x0B, 0x12, 0x01, 0x63, 0x22, 0x01, 0x64, 0x0C]
        let key: [UInt8] = [0x6A, 0x08] + Array("dev~demo".utf8) + [0x72, 0x08] + path
        let property: [UInt8] = [0x1A, 0x01, 0x61, 0x20, 0x00, 0x2A, 0x02, 0x08, 0x01]
        let expected: [UInt8] = [0x6A, UInt8(key.count)] + key + [0x7A, UInt8(property.count)] + property + [0x82, 0x01, 0x08] + path
        #expect(EntityProto.encode(doc) == expected)
    }

    @Test func numericIdsAndNamedDatabases() throws {
        let doc = FirestoreExportDocument(
            projectID: "p", databaseID: "other", path: ResourcePath(segments: ["c", "__id7__", "s", "x"]), fields: [:])
        let bytes = EntityProto.encode(doc)
        // The first element carries id 7 (field 3, varint), not a name.
        let needle: [UInt8] = [0x0B, 0x12, 0x01, 0x63, 0x18, 0x07, 0x0C]
        #expect(bytes.indices.contains { bytes[$0...].starts(with: needle) })
        #expect(bytes.indices.contains { bytes[$0...].starts(with: [0xBA, 0x01, 0x05] + Array("other".utf8)) })
        #expect(try EntityProto.decode(bytes) == doc)
    }

    @Test func defaultDatabaseIdIsOmitted() {
        let bytes = EntityProto.encode(FirestoreExportDocument(projectID: "p", path: ResourcePath(segments: ["c", "d"]), fields: [:]))
        #expect(!bytes.indices.contains { bytes[$0...].starts(with: [0xBA, 0x01]) })
    }

    static let everyType: ValueMap = [
        "null": .null, "bool": .boolean(true), "int": .integer(-42), "double": .double(2.5),
        "string": .string("héllo"), "bytes": .bytes([0, 255, 10]),
        "time": .timestamp(Timestamp(seconds: 1_700_000_000, nanos: 123_456_000)),
        "geo": .geoPoint(latitude: 51.5, longitude: -0.12),
        "ref": .reference("projects/demo/databases/(default)/documents/books/hitchhiker"),
        "refNumeric": .reference("projects/demo/databases/(default)/documents/c/__id9__"),
        "map": .map(["inner": .string("x"), "deeper": .map(["n": .integer(1)]), "emptyMap": .map([:])]),
        "array": .array([.integer(1), .string("two"), .map(["k": .boolean(false)]), .null]),
        "emptyArray": .array([]),
        "nestedEmpty": .map(["list": .array([])]),
        "vector": .map(["__type__": .string("__vector__"), "value": .array([.double(1), .double(2.5)])]),
        // BSON types (Firestore with MongoDB compatibility) are maps of one reserved key.
        "bsonMin": .minKey, "bsonMax": .maxKey, "bsonOid": .objectId("507f191e810c19729de860ea"),
        "bsonInt32": .int32(-7), "bsonDecimal": .decimal128("-Infinity"), "bsonRegex": .regex("^a.*$", options: "im"),
        "bsonTimestamp": .bsonTimestamp(seconds: 1_700_000_000, increment: 1), "bsonBinary": .bsonBinary(subtype: 128, [1, 2]),
        "bsonInArray": .array([.decimal128("123.45"), .minKey]),
    ]

    @Test func everyValueTypeRoundTrips() throws {
        let doc = FirestoreExportDocument(projectID: "demo", path: ResourcePath(segments: ["all", "types"]), fields: Self.everyType)
        #expect(try EntityProto.decode(EntityProto.encode(doc)) == doc)
    }

    static let transcodingCases: [ValueMap] = [
        everyType,
        [:],
        ["neg": .timestamp(Timestamp(seconds: -5, nanos: 250_000_000)), "z": .integer(.min), "a": .double(-0.0)],
        ["list": .array([.map(["x": .array([])]), .bytes([]), .reference("projects/p/databases/other/documents/c/__id-3__")])],
        ["é": "accent", "e": "plain", "ÿ": .null, "deep": .map(["deeper": .map(["deepest": .array([.boolean(false)])])])],
        ["v": .map(["__type__": .string("__vector__"), "value": .array([])])],
        ["bad": .bytes([0xFF, 0xFE]), "text": .string(String(repeating: "ü", count: 300))],
    ]

    @Test(arguments: transcodingCases)
    func transcodingEqualsDecodingThenEncoding(fields: ValueMap) throws {
        let bytes = EntityProto.encode(FirestoreExportDocument(
            projectID: "p", databaseID: "db", path: ResourcePath(segments: ["c", "__id5__", "s", "d"]), fields: fields))
        let decoded = try EntityProto.decode(bytes)
        let stored = try EntityProto.transcode(bytes)
        #expect(stored.encodedFields == ValueCodec.encode(decoded.fields))
        #expect(try ValueCodec.decode(stored.encodedFields) == fields)
        #expect(stored.path == decoded.path && stored.projectID == "p" && stored.databaseID == "db")
        // The export side: stored bytes to an entity, byte-identical to encoding the values.
        let direct = EntityProto.encode(stored: stored)
        let hasVector = fields.contains { $0.value.mapValue?.isVector == true }
        #expect(direct == bytes || (direct == nil && hasVector))
    }

    @Test func transcodingFollowsTheDecoderOnRepeatedNames() throws {
        // Properties as another tool may write them: unsorted, a name repeated, an array split
        // around another field, a single value after array elements.
        func property(_ w: inout ProtoWriter, _ name: String, _ int: Int64, multiple: Bool) {
            w.message(15) { p in
                p.string(3, name)
                p.bool(4, multiple)
                p.message(5) { $0.int64(1, int) }
            }
        }
        var w = ProtoWriter()
        w.message(13) { k in
            k.string(13, "dev~p")
            k.message(14) { p in p.group(1) { e in e.string(2, "c"); e.string(4, "d") } }
        }
        property(&w, "z", 1, multiple: false)
        property(&w, "a", 1, multiple: true)
        property(&w, "m", 7, multiple: false)
        property(&w, "a", 2, multiple: true)
        property(&w, "z", 3, multiple: false)
        property(&w, "m", 8, multiple: true)
        let stored = try EntityProto.transcode(w.bytes)
        let decoded = try EntityProto.decode(w.bytes)
        #expect(decoded.fields == ["a": .array([.integer(1), .integer(2)]), "m": .array([.integer(8)]), "z": .integer(3)])
        #expect(stored.encodedFields == ValueCodec.encode(decoded.fields))
    }

    @Test func valueMeaningsOnTheWire() {
        func property(_ value: Value) -> [UInt8] {
            EntityProto.encode(FirestoreExportDocument(projectID: "p", path: ResourcePath(segments: ["c", "d"]), fields: ["f": value]))
        }
        func has(_ bytes: [UInt8], _ needle: [UInt8]) -> Bool { bytes.indices.contains { bytes[$0...].starts(with: needle) } }
        // meaning 7 (timestamp) with microseconds, 9 (geo), 14 (bytes), 19 (map), 24 (empty array, as `property` 14).
        #expect(has(property(.timestamp(Timestamp(microseconds: 5))), [0x08, 0x07, 0x1A, 0x01, 0x66, 0x20, 0x00, 0x2A, 0x02, 0x08, 0x05]))
        #expect(has(property(.geoPoint(latitude: 0, longitude: 0)), [0x08, 0x09]))
        #expect(has(property(.bytes([1])), [0x08, 0x0E, 0x1A, 0x01, 0x66, 0x20, 0x00, 0x2A, 0x03, 0x1A, 0x01, 0x01]))
        #expect(has(property(.map(["a": .null])), [0x08, 0x13]))
        #expect(has(property(.array([])), [0x72, 0x09, 0x08, 0x18, 0x1A, 0x01, 0x66, 0x20, 0x00, 0x2A, 0x00]))
        // Array elements are separate properties with multiple = true.
        let array = property(.array([.integer(1), .integer(2)]))
        #expect(has(array, [0x1A, 0x01, 0x66, 0x20, 0x01, 0x2A, 0x02, 0x08, 0x01]))
        #expect(has(array, [0x1A, 0x01, 0x66, 0x20, 0x01, 0x2A, 0x02, 0x08, 0x02]))
    }

    @Test func damagedEntityIsRejected() {
        var bytes = EntityProto.encode(FirestoreExportDocument(projectID: "p", path: ResourcePath(segments: ["c", "d"]), fields: ["a": "b"]))
        bytes.removeLast(3)
        #expect(throws: ProtoFailure.self) { _ = try EntityProto.decode(bytes) }
        #expect(throws: ProtoFailure.self) { _ = try EntityProto.decode([0x7A, 0x00]) }  // no key
        #expect(throws: ProtoFailure(offset: 0, message: "entity has no key path")) { _ = try EntityProto.transcode([]) }
    }
}
