import EmulatorSupport

@testable import EmulatorHTTP

/// The request parser as it was before its head was read in one pass over the bytes (kept
/// verbatim but for names; the token table and the plain `Content-Length` reader, which the
/// rewrite left alone, are the parser's own): the reference ``HeadParserAgreementTests`` hold the
/// parser to.
struct ReferenceHTTP1RequestParser: Sendable {
    var limits: HTTP1Limits

    private enum State: Sendable {
        case head
        case fixedBody(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers(bytes: Int)
        case failed
        case stopped
    }

    private struct PendingHead: Sendable {
        var method: HTTPMethod
        var target: String
        var headers: HTTPHeaders
        var minorVersion: Int
        var keepAlive: Bool
        var framing: FramingFields
    }

    /// Which of the fields that decide a body's framing a head carries, counted while its lines
    /// are read, so the common head (one `Content-Length` or none, nothing else) is framed
    /// without searching the fields again.
    struct FramingFields: Sendable {
        /// Index in the head's fields of the first `Content-Length`.
        var contentLengthIndex = -1
        var contentLengthCount = 0
        var transferEncodingCount = 0
        var expectCount = 0
        var connectionCount = 0

        /// Counts the field called `name` (raw bytes of the head).
        mutating func note(_ name: ArraySlice<UInt8>, index: Int) {
            switch name.count {
            case 6 where HTTPFieldName.matches(name, "expect"): expectCount += 1
            case 10 where HTTPFieldName.matches(name, "connection"): connectionCount += 1
            case 14 where HTTPFieldName.matches(name, "content-length"):
                if contentLengthCount == 0 { contentLengthIndex = index }
                contentLengthCount += 1
            case 17 where HTTPFieldName.matches(name, "transfer-encoding"): transferEncodingCount += 1
            default: break
            }
        }
    }

    private var state: State = .head
    private var buffer: [UInt8] = []
    private var readIndex = 0
    /// Where the search for the end of the head resumes.
    private var scanIndex = 0
    private var pending: PendingHead?
    private var body: [UInt8] = []
    private var continuePending = false

    init(limits: HTTP1Limits = HTTP1Limits()) {
        self.limits = limits
    }

    /// Bytes received but not yet consumed by a complete request.
    var bufferedCount: Int { buffer.count - readIndex }

    /// Whether the parser is between requests with nothing buffered (the connection is idle).
    var isIdle: Bool {
        if case .head = state { return bufferedCount == 0 }
        return false
    }

    /// Adds received bytes.
    mutating func append(_ bytes: some Collection<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// Adds received bytes from raw memory.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        buffer.append(contentsOf: bytes)
    }

    /// Removes and returns every unconsumed byte (for an upgrade or HTTP/2 hand-off), and stops.
    mutating func takeBuffered() -> [UInt8] {
        let rest = Array(buffer[readIndex...])
        buffer = []
        readIndex = 0
        scanIndex = 0
        state = .stopped
        return rest
    }

    /// The next event, or `nil` when more input is needed.
    mutating func next() -> HTTP1ParserEvent? {
        while true {
            switch state {
            case .failed, .stopped:
                return nil
            case .head:
                guard let step = parseHead() else { return nil }
                if let event = step { return event }
            case .fixedBody(let remaining):
                if continuePending {
                    continuePending = false
                    if bufferedCount < remaining { return .sendContinue }
                }
                guard bufferedCount >= remaining else { return nil }
                body.append(contentsOf: buffer[readIndex..<(readIndex + remaining)])
                readIndex += remaining
                return complete()
            case .chunkSize:
                if continuePending {
                    continuePending = false
                    if bufferedCount == 0 { return .sendContinue }
                }
                guard let event = parseChunkSize() else { return nil }
                if let event { return event }
            case .chunkData(let remaining):
                let available = min(remaining, bufferedCount)
                guard available > 0 else { return nil }
                body.append(contentsOf: buffer[readIndex..<(readIndex + available)])
                readIndex += available
                state = available == remaining ? .chunkDataEnd : .chunkData(remaining: remaining - available)
            case .chunkDataEnd:
                guard bufferedCount >= 2 else { return nil }
                guard buffer[readIndex] == .cr, buffer[readIndex + 1] == .lf else { return fail(.badRequest) }
                readIndex += 2
                state = .chunkSize
            case .trailers(let bytes):
                guard let event = parseTrailerLine(consumed: bytes) else { return nil }
                if let event { return event }
            }
        }
    }

    // MARK: - Head

    private static let http2Preface: [UInt8] = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    /// `nil`: need more input; `.some(nil)`: progressed, loop again; `.some(event)`: report it.
    private mutating func parseHead() -> HTTP1ParserEvent?? {
        // Tolerate empty lines before a request line (RFC 9112 §2.2).
        while bufferedCount >= 2, buffer[readIndex] == .cr, buffer[readIndex + 1] == .lf {
            readIndex += 2
        }
        if bufferedCount == 1, buffer[readIndex] == .cr { return nil }
        compactIfIdle()
        if bufferedCount > 0, buffer[readIndex] == UInt8(ascii: "P") {
            let n = min(bufferedCount, Self.http2Preface.count)
            if buffer[readIndex..<(readIndex + n)].elementsEqual(Self.http2Preface[..<n]) {
                if n == Self.http2Preface.count {
                    state = .stopped
                    return .some(.http2Preface)
                }
                return nil
            }
        }
        let scanned = max(scanIndex, readIndex)
        let end = findHeadEnd()
        // A line ending in a bare LF can never complete a head (the terminator is CRLF CRLF):
        // answer 400 now instead of waiting for the header timeout.
        if containsBareLF(from: scanned, to: end.map { $0 + 4 } ?? buffer.count) { return .some(fail(.badRequest)) }
        guard let end else {
            if bufferedCount > limits.maxHeadBytes { return .some(fail(.headerFieldsTooLarge)) }
            return nil
        }
        let headLength = end - readIndex
        if headLength + 4 > limits.maxHeadBytes { return .some(fail(.headerFieldsTooLarge)) }
        let head = buffer[readIndex..<end]
        readIndex = end + 4
        scanIndex = readIndex
        switch Self.parseHeadLines(head, limits: limits) {
        case .failure(let status):
            return .some(fail(status))
        case .success(let parsed):
            return .some(begin(parsed))
        }
    }

    private mutating func findHeadEnd() -> Int? {
        var i = max(scanIndex, readIndex)
        let count = buffer.count
        while i + 3 < count {
            if buffer[i + 3] != .lf {
                // Skip ahead: the terminator cannot end before the next LF.
                i += buffer[i + 3] == .cr ? 1 : 4
                continue
            }
            if buffer[i] == .cr, buffer[i + 1] == .lf, buffer[i + 2] == .cr { return i }
            i += 1
        }
        scanIndex = i
        return nil
    }

    /// Whether an LF in `start..<end` of the head being read is not preceded by a CR.
    private func containsBareLF(from start: Int, to end: Int) -> Bool {
        var i = start
        while i < end {
            if buffer[i] == .lf, i == readIndex || buffer[i - 1] != .cr { return true }
            i += 1
        }
        return false
    }

    private enum HeadResult {
        case success(PendingHead)
        case failure(HTTPStatus)
    }

    private static func parseHeadLines(_ head: ArraySlice<UInt8>, limits: HTTP1Limits) -> HeadResult {
        var lines = ReferenceLineIterator(bytes: head)
        guard let requestLine = lines.next() else { return .failure(.badRequest) }
        // method SP target SP version
        guard let firstSpace = requestLine.firstIndex(of: .space) else { return .failure(.badRequest) }
        let methodBytes = requestLine[requestLine.startIndex..<firstSpace]
        let rest = requestLine[(firstSpace + 1)...]
        guard let secondSpace = rest.firstIndex(of: .space) else { return .failure(.badRequest) }
        let targetBytes = rest[rest.startIndex..<secondSpace]
        let versionBytes = rest[(secondSpace + 1)...]
        guard !methodBytes.isEmpty, methodBytes.allSatisfy(HTTP1RequestParser.isTokenByte) else { return .failure(.badRequest) }
        guard !targetBytes.isEmpty, targetBytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return .failure(.badRequest)
        }
        guard versionBytes.count == 8, versionBytes.starts(with: "HTTP/".utf8) else { return .failure(.badRequest) }
        let major = versionBytes[versionBytes.startIndex + 5]
        let dot = versionBytes[versionBytes.startIndex + 6]
        let minor = versionBytes[versionBytes.startIndex + 7]
        guard major.isDigit, dot == UInt8(ascii: "."), minor.isDigit else { return .failure(.badRequest) }
        guard major == UInt8(ascii: "1"), minor <= UInt8(ascii: "1") else { return .failure(.httpVersionNotSupported) }
        let minorVersion = Int(minor - UInt8(ascii: "0"))

        var headers = HTTPHeaders(minimumCapacity: 8)
        var framing = FramingFields()
        var count = 0
        while let line = lines.next() {
            guard let first = line.first else { return .failure(.badRequest) }
            if first == .space || first == .tab { return .failure(.badRequest) }  // obsolete line folding
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return .failure(.badRequest) }
            let name = line[line.startIndex..<colon]
            guard !name.isEmpty, name.allSatisfy(HTTP1RequestParser.isTokenByte) else { return .failure(.badRequest) }
            var value = line[(colon + 1)...]
            while let b = value.first, b == .space || b == .tab { value = value.dropFirst() }
            while let b = value.last, b == .space || b == .tab { value = value.dropLast() }
            guard value.allSatisfy({ $0 == .tab || ($0 >= 0x20 && $0 != 0x7F) }) else { return .failure(.badRequest) }
            count += 1
            if count > limits.maxHeaderCount { return .failure(.headerFieldsTooLarge) }
            framing.note(name, index: count - 1)
            headers.add(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
        }

        var keepAlive = minorVersion == 1
        if framing.connectionCount > 0 {
            for value in headers.values("Connection") {
                for token in value.split(separator: ",") {
                    let token = token.trimmingSpaces
                    if token.equalsIgnoringCase("close") { keepAlive = false }
                    if token.equalsIgnoringCase("keep-alive"), minorVersion == 0 { keepAlive = true }
                }
            }
        }
        let method = HTTPMethod(bytes: methodBytes)
        let target = String(decoding: targetBytes, as: UTF8.self)
        return .success(
            PendingHead(
                method: method, target: target, headers: headers, minorVersion: minorVersion, keepAlive: keepAlive,
                framing: framing))
    }

    /// Decides the body framing of a parsed head.
    private mutating func begin(_ head: PendingHead) -> HTTP1ParserEvent? {
        pending = head
        body = []
        let framing = head.framing
        if framing.transferEncodingCount == 0, framing.expectCount == 0, framing.contentLengthCount <= 1 {
            // The common head: at most one Content-Length of plain digits, no Expect.
            var length = 0
            if framing.contentLengthCount == 1 {
                guard let n = HTTP1RequestParser.plainLength(head.headers.fields[framing.contentLengthIndex].value) else {
                    return beginSlowly(head)
                }
                length = n
                if length > limits.maxBodyBytes { return fail(.contentTooLarge) }
            }
            continuePending = false
            state = .fixedBody(remaining: length)
            return nil
        }
        return beginSlowly(head)
    }

    /// Decides the framing of any head: several `Content-Length` fields or lists of them,
    /// `Transfer-Encoding`, `Expect`.
    private mutating func beginSlowly(_ head: PendingHead) -> HTTP1ParserEvent? {
        let transferEncoding = head.headers.values("Transfer-Encoding")
        let contentLength = head.headers.values("Content-Length")
        var chunked = false
        if !transferEncoding.isEmpty {
            if !contentLength.isEmpty { return fail(.badRequest) }
            let codings = transferEncoding.flatMap { $0.split(separator: ",") }.map(\.trimmingSpaces)
            guard codings.count == 1, let only = codings.first, only.equalsIgnoringCase("chunked") else {
                return fail(.notImplemented)
            }
            chunked = true
        }
        var length = 0
        if !contentLength.isEmpty {
            var parsed: Int?
            for value in contentLength {
                for item in value.split(separator: ",", omittingEmptySubsequences: false) {
                    let digits = item.trimmingSpaces.utf8
                    guard !digits.isEmpty, digits.allSatisfy(\.isDigit) else { return fail(.badRequest) }
                    if digits.count > 15 { return fail(.contentTooLarge) }
                    let n = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
                    if let parsed, parsed != n { return fail(.badRequest) }
                    parsed = n
                }
            }
            length = parsed ?? 0
            if length > limits.maxBodyBytes { return fail(.contentTooLarge) }
        }
        if let expect = head.headers["Expect"] {
            guard expect[...].trimmingSpaces.equalsIgnoringCase("100-continue") else { return fail(.expectationFailed) }
            continuePending = head.minorVersion == 1 && (chunked || length > 0)
        } else {
            continuePending = false
        }
        if chunked {
            state = .chunkSize
        } else {
            state = .fixedBody(remaining: length)
        }
        return nil
    }

    private mutating func complete() -> HTTP1ParserEvent {
        state = .head
        scanIndex = readIndex
        continuePending = false
        guard let head = pending else { return fail(.internalServerError) }
        pending = nil
        let request = HTTPRequest(method: head.method, target: head.target, headers: head.headers, body: body)
        body = []
        compactIfIdle()
        return .request(HTTP1ParsedRequest(request: request, minorVersion: head.minorVersion, keepAlive: head.keepAlive))
    }

    // MARK: - Chunked bodies

    private static let maxChunkLine = 4096

    private mutating func parseChunkSize() -> HTTP1ParserEvent?? {
        guard let lineEnd = findLineEnd(limit: Self.maxChunkLine) else {
            if bufferedCount > Self.maxChunkLine { return .some(fail(.badRequest)) }
            return nil
        }
        if lineEnd < 0 { return .some(fail(.badRequest)) }
        let line = buffer[readIndex..<lineEnd]
        readIndex = lineEnd + 2
        var size = 0
        var digits = 0
        var index = line.startIndex
        while index < line.endIndex, let value = HexDigit.value(line[index]) {
            digits += 1
            if digits > 15 { return .some(fail(.contentTooLarge)) }
            size = size << 4 | Int(value)
            index += 1
        }
        guard digits > 0 else { return .some(fail(.badRequest)) }
        // Anything after the digits must be whitespace and/or a chunk extension.
        if index < line.endIndex {
            let rest = line[index...].drop { $0 == .space || $0 == .tab }
            guard rest.isEmpty || rest.first == UInt8(ascii: ";") else { return .some(fail(.badRequest)) }
        }
        if size == 0 {
            state = .trailers(bytes: 0)
            return .some(nil)
        }
        if body.count + size > limits.maxBodyBytes { return .some(fail(.contentTooLarge)) }
        state = .chunkData(remaining: size)
        return .some(nil)
    }

    private mutating func parseTrailerLine(consumed: Int) -> HTTP1ParserEvent?? {
        guard let lineEnd = findLineEnd(limit: limits.maxHeadBytes - consumed) else {
            if consumed + bufferedCount > limits.maxHeadBytes { return .some(fail(.headerFieldsTooLarge)) }
            return nil
        }
        if lineEnd < 0 { return .some(fail(.headerFieldsTooLarge)) }
        let length = lineEnd - readIndex
        readIndex = lineEnd + 2
        if length == 0 { return .some(complete()) }
        state = .trailers(bytes: consumed + length + 2)
        return .some(nil)
    }

    /// Index of the CR of the next CRLF; `nil` when not yet buffered; `-1` when a bare CR or LF appears
    /// or the line exceeds `limit`.
    private func findLineEnd(limit: Int) -> Int? {
        var i = readIndex
        while i < buffer.count {
            if i - readIndex > limit { return -1 }
            let byte = buffer[i]
            if byte == .lf { return -1 }
            if byte == .cr {
                guard i + 1 < buffer.count else { return nil }
                return buffer[i + 1] == .lf ? i : -1
            }
            i += 1
        }
        return nil
    }

    // MARK: - Helpers

    private mutating func fail(_ status: HTTPStatus) -> HTTP1ParserEvent {
        state = .failed
        pending = nil
        body = []
        return .failure(status)
    }

    private mutating func compactIfIdle() {
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 64 * 1024)
            readIndex = 0
            scanIndex = 0
        } else if readIndex > 4096, readIndex * 2 > buffer.count {
            buffer.removeFirst(readIndex)
            scanIndex = max(0, scanIndex - readIndex)
            readIndex = 0
        }
    }

}

/// Splits a head into CRLF-terminated lines (the last line needs no terminator).
private struct ReferenceLineIterator: IteratorProtocol {
    let bytes: ArraySlice<UInt8>
    var position: Int

    init(bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.position = bytes.startIndex
    }

    mutating func next() -> ArraySlice<UInt8>? {
        guard position < bytes.endIndex else { return nil }
        var i = position
        while i < bytes.endIndex {
            if bytes[i] == .cr, i + 1 < bytes.endIndex, bytes[i + 1] == .lf {
                let line = bytes[position..<i]
                position = i + 2
                return line
            }
            // A bare CR or LF inside the head is never valid; hand it to the caller as part of the line
            // so value validation rejects it.
            i += 1
        }
        let line = bytes[position..<bytes.endIndex]
        position = bytes.endIndex
        return line
    }
}
