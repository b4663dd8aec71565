import Testing

@testable import EmulatorHTTP

/// A head whose lines end in a bare LF can never complete (the terminator is CRLF CRLF): it is a
/// 400 as soon as the LF arrives, not a 408 after the header timeout.
@Suite struct BareLineFeedTests {
    static let cases: [String] = [
        "GET / HTTP/1.1\n",  // request line only, nothing more sent
        "GET / HTTP/1.1\nHost: x\n\n",
        "GET / HTTP/1.1\r\nHost: x\n",
        "\nGET / HTTP/1.1\r\n\r\n",
        "\r\n\nGET / HTTP/1.1\r\n\r\n",
        "GET /a\nb HTTP/1.1\r\n\r\n",
    ]

    @Test(arguments: cases)
    func bareLFIsABadRequestAtOnce(input: String) {
        #expect(parse(Array(input.utf8)) == [.failure(400)])
        // Fed one byte at a time, too (the LF may arrive in a later read than its line).
        #expect(parse(Array(input.utf8), pieces: Array(repeating: 1, count: input.utf8.count)) == [.failure(400)])
    }

    /// LFs in a body are data, and a CR LF split across reads is still a line end.
    @Test func bodyBytesAndSplitLineEndsAreNotBareLFs() {
        let input = "POST /p HTTP/1.1\r\nContent-Length: 3\r\n\r\na\nb"
        #expect(parse(Array(input.utf8)) == [.request("POST", "/p", body: "a\nb", keepAlive: true)])
        let pieces = Array(repeating: 1, count: input.utf8.count)
        #expect(parse(Array(input.utf8), pieces: pieces) == [.request("POST", "/p", body: "a\nb", keepAlive: true)])
        let pipelined = "GET /a HTTP/1.1\r\n\r\nGET /b HTTP/1.1\nX: y\r\n\r\n"
        #expect(parse(Array(pipelined.utf8)) == [.request("GET", "/a", body: "", keepAlive: true), .failure(400)])
    }
}
