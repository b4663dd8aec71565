import DatabaseEmulator
import EmulatorHTTP
import EmulatorSupport
import Testing

/// Every bad request is a 400 with the official text, and leaves the store unchanged.
@Suite struct BadInputTests {
    static let initial = #"{"keep":{"a":1,"b":2}}"#
    static let keyError = "Key value can't be empty or contain $ # [ ] / or ."

    func check(_ method: HTTPMethod, _ target: String, _ body: String, status: Int = 400, message: String? = nil,
               messageSuffix: String? = nil) {
        let db = DatabaseTestClient()
        db.put("/.json?ns=b", Self.initial)
        let r = db.send(method, target, body)
        #expect(r.status.code == status, "\(method.token) \(target) \(body)")
        if let message { #expect(errorText(r) == message) }
        if let messageSuffix { #expect(errorText(r)?.hasSuffix(messageSuffix) == true, "\(errorText(r) ?? "nil")") }
        #expect(db.value("/.json?ns=b") == j(Self.initial), "store changed by \(target)")
    }

    @Test(arguments: ["{", "{\"a\":}", "nope", "", "[1,]", "{'a':1}"])
    func invalidJSON(body: String) {
        check(.put, "/keep.json?ns=b", body, message: "Invalid data; couldn't parse JSON object, array, or value.")
        check(.post, "/keep.json?ns=b", body, message: "Invalid data; couldn't parse JSON object, array, or value.")
    }

    @Test(arguments: ["a.b", "a$b", "a#b", "a[b", "a]b", "", "tab\tkey", "del\u{7F}"])
    func invalidKeysInData(key: String) {
        var escaped: [UInt8] = []
        for c in key.utf8 {
            if c < 0x20 || c == 0x7F { escaped += Array(String(format: c).utf8) } else { escaped.append(c) }
        }
        let body = "{\"x\":{\"" + String(decoding: escaped, as: UTF8.self) + "\":1}}"
        check(.put, "/keep.json?ns=b", body, messageSuffix: Self.keyError)
        check(.patch, "/keep.json?ns=b", "{\"a\":5,\"c/" + String(decoding: escaped, as: UTF8.self) + "/d\":1}", messageSuffix: Self.keyError)
    }

    @Test func keyErrorReportsThePosition() {
        let db = DatabaseTestClient()
        let r = db.put("/x.json?ns=b", #"{"a.b":1}"#)
        #expect(errorText(r) == "Invalid data; couldn't parse key beginning at 1:2. " + Self.keyError)
    }

    @Test(arguments: ["/a.b/c.json", "/a$/c.json", "/a%23b.json", "/a%5Bb.json", "/a%01b.json", "/%zz.json"])
    func invalidKeysInPath(target: String) {
        check(.put, target + "?ns=b", "1", message: "Invalid path: Invalid token in path")
        check(.get, target + "?ns=b", "", message: "Invalid path: Invalid token in path")
    }

    @Test func pathDepthAndKeyLength() {
        let deep = "/" + (1...33).map { "k\($0)" }.joined(separator: "/") + ".json?ns=b"
        check(.put, deep, "1")
        let ok = "/" + (1...32).map { "k\($0)" }.joined(separator: "/") + ".json?ns=b"
        let db = DatabaseTestClient()
        #expect(db.put(ok, "1").status.code == 200)
        check(.put, "/" + String(repeating: "k", count: 769) + ".json?ns=b", "1")
        #expect(db.put("/" + String(repeating: "k", count: 768) + ".json?ns=b", "1").status.code == 200)
        // Depth counts the nested keys of the value too.
        var nested = "1"
        for _ in 0..<31 { nested = "{\"n\":" + nested + "}" }
        check(.put, "/a/b.json?ns=b", nested)
        check(.put, "/keep.json?ns=b", "{\"" + String(repeating: "k", count: 769) + "\":1}")
    }

    @Test(arguments: [
        #"{".sv":"later"}"#, #"{".sv":{"increment":"x"}}"#, #"{".sv":{"decrement":1}}"#, #"{"a":{".sv":5}}"#,
    ])
    func unknownServerValues(body: String) {
        check(.put, "/keep/a.json?ns=b", body, message: "Invalid data; unrecognized server value.")
        check(.patch, "/keep.json?ns=b", #"{"a":2,"b":"# + body + "}")
    }

    @Test func patchWithOneBadPathWritesNothing() {
        check(.patch, "/keep.json?ns=b", #"{"a":100,"b/c.d":1}"#, messageSuffix: Self.keyError)
        check(.patch, "/keep.json?ns=b", #"{"a":100,"x":{"y":{".sv":"nope"}}}"#)
        check(.patch, "/keep.json?ns=b", #"{"a":100,"a/b":1}"#)
        check(.patch, "/keep.json?ns=b", "[1,2]",
              message: "Invalid data; couldn't parse JSON object. Are you sending a JSON object with valid key names?")
        check(.patch, "/keep.json?ns=b", "5",
              message: "Invalid data; couldn't parse JSON object. Are you sending a JSON object with valid key names?")
    }

    @Test(arguments: [
        ("orderBy=v", "orderBy must be a valid JSON encoded path"),
        ("limitToFirst=2", "orderBy must be defined when other query parameters are defined"),
        ("startAt=1", "orderBy must be defined when other query parameters are defined"),
        ("orderBy=%22v%22&limitToFirst=1&limitToLast=1", "Only one of limitToFirst and limitToLast may be specified"),
        ("orderBy=%22v%22&limitToFirst=0", nil),
        ("orderBy=%22v%22&limitToFirst=x", nil),
        ("orderBy=%22v%22&equalTo=1&startAt=1", "equalTo cannot be specified in addition to startAfter, startAt, endAt, or endBefore"),
        ("orderBy=%22v%22&startAt=1&startAfter=1", nil),
        ("orderBy=%22v%22&startAt=%7B%7D", "Constraint index field must be a JSON primitive"),
        ("orderBy=%22v%22&equalTo=bob", "Constraint index field must be a JSON primitive"),
        ("orderBy=%22$key%22&startAt=1", nil),
        ("orderBy=%22v%22&shallow=true", nil),
        ("print=loud", nil),
        ("format=xml", nil),
        ("timeout=0ms", nil),
        ("timeout=16min", nil),
        ("timeout=abc", nil),
        ("writeSizeLimit=huge", nil),
    ])
    func contradictoryOrInvalidQueryParameters(query: String, message: String?) {
        check(.get, "/keep.json?ns=b&" + query, "", message: message)
    }

    @Test func invalidParameterOnAWriteWritesNothing() {
        check(.put, "/keep.json?ns=b&writeSizeLimit=huge", "1")
        check(.put, "/keep.json?ns=b&print=loud", "1")
    }

    @Test func badAuthTokenIs401() {
        let db = DatabaseTestClient()
        let r = db.get("/keep.json?ns=b&auth=not-a-token")
        #expect(r.status.code == 401)
        #expect(errorText(r) == "Could not parse auth token.")
    }
}

extension String {
    /// `\u00XX` for a control byte.
    fileprivate init(format byte: UInt8) {
        let digits = Array("0123456789abcdef")
        self = "\\u00" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 15)])
    }
}
