import Testing
@testable import EmulatorStorage

@Suite struct StorageKeyTests {
    @Test(arguments: [
        ("a", "a/b"),            // parent before child
        ("a/b", "a/c"),          // siblings by bytes
        ("a/z/z/z", "ab"),       // a whole subtree before the next sibling of its root
        ("a/b", "a\u{0}"),       // an escaped 0x00 sorts after the plain prefix's subtree
        ("a\u{0}", "a\u{1}"),
        ("a\u{1}", "a\u{2}"),
        ("A", "a"),
        ("z", "é"),              // UTF-8 bytes, not Unicode collation
        ("e\u{301}", "é"),       // canonically equivalent strings are distinct keys
    ])
    func ordersParentThenChildrenBytewise(lower: String, higher: String) {
        #expect(key(lower) < key(higher))
        #expect(!(key(higher) < key(lower)))
        #expect(key(lower) != key(higher))
    }

    @Test(arguments: ["a", "users/alice/posts/1", "x\u{0}y/\u{1}", "ü/日本"])
    func roundTripsSegmentsAndEncoding(path: String) throws {
        let original = key(path)
        #expect(original.segments == path.split(separator: "/").map(String.init))
        #expect(try StorageKey(validatingEncoding: original.encoded) == original)
        #expect(original.depth == original.segments.count)
    }

    @Test func parentAndAncestry() {
        let doc = key("users/alice/posts/1")
        #expect(doc.parent == key("users/alice/posts"))
        #expect(key("users").isAncestor(of: doc))
        #expect(!key("user").isAncestor(of: doc))
        #expect(!doc.isAncestor(of: doc))
        #expect(doc.lastSegment == "1")
        #expect(StorageKey.root.isAncestor(of: doc))
        #expect(key("a").parent == StorageKey.root)
        #expect(StorageKey.root.parent == nil)
    }

    @Test(arguments: [
        ([[0xFF]], StorageError.Code.invalidUTF8),
        ([[0xC0, 0x80]], .invalidUTF8),        // overlong NUL
        ([[0xED, 0xA0, 0x80]], .invalidUTF8),  // surrogate
        ([[0x61], []], .invalidKey),           // empty segment
    ])
    func rejectsBadSegments(segments: [[UInt8]], code: StorageError.Code) {
        #expect(throws: StorageError.self) { try StorageKey(validatingSegments: segments) }
        do {
            _ = try StorageKey(validatingSegments: segments)
        } catch {
            #expect(error.code == code)
        }
    }

    @Test func rejectsMalformedEncodings() {
        #expect(throws: StorageError.self) { try StorageKey(validatingEncoding: [0x61]) }        // unterminated
        #expect(throws: StorageError.self) { try StorageKey(validatingEncoding: [0x01, 0x05, 0]) }  // bad escape
        #expect(throws: StorageError.self) { try StorageKey(validatingEncoding: [0]) }           // empty segment
    }
}
