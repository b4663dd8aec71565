import Testing

@testable import EmulatorHTTP

/// How a request target splits into path and query, and how query items decode.
@Suite struct HTTPRequestTargetTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let target: String
        let path: String
        let query: String
        let items: [String]
        var testDescription: String { target }
    }

    static let cases: [Case] = [
        Case(target: "/a/b.json", path: "/a/b.json", query: "", items: []),
        Case(target: "/a?", path: "/a", query: "", items: []),
        Case(target: "/a?x=1&y=2", path: "/a", query: "x=1&y=2", items: ["x=1", "y=2"]),
        Case(target: "/?&&x=1&&y&", path: "/", query: "&&x=1&&y&", items: ["x=1", "y="]),
        Case(target: "/a?x=1=2", path: "/a", query: "x=1=2", items: ["x=1=2"]),
        Case(target: "/a?%41=%42&a+b=c+d", path: "/a", query: "%41=%42&a+b=c+d", items: ["A=B", "a b=c d"]),
        Case(target: "/é/ü?k=ö&n=%C3%A9", path: "/é/ü", query: "k=ö&n=%C3%A9", items: ["k=ö", "n=é"]),
        // A percent sequence that is not UTF-8 stays as sent.
        Case(target: "/a?bad=%FF", path: "/a", query: "bad=%FF", items: ["bad=%FF"]),
        Case(target: "/a?=v", path: "/a", query: "=v", items: ["=v"]),
        Case(target: "/a?q=%3F%26%3D", path: "/a", query: "q=%3F%26%3D", items: ["q=?&="]),
        Case(target: "/a/e\u{301}?x=e\u{301}", path: "/a/e\u{301}", query: "x=e\u{301}", items: ["x=e\u{301}"]),
    ]

    @Test(arguments: cases)
    func splitsAndDecodes(_ c: Case) {
        let request = HTTPRequest(method: .get, target: c.target)
        #expect(String(request.rawPath) == c.path)
        #expect(String(request.rawQuery) == c.query)
        #expect(request.queryItems.map { "\($0.name)=\($0.value)" } == c.items)
    }

    @Test func queryFindsTheFirstItemWithThatDecodedName() {
        let request = HTTPRequest(method: .get, target: "/a?print=pretty&%70rint=silent&orderBy=%22name%22&flag")
        #expect(request.query("print") == "pretty")
        #expect(request.query("orderBy") == "\"name\"")
        #expect(request.query("flag") == "")
        #expect(request.query("missing") == nil)
        #expect(HTTPRequest(method: .get, target: "/a").query("print") == nil)
    }
}
