import Testing

@testable import EmulatorHTTP

@Suite struct HTTP1RequestParserTests {
    @Test func simpleGet() {
        #expect(parse("GET /a?b=1 HTTP/1.1\r\nHost: x\r\n\r\n") == [.request("GET", "/a?b=1", body: "", keepAlive: true)])
    }

    @Test func headersAreTrimmedAndKeptInOrder() {
        var parser = HTTP1RequestParser()
        parser.append(Array("PUT /x HTTP/1.1\r\nHost:  h \r\nX-A:\t1\r\nx-a: 2\r\nContent-Length: 0\r\n\r\n".utf8))
        guard case .request(let parsed)? = parser.next() else {
            Issue.record("no request")
            return
        }
        #expect(parsed.request.headers["host"] == "h")
        #expect(parsed.request.headers.values("X-A") == ["1", "2"])
        #expect(parsed.request.method == .put)
    }

    static let keepAliveCases: [(String, Bool)] = [
        ("GET / HTTP/1.1\r\n\r\n", true),
        ("GET / HTTP/1.1\r\nConnection: close\r\n\r\n", false),
        ("GET / HTTP/1.1\r\nConnection: Upgrade, Close\r\n\r\n", false),
        ("GET / HTTP/1.0\r\n\r\n", false),
        ("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", true),
        ("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", true),
    ]

    @Test(arguments: keepAliveCases)
    func keepAliveRules(input: String, keepAlive: Bool) {
        #expect(parse(input) == [.request("GET", "/", body: "", keepAlive: keepAlive)])
    }

    static let badRequests: [(String, Int)] = [
        ("GET\r\n\r\n", 400),
        ("GET /\r\n\r\n", 400),
        ("GET / HTTP/1.1 extra\r\n\r\n", 400),
        (" GET / HTTP/1.1\r\n\r\n", 400),
        ("G(T / HTTP/1.1\r\n\r\n", 400),
        ("GET /a b HTTP/1.1\r\n\r\n", 400),
        ("GET / HTTQ/1.1\r\n\r\n", 400),
        ("GET / HTTP/1.x\r\n\r\n", 400),
        ("GET / HTTP/2.0\r\n\r\n", 505),
        ("GET / HTTP/1.2\r\n\r\n", 505),
        ("GET / HTTP/1.1\r\nNo colon\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nBad Name: x\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\n: empty\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nA: 1\r\n folded\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nA: 1\n2\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nA: \u{01}\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nContent-Length: abc\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501),
        ("POST / HTTP/1.1\r\nExpect: something\r\nContent-Length: 1\r\n\r\nx", 417),
    ]

    @Test(arguments: badRequests)
    func malformedHeadsAreRejected(input: String, status: Int) {
        #expect(parse(input) == [.failure(status)])
    }

    @Test func failedParserStaysFailed() {
        var parser = HTTP1RequestParser()
        parser.append(Array("BAD\r\n\r\nGET / HTTP/1.1\r\n\r\n".utf8))
        #expect(parser.next().map(Seen.init) == .failure(400))
        #expect(parser.next() == nil)
    }

    @Test func emptyLinesBeforeRequestAreIgnored() {
        #expect(parse("\r\n\r\nGET / HTTP/1.1\r\n\r\n") == [.request("GET", "/", body: "", keepAlive: true)])
    }

    // MARK: - Limits

    @Test func headOverLimitIs431() {
        let big = "GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 70_000) + "\r\n\r\n"
        #expect(parse(big) == [.failure(431)])
    }

    @Test func headOverLimitIs431BeforeTheTerminatorArrives() {
        // The client never finishes the head; the parser must not buffer without bound.
        let endless = "GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 70_000)
        #expect(parse(endless) == [.failure(431)])
    }

    @Test func headJustUnderLimitIsAccepted() {
        let limits = HTTP1Limits(maxHeadBytes: 100)
        let head = "GET / HTTP/1.1\r\nX: "
        let filler = String(repeating: "a", count: 100 - head.utf8.count - 4)
        #expect(parse(head + filler + "\r\n\r\n", limits: limits) == [.request("GET", "/", body: "", keepAlive: true)])
        #expect(parse(head + filler + "a\r\n\r\n", limits: limits) == [.failure(431)])
    }

    @Test func tooManyHeadersIs431() {
        let limits = HTTP1Limits(maxHeaderCount: 3)
        #expect(parse("GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", limits: limits).count == 1)
        #expect(parse("GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n", limits: limits) == [.failure(431)])
    }

    @Test func contentLengthOverMaxIs413WithoutWaitingForTheBody() {
        let limits = HTTP1Limits(maxBodyBytes: 10)
        #expect(parse("POST / HTTP/1.1\r\nContent-Length: 11\r\n\r\n", limits: limits) == [.failure(413)])
        #expect(parse("POST / HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n") == [.failure(413)])
        #expect(
            parse("POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\n0123456789", limits: limits)
                == [.request("POST", "/", body: "0123456789", keepAlive: true)])
    }

    @Test func chunkedBodyOverMaxIs413() {
        let limits = HTTP1Limits(maxBodyBytes: 5)
        let input = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n3\r\ndef\r\n0\r\n\r\n"
        #expect(parse(input, limits: limits) == [.failure(413)])
    }

    @Test func expectContinueOverMaxIs413InsteadOfContinue() {
        let limits = HTTP1Limits(maxBodyBytes: 5)
        #expect(
            parse("PUT / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 6\r\n\r\n", limits: limits)
                == [.failure(413)])
    }

    // MARK: - Bodies

    @Test func contentLengthBody() {
        #expect(
            parse("POST /p HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello")
                == [.request("POST", "/p", body: "hello", keepAlive: true)])
    }

    static let chunkedCases: [(String, String)] = [
        ("5\r\nhello\r\n0\r\n\r\n", "hello"),
        ("5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", "hello world"),
        ("A\r\n0123456789\r\n0\r\n\r\n", "0123456789"),
        ("a;ext=1\r\n0123456789\r\n0\r\n\r\n", "0123456789"),
        ("5 \r\nhello\r\n0\r\n\r\n", "hello"),
        ("0\r\n\r\n", ""),
        ("3\r\nabc\r\n0\r\nX-Trailer: 1\r\nY: 2\r\n\r\n", "abc"),
        ("000003\r\nabc\r\n00\r\n\r\n", "abc"),
    ]

    @Test(arguments: chunkedCases)
    func chunkedBodies(chunks: String, body: String) {
        let input = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks
        #expect(parse(input) == [.request("POST", "/", body: body, keepAlive: true)])
    }

    static let badChunks: [String] = [
        "x\r\nabc\r\n0\r\n\r\n",
        "\r\nabc\r\n0\r\n\r\n",
        "3\r\nabcX\r\n0\r\n\r\n",
        "3\nabc\r\n0\r\n\r\n",
        "3zz\r\nabc\r\n0\r\n\r\n",
    ]

    @Test(arguments: badChunks)
    func malformedChunksAre400(chunks: String) {
        let input = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks
        #expect(parse(input) == [.failure(400)])
    }

    @Test func hugeChunkSizeIs413() {
        let input = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n"
        #expect(parse(input) == [.failure(413)])
    }

    @Test func chunkedWaitsForTheLastChunk() {
        #expect(parse("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n").isEmpty)
    }

    // MARK: - Pipelining

    static let pipelined =
        "GET /1 HTTP/1.1\r\nHost: x\r\n\r\n"
        + "POST /2 HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc"
        + "PUT /3 HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n1;x\r\n!\r\n0\r\nT: 1\r\n\r\n"
        + "DELETE /4 HTTP/1.1\r\nConnection: close\r\n\r\n"

    static let pipelinedEvents: [Seen] = [
        .request("GET", "/1", body: "", keepAlive: true),
        .request("POST", "/2", body: "abc", keepAlive: true),
        .request("PUT", "/3", body: "hi!", keepAlive: true),
        .request("DELETE", "/4", body: "", keepAlive: false),
    ]

    @Test func pipelinedRequestsInOneBuffer() {
        #expect(parse(Self.pipelined) == Self.pipelinedEvents)
    }

    @Test func pipelinedRequestsSplitAtEveryByteBoundary() {
        let bytes = Array(Self.pipelined.utf8)
        for split in 1..<bytes.count {
            let seen = parse(bytes, pieces: [split])
            #expect(seen == Self.pipelinedEvents, "split at \(split)")
        }
    }

    @Test func pipelinedRequestsOneByteAtATime() {
        let bytes = Array(Self.pipelined.utf8)
        #expect(parse(bytes, pieces: Array(repeating: 1, count: bytes.count)) == Self.pipelinedEvents)
    }

    @Test func leftoverBytesStayBuffered() {
        var parser = HTTP1RequestParser()
        parser.append(Array("GET /a HTTP/1.1\r\n\r\nGET /b HT".utf8))
        #expect(parser.next().map(Seen.init) == .request("GET", "/a", body: "", keepAlive: true))
        #expect(parser.next() == nil)
        #expect(parser.bufferedCount == 9)
        parser.append(Array("TP/1.1\r\n\r\n".utf8))
        #expect(parser.next().map(Seen.init) == .request("GET", "/b", body: "", keepAlive: true))
        #expect(parser.isIdle)
    }

    // MARK: - 100-continue

    @Test func expectContinueIsAnnouncedBeforeTheBody() {
        var parser = HTTP1RequestParser()
        parser.append(Array("PUT /x HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n".utf8))
        #expect(parser.next().map(Seen.init) == .sendContinue)
        #expect(parser.next() == nil)
        parser.append(Array("data".utf8))
        #expect(parser.next().map(Seen.init) == .request("PUT", "/x", body: "data", keepAlive: true))
    }

    @Test func expectContinueWithChunkedBody() {
        let head = "POST / HTTP/1.1\r\nExpect: 100-Continue\r\nTransfer-Encoding: chunked\r\n\r\n"
        #expect(parse(head + "1\r\na\r\n0\r\n\r\n", pieces: [head.utf8.count]) == [
            .sendContinue, .request("POST", "/", body: "a", keepAlive: true),
        ])
    }

    @Test func expectContinueIsSkippedWhenTheBodyIsAlreadyHere() {
        #expect(
            parse("PUT /x HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nok")
                == [.request("PUT", "/x", body: "ok", keepAlive: true)])
    }

    @Test func expectContinueIsIgnoredOnHTTP10() {
        let head = "PUT /x HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n"
        #expect(parse(head + "ok", pieces: [head.utf8.count]) == [.request("PUT", "/x", body: "ok", keepAlive: false)])
    }

    // MARK: - HTTP/2 preface

    static let preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

    @Test func http2PrefaceIsDetected() {
        var parser = HTTP1RequestParser()
        parser.append(Array((Self.preface + "\u{0}\u{0}\u{0}").utf8))
        #expect(parser.next().map(Seen.init) == .http2)
        #expect(parser.takeBuffered() == Array((Self.preface + "\u{0}\u{0}\u{0}").utf8))
        #expect(parser.next() == nil)
    }

    @Test func http2PrefaceSplitAtEveryByte() {
        let bytes = Array(Self.preface.utf8)
        for split in 1..<bytes.count {
            #expect(parse(bytes, pieces: [split]) == [.http2], "split at \(split)")
        }
    }

    @Test func aPostIsNotMistakenForThePreface() {
        #expect(parse("POST / HTTP/1.1\r\n\r\n", pieces: [1, 1]) == [.request("POST", "/", body: "", keepAlive: true)])
        #expect(parse("PRI / HTTP/1.1\r\n\r\n") == [.request("PRI", "/", body: "", keepAlive: true)])
    }
}
