import EmulatorModel
import Testing

@testable import EmulatorProtobuf

@Suite("Protobuf wire format")
struct WireTests {
    static let varintTable: [(UInt64, [UInt8])] = [
        (0, [0x00]),
        (1, [0x01]),
        (127, [0x7F]),
        (128, [0x80, 0x01]),
        (150, [0x96, 0x01]),
        (300, [0xAC, 0x02]),
        (UInt64.max, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]),
    ]

    @Test(arguments: varintTable)
    func varints(value: UInt64, bytes: [UInt8]) throws {
        var w = ProtoWriter()
        w.varint(value)
        #expect(w.bytes == bytes)
        var r = ProtoReader(bytes)
        #expect(try r.varint() == value)
        #expect(r.isAtEnd)
    }

    @Test(arguments: [(Int64(0), UInt64(0)), (-1, 1), (1, 2), (-2, 3), (Int64.max, UInt64.max - 1), (Int64.min, UInt64.max)])
    func zigzag(value: Int64, encoded: UInt64) {
        #expect(ProtoZigZag.encode(value) == encoded)
        #expect(ProtoZigZag.decode(encoded) == value)
    }

    @Test func fieldsEncodeWithKeys() throws {
        var w = ProtoWriter()
        w.int64(2, 150)
        w.string(17, "a")
        w.int32(5, -1)
        w.double(3, 1.0)
        w.fixed32(4, 1)
        w.packedInt32(5, [1, 300])
        #expect(w.bytes == [
            0x10, 0x96, 0x01,
            0x8A, 0x01, 0x01, 0x61,
            0x28, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01,
            0x19, 0, 0, 0, 0, 0, 0, 0xF0, 0x3F,
            0x25, 1, 0, 0, 0,
            0x2A, 0x03, 0x01, 0xAC, 0x02,
        ])
        var r = ProtoReader(w.bytes)
        #expect(try r.next()! == (2, .varint))
        #expect(try r.int64() == 150)
        #expect(try r.next()! == (17, .lengthDelimited))
        #expect(try r.string() == "a")
        #expect(try r.next()! == (5, .varint))
        #expect(try r.int32() == -1)
        #expect(try r.next()! == (3, .fixed64))
        #expect(try r.double() == 1.0)
        #expect(try r.next()! == (4, .fixed32))
        #expect(try r.fixed32() == 1)
        let (field, wire) = try r.next()!
        var ids: [Int32] = []
        try r.repeatedInt32(wire, into: &ids)
        #expect(field == 5 && ids == [1, 300])
        #expect(try r.next() == nil)
    }

    @Test func unpackedRepeatedInt32IsAccepted() throws {
        var r = ProtoReader([0x28, 0x07, 0x28, 0x08])
        var ids: [Int32] = []
        while let (_, wire) = try r.next() { try r.repeatedInt32(wire, into: &ids) }
        #expect(ids == [7, 8])
    }

    @Test func unknownFieldsAndGroupsAreSkipped() throws {
        // field 9 varint, field 10 group { field 1 varint, nested group 2 {} }, field 11 fixed32, then field 1 = "x".
        let bytes: [UInt8] = [0x48, 0x05, 0x53, 0x08, 0x01, 0x13, 0x14, 0x54, 0x5D, 1, 2, 3, 4, 0x0A, 0x01, 0x78]
        var r = ProtoReader(bytes)
        var name: String?
        while let (f, w) = try r.next() {
            if f == 1 { name = try r.string() } else { try r.skip(w) }
        }
        #expect(name == "x")
    }

    @Test func groupsReadWithTheirEndTag() throws {
        // field 5 group { field 6 fixed64 = 1.0, field 9 varint 3 (left unread) }, then field 1 = "x".
        var w = ProtoWriter()
        w.group(5) {
            $0.double(6, 1.0)
            $0.uint64(9, 3)
        }
        w.string(1, "x")
        var r = ProtoReader(w.bytes)
        let (field, wire) = try #require(try r.next())
        #expect(field == 5 && wire == .startGroup)
        let latitude = try r.group(5) { (g: inout ProtoReader) throws(EmulatorError) -> Double in
            guard let (f, gw) = try g.next() else { throw .internal("no field") }
            try g.expect(gw, .fixed64, f)
            return try g.double()
        }
        #expect(latitude == 1.0)
        #expect(try r.next()! == (1, .lengthDelimited))
        #expect(try r.string() == "x")
        #expect(try r.next() == nil)
    }

    @Test func recordReaderFailuresKeepTheOffset() throws {
        // A good field, then a string whose length runs past the end: the length starts at byte 3.
        var r = ProtoRecordReader([0x08, 0x01, 0x12, 0x05, 0x61])
        #expect(try r.next()! == (1, .varint))
        #expect(try r.varint() == 1)
        #expect(try r.next()! == (2, .lengthDelimited))
        #expect(throws: ProtoFailure(offset: 3, message: "length 5 beyond the end of the message")) { try r.string() }
        // A range read earlier can be read as a message later, sharing the bytes.
        var outer = ProtoRecordReader([0x0A, 0x02, 0x08, 0x07])
        _ = try outer.next()
        let range = try outer.lengthDelimited()
        var inner = try outer.message(at: range)
        #expect(inner.depth == 1)
        #expect(try inner.next()! == (1, .varint))
        #expect(try inner.varint() == 7)
        #expect(try inner.next() == nil)
        #expect(throws: ProtoFailure(offset: 0, message: "unexpected end-group 1")) {
            var bad = ProtoRecordReader([0x0C])
            _ = try bad.next()
        }
    }

    @Test(arguments: [
        [UInt8]([0x80]),  // truncated varint
        [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02],  // overflows 64 bits
        [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x80, 0x01],  // 11 bytes
        [0x0A, 0x05, 0x61],  // length beyond the end
        [0x0F],  // wire type 7
        [0x00],  // field number 0
        [0x0B, 0x08, 0x01],  // unterminated group
        [0x0C],  // end-group without start
        [0x0B, 0x14],  // group 1 closed by the end tag of group 2
        [0x09, 0x01, 0x02],  // truncated fixed64
        [0x0A, 0x02, 0xC3, 0x28],  // invalid UTF-8 in a string
    ])
    func hostileInputThrowsInvalidArgument(bytes: [UInt8]) {
        var r = ProtoReader(bytes)
        do {
            while let (f, w) = try r.next() {
                if f == 1, w == .lengthDelimited { _ = try r.string() } else { try r.skip(w) }
            }
            Issue.record("accepted \(bytes)")
        } catch {
            #expect(error.code == .invalidArgument)
        }
    }

    @Test func deepNestingIsRefused() {
        // 200 nested array values.
        var bytes: [UInt8] = [0x08, 0x01]
        for _ in 0..<200 {
            var w = ProtoWriter()
            w.message(9) { $0.bytes(1, bytes) }
            bytes = w.bytes
        }
        #expect(throws: EmulatorError.self) { try ProtoValue.read(ProtoReader(bytes)) }
    }
}
