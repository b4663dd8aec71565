import Synchronization
import Testing

@testable import EmulatorModel

@Suite("Realtime Database paths and push ids")
struct DatabasePathTests {
    static let parseCases: [(String, [String])] = [
        ("", []), ("/", []), ("/a/b/c", ["a", "b", "c"]), ("a//b/", ["a", "b"]), ("/users/\u{E9}", ["users", "\u{E9}"]),
    ]

    @Test("parses slash-separated keys", arguments: parseCases)
    func parse(text: String, keys: [String]) throws {
        #expect(try DatabasePath(parsing: text).keys == keys)
    }

    @Test("percent-decodes URL segments")
    func percent() throws {
        #expect(try DatabasePath(parsing: "/a%20b/%C3%A9", percentDecoded: true).keys == ["a b", "\u{E9}"])
        #expect(throws: EmulatorError.self) { try DatabasePath(parsing: "/a%2Fb", percentDecoded: true) }
        #expect(throws: EmulatorError.self) { try DatabasePath(parsing: "/a%ZZ", percentDecoded: true) }
        #expect(throws: EmulatorError.self) { try DatabasePath(parsing: "/a%C3", percentDecoded: true) }
    }

    @Test("invalid keys are rejected", arguments: ["/a.b", "/a$b", "/a#", "/a[0]", "/b]", "/a\u{01}", "/a\u{7F}", "/\n"])
    func invalidKeys(text: String) {
        #expect(throws: EmulatorError.self) { try DatabasePath(parsing: text) }
    }

    @Test("limits: 768-byte keys and 32 levels")
    func limits() throws {
        try DatabasePath.validateKey(String(repeating: "\u{E9}", count: 384))
        #expect(throws: EmulatorError.self) { try DatabasePath.validateKey(String(repeating: "a", count: 769)) }
        let deep = (0..<32).map { "k\($0)" }.joined(separator: "/")
        #expect(try DatabasePath(parsing: deep).count == 32)
        #expect(
            throws: EmulatorError.invalidArgument(
                "Path \"\(deep)/x\" specified exceeds the maximum depth that can be written (32).")
        ) { try DatabasePath(parsing: deep + "/x") }
    }

    @Test("parent, child, ancestry; canonically equivalent keys differ")
    func navigation() throws {
        let p = try DatabasePath(parsing: "/a/b")
        #expect(p.parent == (try DatabasePath(parsing: "/a")))
        #expect(p.child("c").description == "/a/b/c")
        #expect(DatabasePath.root.description == "/")
        #expect(DatabasePath.root.isAncestor(of: p) && p.isAncestor(of: p) && !p.isAncestor(of: p.parent ?? .root))
        #expect(p.child("c").relative(to: p)?.keys == ["c"])
        #expect(DatabasePath(keys: ["\u{E9}"]) != DatabasePath(keys: ["e\u{301}"]))
    }

    @Test("push ids: 20 characters, time prefix, strictly increasing")
    func pushIDs() {
        let gen = PushIdGenerator()
        var previous = ""
        for i in 0..<2000 {
            let ms: Int64 = 1_700_000_000_000 + Int64(i / 500)  // many ids per millisecond
            let id = gen.next(milliseconds: ms)
            #expect(id.utf8.count == 20)
            #expect(id.utf8.allSatisfy { PushIdGenerator.alphabet.contains($0) })
            #expect(UTF8Order.compare(previous, id) < 0, "\(previous) !< \(id)")
            #expect(DatabaseOrder.compareKeys(previous, id) < 0 || i == 0)
            previous = id
        }
        // A clock that steps back still yields increasing ids.
        let back = gen.next(milliseconds: 1_600_000_000_000)
        #expect(UTF8Order.compare(previous, back) < 0)
        // The first 8 characters encode the milliseconds.
        let id = PushIdGenerator().next(milliseconds: 0)
        #expect(id.hasPrefix("--------"))
        #expect(UTF8Order.compare(PushIdGenerator().next(), PushIdGenerator().next(milliseconds: 1_000_000_000_000)) > 0)
    }
}

@Suite("Realtime Database error texts")
struct DatabaseErrorTextTests {
    @Test("a bad path segment and a bad key carry their messages")
    func texts() {
        #expect(throws: EmulatorError.invalidArgument("Invalid path: Invalid token in path")) {
            try DatabasePath(parsing: "/a/b.c")
        }
        #expect(
            throws: EmulatorError.invalidArgument(
                "Invalid key \"b$\". Key value can't be empty or contain $ # [ ] / or . or ASCII control characters.")
        ) { try DatabasePath.validateKey("b$") }
    }
}
