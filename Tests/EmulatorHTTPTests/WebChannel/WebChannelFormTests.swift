import EmulatorHTTP
import Testing

@Suite("WebChannel form bodies")
struct WebChannelFormTests {
    @Test("an opening body: headers, count, ofs and the req{i}___data__ JSON")
    func opening() throws {
        let body = "headers=X-Goog-Api-Client%3Agl-js%2F%20fire%2F10.12.2%0D%0AContent-Type%3Atext%2Fplain%0D%0AAuthorization%3ABearer%20abc%0D%0A"
            + "&count=2&ofs=0&req0___data__=%7B%22database%22%3A%22projects%2Fp%2Fdatabases%2F(default)%22%7D"
            + "&req1___data__=%7B%22a%22%3A%22%F0%9F%98%80+x%22%7D"
        let form = try WebChannelForm(parsing: Array(body.utf8))
        #expect(form.offset == 0)
        #expect(form.messages == [Array(#"{"database":"projects/p/databases/(default)"}"#.utf8), Array(#"{"a":"😀 x"}"#.utf8)])
        #expect(form.headers.map(\.name) == ["X-Goog-Api-Client", "Content-Type", "Authorization"])
        #expect(form.header("authorization") == "Bearer abc")
        #expect(form.header("X-Goog-Api-Client") == "gl-js/ fire/10.12.2")
    }

    @Test("fields in any order, a terminate's empty body")
    func order() throws {
        let form = try WebChannelForm(parsing: Array("req1___data__=2&ofs=7&req0___data__=1&count=2".utf8))
        #expect(form.offset == 7)
        #expect(form.messages == [[0x31], [0x32]])
        #expect(try WebChannelForm(parsing: []) == WebChannelForm(offset: 0, messages: []))
    }

    static let garbled: [(body: String, reason: String)] = [
        ("count=1&ofs=0&req0___data__=%7", "malformed escape"),
        ("count=1&ofs=0&req0___data__=%zz", "malformed escape"),
        ("count=x&ofs=0", "count not a number"),
        ("count=-1&ofs=0", "negative count"),
        ("count=2&ofs=0&req0___data__=%7B%7D", "count says 2, one req sent"),
        ("count=1&ofs=0&req0___data__=1&req1___data__=2", "count says 1, two sent"),
        ("count=1&ofs=0&req1___data__=1", "req1 without req0"),
        ("count=1&ofs=0&req0___data__=1&req0___data__=1", "req0 twice"),
        ("count=1&req0___data__=1", "no ofs"),
        ("count=1&ofs=1e3&req0___data__=1", "ofs not a decimal"),
        ("count=1&count=1&ofs=0&req0___data__=1", "count twice"),
        ("count=1001&ofs=0", "too many messages"),
        ("count=0&ofs=0&req0___data__=1", "a message with count 0"),
        ("ofs=0&req0___data__=1", "a message without count"),
        ("count=1&ofs=0&req99999999___data__=1", "an index past the limit"),
        ("%ff=1", "a field name that is not UTF-8"),
    ]

    @Test("garbled bodies are refused with a reason", arguments: garbled)
    func refused(_ item: (body: String, reason: String)) {
        #expect(throws: WebChannelForm.ParseError.self, "\(item.reason)") {
            try WebChannelForm(parsing: Array(item.body.utf8))
        }
    }
}
