import Testing

@testable import EmulatorHTTP

/// A parsed head takes literal `String`s for the field names and values most requests carry
/// (`HTTPCommonFieldText`); only exact byte matches may, so every field reads exactly as sent.
@Suite struct HTTPCommonFieldTextTests {
    /// Spellings that take a literal.
    static let common: [String] = [
        "*/*", "Host", "host", "Accept", "accept", "Origin", "origin", "Connection", "connection", "User-Agent",
        "user-agent", "keep-alive", "Content-Type", "content-type", "Bearer owner", "Authorization", "authorization",
        "Content-Length", "content-length", "Accept-Encoding", "accept-encoding", "application/json",
        "application/json; charset=utf-8",
    ]

    /// Near misses: other cases, extra or missing bytes.
    static let other: [String] = [
        "HOST", "Hosts", "Hos", "hOst", "ACCEPT", "Content-type", "CONTENT-LENGTH", "Bearer Owner", "bearer owner",
        "application/JSON", "application/jsonx", "application/json;charset=utf-8", "Authorisation", "", "x",
    ]

    @Test(arguments: common + other)
    func literalOnlyForExactBytes(_ text: String) {
        let bytes = Array(text.utf8)
        let literal = bytes.withUnsafeBufferPointer { HTTPCommonFieldText.text($0) }
        if Self.common.contains(text) {
            #expect(literal == text, "\(text) takes its literal")
        } else {
            #expect(literal == nil, "\(text) is made from its bytes")
        }
    }

    @Test func parsedFieldsReadAsSent() {
        let head = "PATCH /v1/x HTTP/1.1\r\nHost: 127.0.0.1:9\r\nContent-Type: application/json\r\n"
            + "Authorization: Bearer owner\r\nHOST: y\r\ncontent-type: application/JSON\r\n"
            + "authorization: Bearer Owner\r\nContent-Length: 2\r\n\r\n{}"
        var parser = HTTP1RequestParser()
        parser.append(Array(head.utf8))
        guard case .request(let parsed)? = parser.next() else {
            Issue.record("no request")
            return
        }
        let fields = parsed.request.headers.fields.map { "\($0.name)=\($0.value)" }
        #expect(fields == [
            "Host=127.0.0.1:9", "Content-Type=application/json", "Authorization=Bearer owner", "HOST=y",
            "content-type=application/JSON", "authorization=Bearer Owner", "Content-Length=2",
        ])
        #expect(parsed.request.body == Array("{}".utf8))
    }
}
