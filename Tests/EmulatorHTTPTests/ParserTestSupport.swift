@testable import EmulatorHTTP

/// A parser event reduced to something `#expect` can compare.
enum Seen: Equatable, CustomStringConvertible {
    case request(String, String, body: String, keepAlive: Bool)
    case sendContinue
    case http2
    case failure(Int)

    var description: String {
        switch self {
        case .request(let m, let t, let b, let k): "request(\(m) \(t) body=\(b.debugDescription) keepAlive=\(k))"
        case .sendContinue: "100-continue"
        case .http2: "http2"
        case .failure(let code): "failure(\(code))"
        }
    }

    init(_ event: HTTP1ParserEvent) {
        switch event {
        case .request(let parsed):
            self = .request(
                parsed.request.method.token, parsed.request.target,
                body: String(decoding: parsed.request.body, as: UTF8.self), keepAlive: parsed.keepAlive)
        case .sendContinue: self = .sendContinue
        case .http2Preface: self = .http2
        case .failure(let status): self = .failure(status.code)
        }
    }
}

/// Feeds `input` in pieces of the given sizes (the rest in one piece) and collects every event.
func parse(_ input: [UInt8], pieces: [Int] = [], limits: HTTP1Limits = HTTP1Limits()) -> [Seen] {
    var parser = HTTP1RequestParser(limits: limits)
    var seen: [Seen] = []
    var offset = 0
    func drain() {
        while let event = parser.next() { seen.append(Seen(event)) }
    }
    for size in pieces where offset < input.count {
        let end = min(input.count, offset + size)
        parser.append(input[offset..<end])
        offset = end
        drain()
    }
    if offset < input.count {
        parser.append(input[offset...])
        drain()
    }
    return seen
}

func parse(_ input: String, pieces: [Int] = [], limits: HTTP1Limits = HTTP1Limits()) -> [Seen] {
    parse(Array(input.utf8), pieces: pieces, limits: limits)
}
