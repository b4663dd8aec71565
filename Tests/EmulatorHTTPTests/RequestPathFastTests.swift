import Testing

@testable import EmulatorHTTP

/// The byte-level shortcuts of the request path agree with the general code they skip.
@Suite struct RequestPathFastTests {
    /// RFC 9110 `tchar`, spelled out as the parser spelled it before its bit table.
    static func isTchar(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    @Test func tokenTableHoldsExactlyTheTokenBytes() {
        for byte in UInt8.min...UInt8.max {
            #expect(HTTP1RequestParser.isTokenByte(byte) == Self.isTchar(byte), "byte \(byte)")
        }
    }

    @Test func methodsFromBytesMatchMethodsFromStrings() {
        for token in ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "get", "PROPFIND", "GETX", "PATC", "X"] {
            #expect(HTTPMethod(bytes: Array(token.utf8)) == HTTPMethod(token), "\(token)")
        }
    }

    @Test func plainContentLengthIsDigitsOnly() {
        #expect(HTTP1RequestParser.plainLength("0") == 0)
        #expect(HTTP1RequestParser.plainLength("1024") == 1024)
        #expect(HTTP1RequestParser.plainLength("999999999999999") == 999_999_999_999_999)
        for other in ["", " 1", "1 ", "1,1", "+1", "-1", "1e3", "0x10", "1000000000000000"] {
            #expect(HTTP1RequestParser.plainLength(other) == nil, "\(other.debugDescription)")
        }
    }

    /// Heads the shortcut frames and heads it hands to the general code answer alike.
    static let framingCases: [(String, [Seen])] = [
        ("PATCH /a HTTP/1.1\r\ncontent-LENGTH: 3\r\n\r\nabc", [.request("PATCH", "/a", body: "abc", keepAlive: true)]),
        ("PATCH /a HTTP/1.1\r\nContent-Length: 3, 3\r\n\r\nabc", [.request("PATCH", "/a", body: "abc", keepAlive: true)]),
        ("PATCH /a HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc",
         [.request("PATCH", "/a", body: "abc", keepAlive: true)]),
        ("PATCH /a HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", [.failure(400)]),
        ("PATCH /a HTTP/1.1\r\nContent-Length: 1000000000000000\r\n\r\n", [.failure(413)]),
        ("PATCH /a HTTP/1.1\r\nContent-Length: x\r\n\r\n", [.failure(400)]),
        ("PATCH /a HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", [.failure(400)]),
        ("PATCH /a HTTP/1.1\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
         [.request("PATCH", "/a", body: "abc", keepAlive: true)]),
        ("PATCH /a HTTP/1.1\r\nexpect: 100-continue\r\nContent-Length: 3\r\n\r\n", [.sendContinue]),
        ("GET /a HTTP/1.1\r\nCONNECTION: close\r\n\r\n", [.request("GET", "/a", body: "", keepAlive: false)]),
        ("GET /a HTTP/1.1\r\nContent-Lengthy: 3\r\n\r\n", [.request("GET", "/a", body: "", keepAlive: true)]),
    ]

    @Test(arguments: framingCases)
    func framing(input: String, expected: [Seen]) {
        #expect(parse(Array(input.utf8)) == expected)
    }

    @Test func fieldNamesMatchIgnoringASCIICaseOnly() {
        #expect(HTTPHeaders.namesMatch("Content-Length", "content-length"))
        #expect(HTTPHeaders.namesMatch("X-\u{E9}", "x-\u{E9}"))
        #expect(!HTTPHeaders.namesMatch("X-\u{E9}", "x-\u{C9}"))
        #expect(!HTTPHeaders.namesMatch("a[", "A{"))  // 0x5B and 0x7B differ only in bit 0x20
        #expect(!HTTPHeaders.namesMatch("Host", "Hos"))
        #expect(HTTPFieldName.matches(Array("EXPECT".utf8), "expect"))
        #expect(!HTTPFieldName.matches(Array("EXPECTS".utf8), "expect"))
    }

    @Test func percentDecodingWithoutEscapesKeepsTheText() {
        #expect(PercentEncoding.decode("caf\u{E9}/a+b"[...]) == "caf\u{E9}/a+b")
        #expect(PercentEncoding.decode("a+b"[...], plusIsSpace: true) == "a b")
        #expect(PercentEncoding.decode("a%2Fb"[...]) == "a/b")
        #expect(PercentEncoding.decode("a%2"[...]) == nil)
    }

    @Test func routeParametersAreWorkedOutWhenRead() {
        var router = Router()
        router.add(.get, "/v1/:id/*") { .text("\($0.parameters["id"] ?? "?") \($0.parameters["*"] ?? "?")") }
        let client = InProcessClient(router: router)
        #expect(client.get("/v1/a%20b/c/d%2Fe?x=1").bodyText == "a b c/d/e")
        #expect(client.get("/v1/a").bodyText == "a ")
        #expect(client.get("/v2/a").status == .notFound)
        #expect(Router.matches(Router.segments("/a/:b"[...]), "//a//x/"[...]))
        #expect(!Router.matches(Router.segments("/a/:b"[...]), "/a/x/y"[...]))
        #expect(!Router.matches(Router.segments("/a/:b"[...]), "/a"[...]))
    }
}
