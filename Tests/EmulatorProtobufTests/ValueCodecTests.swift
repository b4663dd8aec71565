import EmulatorModel
import Testing

@testable import EmulatorProtobuf

@Suite("google.firestore.v1.Value codec")
struct ValueCodecTests {
    /// Hand-computed encodings: key byte(s), then the payload.
    @Test(arguments: [
        (Value.null, [UInt8]([0x58, 0x00])),
        (.boolean(false), [0x08, 0x00]),
        (.boolean(true), [0x08, 0x01]),
        (.integer(0), [0x10, 0x00]),
        (.integer(-1), [0x10, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]),
        (.double(1.5), [0x19, 0, 0, 0, 0, 0, 0, 0xF8, 0x3F]),
        (.string(""), [0x8A, 0x01, 0x00]),
        (.string("hi"), [0x8A, 0x01, 0x02, 0x68, 0x69]),
        (.bytes([1, 2]), [0x92, 0x01, 0x02, 0x01, 0x02]),
        (.reference("r"), [0x2A, 0x01, 0x72]),
        (.timestamp(Timestamp(seconds: 1, nanos: 2)), [0x52, 0x04, 0x08, 0x01, 0x10, 0x02]),
        (.timestamp(Timestamp(seconds: 0, nanos: 0)), [0x52, 0x00]),
        (.geoPoint(latitude: 1, longitude: 0), [0x42, 0x12, 0x09, 0, 0, 0, 0, 0, 0, 0xF0, 0x3F, 0x11, 0, 0, 0, 0, 0, 0, 0, 0]),
        (.array([]), [0x4A, 0x00]),
        (.array([.integer(1)]), [0x4A, 0x04, 0x0A, 0x02, 0x10, 0x01]),
        (.map(ValueMap()), [0x32, 0x00]),
        (.map(["a": .boolean(true)]), [0x32, 0x09, 0x0A, 0x07, 0x0A, 0x01, 0x61, 0x12, 0x02, 0x08, 0x01]),
    ])
    func encodesAndDecodes(value: Value, bytes: [UInt8]) throws {
        var w = ProtoWriter()
        ProtoValue.write(value, to: &w)
        #expect(w.bytes == bytes)
        #expect(try ProtoValue.read(ProtoReader(bytes)) == value)
    }

    /// A map value of one field, hand-framed: map_value (field 6) { fields (1) { key (1), value (2) } }.
    static func oneFieldMap(_ key: String, _ inner: [UInt8]) -> [UInt8] {
        let k = Array(key.utf8)
        let entry: [UInt8] = [0x0A, UInt8(k.count)] + k + [0x12, UInt8(inner.count)] + inner
        let map: [UInt8] = [0x0A, UInt8(entry.count)] + entry
        return [0x32, UInt8(map.count)] + map
    }

    static let bsonCases: [(Value, [UInt8])] = [
        (Value.int32(42), [0x32, 0x0F, 0x0A, 0x0D, 0x0A, 0x07, 0x5F, 0x5F, 0x69, 0x6E, 0x74, 0x5F, 0x5F, 0x12, 0x02, 0x10, 0x2A]),
        (.minKey, oneFieldMap("__min__", [0x58, 0x00])),
        (.maxKey, oneFieldMap("__max__", [0x58, 0x00])),
        (.bsonBinary(subtype: 128, [0x77]), oneFieldMap("__binary__", [0x92, 0x01, 0x02, 0x80, 0x77])),
        (.decimal128("NaN"), oneFieldMap("__decimal128__", [0x8A, 0x01, 0x03, 0x4E, 0x61, 0x4E])),
        (.objectId("507f191e810c19729de860ea"), oneFieldMap("__oid__", [0x8A, 0x01, 0x18] + Array("507f191e810c19729de860ea".utf8))),
    ]

    /// BSON types travel as map values of one reserved key (the first row spelled out byte by byte).
    @Test(arguments: bsonCases)
    func bsonValues(value: Value, bytes: [UInt8]) throws {
        var w = ProtoWriter()
        ProtoValue.write(value, to: &w)
        #expect(w.bytes == bytes)
        #expect(try ProtoValue.read(ProtoReader(bytes)) == value)
    }

    @Test func emptyValueIsInvalid() {
        #expect(throws: EmulatorError.self) { try ProtoValue.read(ProtoReader([])) }
    }

    @Test func lastOneofMemberWins() throws {
        #expect(try ProtoValue.read(ProtoReader([0x08, 0x01, 0x10, 0x05])) == .integer(5))
    }

    @Test func mapKeysArriveInAnyOrderAndDuplicatesKeepTheLast() throws {
        // MapValue { fields {b: 1} fields {a: 2} fields {b: 3} }
        func entry(_ k: UInt8, _ v: UInt8) -> [UInt8] { [0x0A, 0x07, 0x0A, 0x01, k, 0x12, 0x02, 0x10, v] }
        let body = entry(0x62, 1) + entry(0x61, 2) + entry(0x62, 3)
        let value = try ProtoValue.read(ProtoReader([0x32, UInt8(body.count)] + body))
        #expect(value == .map(["a": .integer(2), "b": .integer(3)]))
    }

    @Test func invalidTimestampsAreRejected() {
        // nanos = 1e9
        var w = ProtoWriter()
        w.message(10) { $0.int32(2, 1_000_000_000) }
        #expect(throws: EmulatorError.self) { try ProtoValue.read(ProtoReader(w.bytes)) }
    }

    @Test func documentRoundTripsWithTimes() throws {
        let doc = ProtoDocument(
            name: "projects/p/databases/(default)/documents/c/d", fields: ["n": .integer(1), "s": .string("x")],
            createTime: 1_000_001, updateTime: 2_000_000)
        let decoded = try ProtoDocument(ProtoReader(doc.encoded))
        #expect(decoded == doc)
        // name (1), two fields (2), create_time (3), update_time (4).
        #expect(doc.encoded.first == 0x0A)
    }

    @Test func unknownValueFieldsAreSkipped() throws {
        // field 30 (varint) before integer_value.
        #expect(try ProtoValue.read(ProtoReader([0xF0, 0x01, 0x01, 0x10, 0x07])) == .integer(7))
    }
}
