import EmulatorTestSupport
import Testing

@testable import EmulatorHTTP

/// The parser reads a head in one pass over its bytes; ``ReferenceHTTP1RequestParser`` is the
/// line-by-line parser it replaced. On hostile input, fed whole, a byte at a time and in random
/// pieces, both must report the same events (every field of every request, each failure's status)
/// and leave the same bytes buffered.
@Suite struct HeadParserAgreementTests {
    static let table: [[UInt8]] = [
        "GET /a HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET /v1/projects/p/databases/(default)/documents/c/d?mask.fieldPaths=a&x HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET /?? HTTP/1.1\r\n\r\n", "GET /a?b=%20+c HTTP/1.1\r\n\r\n", "GET * HTTP/1.1\r\n\r\n",
        // Folded and malformed field lines.
        "GET / HTTP/1.1\r\nA: b\r\n c\r\n\r\n", "GET / HTTP/1.1\r\n\tA: b\r\n\r\n", "GET / HTTP/1.1\r\n: v\r\n\r\n",
        "GET / HTTP/1.1\r\nnocolon\r\n\r\n", "GET / HTTP/1.1\r\nHost : x\r\n\r\n", "GET / HTTP/1.1\r\nA::b\r\n\r\n",
        "GET / HTTP/1.1\r\nA:   b \t \r\nB:\r\nC:\t\r\nD: x\ty\r\n\r\n", "GET / HTTP/1.1\r\nA: b\u{7F}\r\n\r\n",
        "GET / HTTP/1.1\r\nA\u{1}: b\r\n\r\n", "GET / HTTP/1.1\r\nA: b\u{0}c\r\n\r\n",
        // Duplicate and odd Content-Length fields.
        "POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc",
        "POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
        "POST / HTTP/1.1\r\nContent-Length: 3, 3\r\n\r\nabc", "POST / HTTP/1.1\r\nContent-Length:  3 \r\n\r\nabc",
        "POST / HTTP/1.1\r\nContent-Length: +3\r\n\r\nabc", "POST / HTTP/1.1\r\nContent-Length: 0x3\r\n\r\nabc",
        "POST / HTTP/1.1\r\nContent-Length: 1234567890123456\r\n\r\n", "POST / HTTP/1.1\r\ncontent-LENGTH: 2\r\n\r\nab",
        "POST / HTTP/1.1\r\nContent-Length: 3,\r\n\r\nabc", "POST / HTTP/1.1\r\nContent-Length:\r\n\r\n",
        // Bare LF and bare CR, in the head and after it.
        "GET / HTTP/1.1\nHost: x\r\n\r\n", "GET / HTTP/1.1\r\nHost: x\n\r\n", "\nGET / HTTP/1.1\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\n\n", "GET / HTTP/1.1\r\nHost: x\r\n\r\n\n", "\r\n\nGET / HTTP/1.1\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: 2\r\n\r\n\n\n", "GET / HTTP/1.1\r\nA: b\rc\r\n\r\n",
        "GET /\r HTTP/1.1\r\n\r\n", "GET / HTTP/1.1\r\r\n\r\n", "GET / HTTP/1.1\r\nA: b\r\r\n\r\n", "\r\rGET / HTTP/1.1\r\n\r\n",
        // Request lines.
        "GET  / HTTP/1.1\r\n\r\n", "GET / HTTP/1.1 \r\n\r\n", "GET / HTTP/2.0\r\n\r\n", "GET / HTTP/1.2\r\n\r\n",
        "GET / http/1.1\r\n\r\n", "GET / HTTP/1.x\r\n\r\n", "G@T / HTTP/1.1\r\n\r\n", " GET / HTTP/1.1\r\n\r\n",
        "GET /a\u{7F} HTTP/1.1\r\n\r\n", "GET\r\n\r\n", "GET /\r\n\r\n", "BREW /pot HTTP/1.1\r\n\r\n",
        "\r\n\r\nGET / HTTP/1.1\r\n\r\n", "\r\nGET / HTTP/1.0\r\n\r\n",
        // Connection semantics.
        "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", "GET / HTTP/1.1\r\nConnection: keep-alive, close\r\n\r\n",
        "GET / HTTP/1.1\r\nCONNECTION: Close\r\n\r\n", "GET / HTTP/1.0\r\nConnection: upgrade\r\nConnection: Keep-Alive\r\n\r\n",
        // Framing by Transfer-Encoding and Expect.
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nT: x\r\n\r\n",
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n",
        "POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
        "PUT /x HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\ndata",
        "PUT /x HTTP/1.1\r\nExpect: something\r\nContent-Length: 4\r\n\r\ndata",
        // Pipelining, the HTTP/2 preface, limits.
        "GET /1 HTTP/1.1\r\n\r\nPOST /2 HTTP/1.1\r\nContent-Length: 1\r\n\r\nxGET /3 HTTP/1.1\r\nConnection: close\r\n\r\n",
        "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\nrest", "PRI * HTTP/2.0\r\n\r\nSX\r\n\r\n",
        "GET / HTTP/1.1\r\n" + String(repeating: "A: b\r\n", count: 8) + "\r\n",
        "GET / HTTP/1.1\r\n" + String(repeating: "A: b\r\n", count: 9) + "\r\n",
        "GET / HTTP/1.1\r\nA: " + String(repeating: "x", count: 300) + "\r\n\r\n",
        "GET / HTTP/1.1\r\nA: " + String(repeating: "x", count: 300),
        "POST / HTTP/1.1\r\nContent-Length: 65\r\n\r\n",
    ].map { Array($0.utf8) } + [
        // obs-text (bytes 0x80–0xFF, not always UTF-8) in a value, and in a name and the target.
        Array("GET / HTTP/1.1\r\nX: caf".utf8) + [0xC3, 0xA9, 0x20, 0xFF, 0xFE] + Array("\r\n\r\n".utf8),
        Array("GET / HTTP/1.1\r\nX".utf8) + [0xC3, 0xA9] + Array(": v\r\n\r\n".utf8),
        Array("GET /".utf8) + [0xC3, 0xA9] + Array(" HTTP/1.1\r\n\r\n".utf8),
    ]

    static let limits = HTTP1Limits(maxHeadBytes: 256, maxHeaderCount: 8, maxBodyBytes: 64)

    @Test(arguments: table)
    func agreesOnHostileInput(_ input: [UInt8]) {
        #expect(Self.run(input, pieces: []) == Self.runReference(input, pieces: []))
        let bytewise = Array(repeating: 1, count: input.count)
        #expect(Self.run(input, pieces: bytewise) == Self.runReference(input, pieces: bytewise))
        for split in stride(from: 1, to: input.count, by: 7) {
            #expect(Self.run(input, pieces: [split]) == Self.runReference(input, pieces: [split]), "split at \(split)")
        }
    }

    /// Bytes a mutation puts in: the head's separators, digits, and bytes it must refuse.
    static let interesting: [UInt8] = Array("\r\n :;,0123456789abcdefABCDEF\t?%\u{0}\u{7f}".utf8) + [0x80, 0xC3, 0xFF]

    /// Changes `bytes` `times` times: each a random byte of `interesting` put in place of one,
    /// one byte taken out, or one byte put in.
    static func mutate(_ bytes: inout [UInt8], times: Int, using random: inout SeededGenerator) {
        for _ in 0..<times {
            let position = Int.random(in: 0..<max(1, bytes.count), using: &random)
            let byte = interesting.randomElement(using: &random) ?? 0
            switch Int.random(in: 0..<3, using: &random) {
            case 0 where position < bytes.count: bytes[position] = byte
            case 1 where position < bytes.count: bytes.remove(at: position)
            default: bytes.insert(byte, at: min(position, bytes.count))
            }
        }
    }

    @Test func agreesOnMutatedInput() {
        var random = SeededGenerator(seed: 23)
        for round in 0..<4000 {
            var bytes = Self.table[round % Self.table.count]
            Self.mutate(&bytes, times: Int.random(in: 1...6, using: &random), using: &random)
            let pieces = (0..<Int.random(in: 0...3, using: &random)).map { _ in Int.random(in: 1...40, using: &random) }
            let ours = Self.run(bytes, pieces: pieces)
            let reference = Self.runReference(bytes, pieces: pieces)
            #expect(ours == reference, "input \(String(decoding: bytes, as: UTF8.self).debugDescription) pieces \(pieces)")
            if ours != reference { return }
        }
    }

    /// What one run shows: each event in order, then what stays buffered and whether the parser is idle.
    static func run(_ input: [UInt8], pieces: [Int]) -> [String] {
        var parser = HTTP1RequestParser(limits: limits)
        return feed(input, pieces: pieces, append: { parser.append($0) }, next: { parser.next() }) {
            "buffered \(parser.bufferedCount) idle \(parser.isIdle)"
        }
    }

    static func runReference(_ input: [UInt8], pieces: [Int]) -> [String] {
        var parser = ReferenceHTTP1RequestParser(limits: limits)
        return feed(input, pieces: pieces, append: { parser.append($0) }, next: { parser.next() }) {
            "buffered \(parser.bufferedCount) idle \(parser.isIdle)"
        }
    }

    private static func feed(
        _ input: [UInt8], pieces: [Int], append: (ArraySlice<UInt8>) -> Void, next: () -> HTTP1ParserEvent?,
        end: () -> String
    ) -> [String] {
        var seen: [String] = []
        var offset = 0
        for size in pieces + [input.count] where offset < input.count {
            let stop = min(input.count, offset + size)
            append(input[offset..<stop])
            offset = stop
            while let event = next() { seen.append(describe(event)) }
        }
        seen.append(end())
        return seen
    }

    static func describe(_ event: HTTP1ParserEvent) -> String {
        switch event {
        case .request(let parsed):
            let r = parsed.request
            let fields = r.headers.fields.map { "\($0.name.debugDescription):\($0.value.debugDescription)" }
            return "request \(r.method.token) \(r.target.debugDescription) path \(r.rawPath.debugDescription)"
                + " query \(r.rawQuery.debugDescription) \(r.queryItems.map { "\($0.name)=\($0.value)" })"
                + " fields \(fields) body \(r.body) minor \(parsed.minorVersion) keepAlive \(parsed.keepAlive)"
        case .sendContinue: return "100-continue"
        case .http2Preface: return "http2"
        case .failure(let status): return "failure \(status.code)"
        }
    }
}
