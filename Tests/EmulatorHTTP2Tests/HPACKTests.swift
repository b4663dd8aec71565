import Testing

@testable import EmulatorHTTP2

/// RFC 7541 Appendix C, byte for byte.
@Suite("HPACK")
struct HPACKTests {
    @Test(arguments: [
        (10, 5, "0a"),  // C.1.1
        (1337, 5, "1f 9a 0a"),  // C.1.2
        (42, 8, "2a"),  // C.1.3
    ])
    func integers(value: Int, prefix: Int, bytes: String) throws {
        var out: [UInt8] = []
        HPACKPrimitive.appendInteger(value, prefixBits: prefix, flags: 0, to: &out)
        #expect(out == hex(bytes))
        var i = 0
        #expect(try HPACKPrimitive.readInteger(out, &i, prefixBits: prefix) == value)
        #expect(i == out.count)
    }

    @Test(arguments: [
        ("www.example.com", "f1e3 c2e5 f23a 6ba0 ab90 f4ff"),
        ("no-cache", "a8eb 1064 9cbf"),
        ("custom-key", "25a8 49e9 5ba9 7d7f"),
        ("custom-value", "25a8 49e9 5bb8 e8b4 bf"),
        ("Mon, 21 Oct 2013 20:13:21 GMT", "d07a be94 1054 d444 a820 0595 040b 8166 e082 a62d 1bff"),
    ])
    func huffmanRoundTrips(text: String, encoded: String) throws {
        #expect(Huffman.encode(text.utf8) == hex(encoded))
        #expect(Huffman.encodedCount(text.utf8) == hex(encoded).count)
        #expect(try Huffman.decode(hex(encoded)) == Array(text.utf8))
    }

    @Test func huffmanRejectsBadPadding() throws {
        // "a" is 00011 (5 bits): padding must be ones.
        #expect(throws: HPACKError.invalidHuffman) { try Huffman.decode([0b0001_1000]) }
        // A whole byte of ones is padding longer than 7 bits.
        #expect(throws: HPACKError.invalidHuffman) { try Huffman.decode([0b0001_1111, 0xFF]) }
        #expect(try Huffman.decode([0b0001_1111]) == Array("a".utf8))
    }

    @Test func literalWithIndexing() throws {  // C.2.1
        var d = HPACKDecoder()
        let block = hex("400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572")
        #expect(try d.decode(block) == [HeaderField("custom-key", "custom-header")])
        #expect(d.dynamicTableSize == 55)
    }

    @Test func literalWithoutIndexingAndNeverIndexed() throws {  // C.2.2, C.2.3
        var d = HPACKDecoder()
        #expect(try d.decode(hex("040c 2f73 616d 706c 652f 7061 7468")) == [HeaderField(":path", "/sample/path")])
        #expect(try d.decode(hex("1008 7061 7373 776f 7264 0673 6563 7265 74")) == [HeaderField("password", "secret")])
        #expect(d.dynamicTableSize == 0)
        #expect(try d.decode([0x82]) == [HeaderField(":method", "GET")])  // C.2.4
    }

    static let requests: [[HeaderField]] = [
        [.init(":method", "GET"), .init(":scheme", "http"), .init(":path", "/"), .init(":authority", "www.example.com")],
        [.init(":method", "GET"), .init(":scheme", "http"), .init(":path", "/"), .init(":authority", "www.example.com"),
         .init("cache-control", "no-cache")],
        [.init(":method", "GET"), .init(":scheme", "https"), .init(":path", "/index.html"), .init(":authority", "www.example.com"),
         .init("custom-key", "custom-value")],
    ]

    @Test func requestsWithoutHuffman() throws {  // C.3
        let blocks = [
            "8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
            "8286 84be 5808 6e6f 2d63 6163 6865",
            "8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65",
        ]
        var d = HPACKDecoder()
        var e = HPACKEncoder(huffman: false, indexing: true)
        for (i, (block, sizes)) in zip(blocks, [57, 110, 164]).enumerated() {
            #expect(try d.decode(hex(block)) == Self.requests[i])
            #expect(d.dynamicTableSize == sizes)
            #expect(e.encode(Self.requests[i]) == hex(block))
        }
        #expect(d.dynamicEntries.map(\.name) == ["custom-key", "cache-control", ":authority"])
    }

    @Test func requestsWithHuffman() throws {  // C.4
        let blocks = [
            "8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff",
            "8286 84be 5886 a8eb 1064 9cbf",
            "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf",
        ]
        var d = HPACKDecoder()
        var e = HPACKEncoder(huffman: true, indexing: true)
        for (i, block) in blocks.enumerated() {
            #expect(try d.decode(hex(block)) == Self.requests[i])
            #expect(e.encode(Self.requests[i]) == hex(block))
        }
    }

    @Test func responsesEvictOldestEntries() throws {  // C.5.1, C.5.2 with a 256-byte table
        var d = HPACKDecoder(maxTableSize: 256)
        let first = hex(
            "4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70 6c65 2e63 6f6d"
        )
        let date = HeaderField("date", "Mon, 21 Oct 2013 20:13:21 GMT")
        let location = HeaderField("location", "https://www.example.com")
        #expect(try d.decode(first) == [.init(":status", "302"), .init("cache-control", "private"), date, location])
        #expect(d.dynamicTableSize == 222)
        #expect(try d.decode(hex("4803 3330 37c1 c0bf")) == [.init(":status", "307"), .init("cache-control", "private"), date, location])
        #expect(d.dynamicTableSize == 222)
        #expect(d.dynamicEntries.first == HeaderField(":status", "307"))
        #expect(!d.dynamicEntries.contains(HeaderField(":status", "302")))
    }

    @Test func tableSizeUpdates() throws {
        var d = HPACKDecoder()
        _ = try d.decode(hex("400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572"))
        // Size update to 0 empties the table, then back to 4096.
        #expect(try d.decode([0x20, 0x3F, 0xE1, 0x1F, 0x82]) == [HeaderField(":method", "GET")])
        #expect(d.dynamicTableSize == 0)
        // Larger than SETTINGS_HEADER_TABLE_SIZE.
        #expect(throws: HPACKError.tableSizeUpdateTooLarge(8192)) { try d.decode([0x3F, 0xE1, 0x3F]) }
        // After a field.
        #expect(throws: HPACKError.tableSizeUpdateMisplaced) { try d.decode([0x82, 0x20]) }
    }

    @Test(arguments: [
        ([UInt8]([0xBE]), HPACKError.invalidIndex(62)),
        ([0x80], .invalidIndex(0)),
        ([0x41, 0x05, 0x61], .truncated),
        ([0x1F], .truncated),
        ([0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F], .integerOverflow),
        // A literal's name length whose continuation bytes add nothing but push the shift past
        // 63 bits (found by the hpack fuzz target: it wrapped negative and trapped).
        ([0x00, 0x7F] + [UInt8](repeating: 0x80, count: 9) + [0x7F, 0x01], .integerOverflow),
        ([0x3F] + [UInt8](repeating: 0x80, count: 12) + [0x01], .integerOverflow),
    ])
    func hostileBlocksThrow(block: [UInt8], error: HPACKError) {
        var d = HPACKDecoder()
        #expect(throws: error) { try d.decode(block) }
    }
}
