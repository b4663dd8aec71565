/// An incremental HTTP/1.1 response parser: feed bytes, take complete responses.
///
/// Understands `Content-Length`, `chunked` and (for `HEAD`-less bodiless statuses) empty bodies.
/// With `streaming` set, a chunked body is not collected: each chunk's bytes are handed out by
/// ``takeStreamBytes()`` as they arrive (Server-Sent Events).
struct HTTPResponseParser: Sendable {
    enum Failure: Error, Sendable { case malformed(String) }

    enum Phase: Sendable {
        case head
        case fixed(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailer
        case untilClose
        case done
    }

    private(set) var buffer: [UInt8] = []
    private var start = 0
    private(set) var phase: Phase = .head
    private(set) var response = HTTPClientResponse(status: 0, headers: [], body: [])
    private var streamOut: [UInt8] = []
    let streaming: Bool
    /// Largest response head accepted.
    static let maxHeadBytes = 64 * 1024

    init(streaming: Bool = false) { self.streaming = streaming }

    /// True once the whole response has arrived.
    var isComplete: Bool { if case .done = phase { return true } else { return false } }
    /// True once the status line and headers are parsed.
    var hasHead: Bool { if case .head = phase { return false } else { return true } }
    /// True when the body runs until the peer closes.
    var readsUntilClose: Bool { if case .untilClose = phase { return true } else { return false } }

    /// Streamed body bytes received since the last call.
    mutating func takeStreamBytes() -> [UInt8] {
        defer { streamOut.removeAll(keepingCapacity: true) }
        return streamOut
    }

    /// Appends bytes from the socket and advances as far as they allow.
    mutating func feed(_ bytes: ArraySlice<UInt8>) throws(Failure) {
        buffer.append(contentsOf: bytes)
        try advance()
        if start > 4096 && start * 2 > buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
    }

    /// The peer closed: a read-until-close body ends here.
    mutating func finishAtClose() {
        if case .untilClose = phase { phase = .done }
    }

    private mutating func deliver(_ slice: ArraySlice<UInt8>) {
        if streaming { streamOut.append(contentsOf: slice) } else { response.body.append(contentsOf: slice) }
    }

    private func lineEnd(from index: Int) -> Int? {
        var i = index
        while i + 1 < buffer.count {
            if buffer[i] == 13 && buffer[i + 1] == 10 { return i }
            i += 1
        }
        return nil
    }

    private mutating func advance() throws(Failure) {
        while true {
            switch phase {
            case .done:
                return
            case .head:
                guard let end = headEnd() else {
                    if buffer.count - start > HTTPResponseParser.maxHeadBytes { throw .malformed("response head too large") }
                    return
                }
                try parseHead(buffer[start..<end])
                start = end + 4
            case .fixed(let remaining):
                let n = min(remaining, buffer.count - start)
                deliver(buffer[start..<(start + n)])
                start += n
                if remaining - n == 0 { phase = .done } else { phase = .fixed(remaining: remaining - n); return }
            case .chunkSize:
                guard let end = lineEnd(from: start) else { return }
                var size = 0
                for b in buffer[start..<end] {
                    let digit: Int
                    switch b {
                    case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = Int(b - UInt8(ascii: "0"))
                    case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = Int(b - UInt8(ascii: "a")) + 10
                    case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = Int(b - UInt8(ascii: "A")) + 10
                    case UInt8(ascii: ";"), UInt8(ascii: " "): digit = -1
                    default: throw .malformed("bad chunk size")
                    }
                    if digit < 0 { break }
                    guard size < (1 << 40) else { throw .malformed("chunk too large") }
                    size = size * 16 + digit
                }
                start = end + 2
                phase = size == 0 ? .trailer : .chunkData(remaining: size)
            case .chunkData(let remaining):
                let n = min(remaining, buffer.count - start)
                deliver(buffer[start..<(start + n)])
                start += n
                if remaining - n == 0 { phase = .chunkDataEnd } else { phase = .chunkData(remaining: remaining - n); return }
            case .chunkDataEnd:
                guard buffer.count - start >= 2 else { return }
                start += 2
                phase = .chunkSize
            case .trailer:
                guard let end = lineEnd(from: start) else { return }
                let empty = end == start
                start = end + 2
                if empty { phase = .done }
            case .untilClose:
                deliver(buffer[start..<buffer.count])
                start = buffer.count
                return
            }
        }
    }

    private func headEnd() -> Int? {
        var i = start
        while i + 3 < buffer.count {
            if buffer[i] == 13 && buffer[i + 1] == 10 && buffer[i + 2] == 13 && buffer[i + 3] == 10 { return i }
            i += 1
        }
        return nil
    }

    private mutating func parseHead(_ head: ArraySlice<UInt8>) throws(Failure) {
        let text = String(decoding: head, as: UTF8.self)
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false).makeIterator()
        guard let statusLine = lines.next() else { throw .malformed("empty head") }
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            throw .malformed("bad status line")
        }
        response.status = status
        var length: Int?
        var chunked = false
        while let line = lines.next() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = String(line[line.index(after: colon)...]).trimmingCharactersSpace()
            response.headers.append((name, value))
            if name == "content-length" {
                guard let n = Int(value), n >= 0 else { throw .malformed("bad content-length") }
                length = n
            } else if name == "transfer-encoding" && value.lowercased().contains("chunked") {
                chunked = true
            }
        }
        if chunked {
            phase = .chunkSize
        } else if let length {
            phase = length == 0 ? .done : .fixed(remaining: length)
        } else if status == 204 || status == 304 || (100..<200).contains(status) {
            phase = .done
        } else {
            phase = .untilClose
        }
    }
}

extension String {
    func trimmingCharactersSpace() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}
