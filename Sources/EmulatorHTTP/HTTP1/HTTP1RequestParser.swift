import EmulatorSupport
import Glibc

/// An HTTP/1.x request parser: a value-type state machine fed with bytes.
///
/// Feed bytes with ``append(_:)``, then call ``next()`` until it returns `nil` (more input needed).
/// Bytes after a complete request stay buffered for the next one (pipelining). After `.failure` the
/// parser stays failed; after `.http2Preface` it stops and ``takeBuffered()`` hands the bytes over.
///
/// ```swift
/// var parser = HTTP1RequestParser()
/// parser.append(Array("GET /a HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
/// if case .request(let parsed)? = parser.next() { print(parsed.request.target) }  // "/a"
/// ```
package struct HTTP1RequestParser: Sendable {
    package var limits: HTTP1Limits

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
        /// UTF-8 offset of the target's `?`, found while its bytes were checked.
        var queryOffset: Int?
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
        mutating func note(_ name: UnsafeBufferPointer<UInt8>, index: Int) {
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

    /// The field lines of the last head read and what they parsed to. A keep-alive client sends
    /// the same fields with every request (only the request line changes), so a head whose field
    /// lines repeat these byte for byte takes the parsed fields instead of reading them again:
    /// the fields, and whether they are valid, depend on those bytes (and the limits) alone.
    struct RepeatedFields: Sendable {
        /// Field sections longer than this are not kept (a connection holds at most this much).
        static let maxBytes = 1024

        private(set) var bytes: [UInt8] = []
        private(set) var headers = HTTPHeaders()
        private(set) var framing = FramingFields()
        /// The header-count limit the kept fields were read under; nil while nothing is kept.
        private var maxHeaderCount: Int?
        /// How many heads took the kept fields.
        private(set) var hits = 0

        /// Whether `fields` are the kept field lines, read under the same limit.
        func matches(_ fields: UnsafeBufferPointer<UInt8>, limits: HTTP1Limits) -> Bool {
            guard maxHeaderCount == limits.maxHeaderCount, bytes.count == fields.count else { return false }
            if fields.isEmpty { return true }
            return bytes.withUnsafeBufferPointer { kept in
                guard let a = kept.baseAddress, let b = fields.baseAddress else { return false }
                return memcmp(a, b, fields.count) == 0
            }
        }

        /// Takes the kept parse of the fields.
        mutating func take() -> (HTTPHeaders, FramingFields) {
            hits += 1
            return (headers, framing)
        }

        /// Keeps `fields`, read as `headers` with `framing` under `limits`.
        mutating func keep(_ fields: UnsafeBufferPointer<UInt8>, _ headers: HTTPHeaders, _ framing: FramingFields, limits: HTTP1Limits) {
            guard fields.count <= Self.maxBytes else { return }
            bytes.removeAll(keepingCapacity: true)
            bytes.append(contentsOf: fields)
            self.headers = headers
            self.framing = framing
            maxHeaderCount = limits.maxHeaderCount
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
    private var repeatedFields = RepeatedFields()

    /// How many heads took the parsed fields of an earlier head (``RepeatedFields``), for tests.
    package var repeatedFieldsCount: Int { repeatedFields.hits }

    package init(limits: HTTP1Limits = HTTP1Limits()) {
        self.limits = limits
    }

    /// Bytes received but not yet consumed by a complete request.
    package var bufferedCount: Int { buffer.count - readIndex }

    /// Whether the parser is between requests with nothing buffered (the connection is idle).
    package var isIdle: Bool {
        if case .head = state { return bufferedCount == 0 }
        return false
    }

    /// Adds received bytes.
    package mutating func append(_ bytes: some Collection<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// Adds received bytes from raw memory.
    package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        buffer.append(contentsOf: bytes)
    }

    /// Removes and returns every unconsumed byte (for an upgrade or HTTP/2 hand-off), and stops.
    package mutating func takeBuffered() -> [UInt8] {
        let rest = Array(buffer[readIndex...])
        buffer = []
        readIndex = 0
        scanIndex = 0
        state = .stopped
        return rest
    }

    /// The next event, or `nil` when more input is needed.
    package mutating func next() -> HTTP1ParserEvent? {
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
        let end: Int
        switch scanHead() {
        case .bareLF:
            // A line ending in a bare LF can never complete a head (the terminator is CRLF CRLF):
            // answer 400 now instead of waiting for the header timeout.
            return .some(fail(.badRequest))
        case .incomplete:
            if bufferedCount > limits.maxHeadBytes { return .some(fail(.headerFieldsTooLarge)) }
            return nil
        case .end(let found):
            end = found
        }
        let headLength = end - readIndex
        if headLength + 4 > limits.maxHeadBytes { return .some(fail(.headerFieldsTooLarge)) }
        let start = readIndex
        readIndex = end + 4
        scanIndex = readIndex
        // Moved out while the head is read, so the kept bytes are not copied when changed.
        var repeated = RepeatedFields()
        swap(&repeated, &repeatedFields)
        let limits = limits
        let result = buffer.withUnsafeBufferPointer {
            Self.parseHeadLines($0, from: start, to: end, limits: limits, repeated: &repeated)
        }
        swap(&repeated, &repeatedFields)
        switch result {
        case .failure(let status):
            return .some(fail(status))
        case .success(let parsed):
            return .some(begin(parsed))
        }
    }

    private enum HeadScan {
        /// The head's terminator starts here (its CR).
        case end(Int)
        /// An LF not preceded by a CR comes first.
        case bareLF
        /// Neither is buffered yet.
        case incomplete
    }

    /// Looks for the end of the head (the first CRLF CRLF) from where the last look stopped,
    /// one LF at a time: every LF must follow a CR, and one that follows CR LF CR ends the head.
    /// The bytes after the terminator (a body, the next request) are not looked at.
    private mutating func scanHead() -> HeadScan {
        let readIndex = readIndex
        let (scan, resume): (HeadScan, Int) = buffer.withUnsafeBufferPointer { bytes in
            guard let base = bytes.baseAddress else { return (.incomplete, 0) }
            var i = max(scanIndex, readIndex)
            while i < bytes.count {
                // memchr: the LFs of a head are a few per hundred bytes.
                guard let found = memchr(base + i, 0x0A, bytes.count - i) else { break }
                let lf = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
                if lf == readIndex || bytes[lf - 1] != .cr { return (.bareLF, lf) }
                if lf - 3 >= readIndex, bytes[lf - 2] == .lf, bytes[lf - 3] == .cr { return (.end(lf - 3), lf) }
                i = lf + 1
            }
            return (.incomplete, bytes.count)
        }
        scanIndex = resume
        return scan
    }

    private enum HeadResult {
        case success(PendingHead)
        case failure(HTTPStatus)
    }

    /// Parses the head in `bytes[start..<end]` (its terminator excluded) in one pass over the
    /// bytes: lines end at CRLF (a bare CR stays in its line, where validation refuses it), and
    /// only the method, target and field names and values become values.
    /// Field lines that repeat `repeated`'s are not read again; others are read and kept there.
    private static func parseHeadLines(
        _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int, limits: HTTP1Limits,
        repeated: inout RepeatedFields
    ) -> HeadResult {
        var lines = HeadLines(bytes: bytes, position: start, end: end)
        guard let (lineStart, lineEnd) = lines.next() else { return .failure(.badRequest) }
        // method SP target SP version
        guard let firstSpace = firstIndex(of: .space, in: bytes, lineStart, lineEnd) else { return .failure(.badRequest) }
        guard let secondSpace = firstIndex(of: .space, in: bytes, firstSpace + 1, lineEnd) else {
            return .failure(.badRequest)
        }
        let methodBytes = UnsafeBufferPointer(rebasing: bytes[lineStart..<firstSpace])
        let targetBytes = UnsafeBufferPointer(rebasing: bytes[(firstSpace + 1)..<secondSpace])
        let versionBytes = UnsafeBufferPointer(rebasing: bytes[(secondSpace + 1)..<lineEnd])
        guard !methodBytes.isEmpty, methodBytes.allSatisfy(isTokenByte) else { return .failure(.badRequest) }
        guard !targetBytes.isEmpty else { return .failure(.badRequest) }
        // The target's bytes are checked and its `?` found in the same pass.
        var queryOffset: Int?
        for i in 0..<targetBytes.count {
            let byte = targetBytes[i]
            guard byte > 0x20 && byte < 0x7F else { return .failure(.badRequest) }
            if byte == UInt8(ascii: "?"), queryOffset == nil { queryOffset = i }
        }
        // `HTTP/` compared byte by byte (a generic `starts(with:)` over a string's view is not).
        guard versionBytes.count == 8, versionBytes[0] == UInt8(ascii: "H"), versionBytes[1] == UInt8(ascii: "T"),
            versionBytes[2] == UInt8(ascii: "T"), versionBytes[3] == UInt8(ascii: "P"), versionBytes[4] == UInt8(ascii: "/")
        else { return .failure(.badRequest) }
        let major = versionBytes[5]
        let dot = versionBytes[6]
        let minor = versionBytes[7]
        guard major.isDigit, dot == UInt8(ascii: "."), minor.isDigit else { return .failure(.badRequest) }
        guard major == UInt8(ascii: "1"), minor <= UInt8(ascii: "1") else { return .failure(.httpVersionNotSupported) }
        let minorVersion = Int(minor - UInt8(ascii: "0"))

        let fieldLines = UnsafeBufferPointer(rebasing: bytes[lines.position..<end])
        let headers: HTTPHeaders
        let framing: FramingFields
        if repeated.matches(fieldLines, limits: limits) {
            (headers, framing) = repeated.take()
        } else {
            switch parseFieldLines(&lines, bytes, limits: limits) {
            case .failure(let status):
                return .failure(status)
            case .success(let parsed, let parsedFraming):
                (headers, framing) = (parsed, parsedFraming)
                repeated.keep(fieldLines, headers, framing, limits: limits)
            }
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
                method: method, target: target, queryOffset: queryOffset, headers: headers, minorVersion: minorVersion,
                keepAlive: keepAlive, framing: framing))
    }

    private enum FieldsResult {
        case success(HTTPHeaders, FramingFields)
        case failure(HTTPStatus)
    }

    /// Reads the field lines `lines` has left.
    private static func parseFieldLines(
        _ lines: inout HeadLines, _ bytes: UnsafeBufferPointer<UInt8>, limits: HTTP1Limits
    ) -> FieldsResult {
        var headers = HTTPHeaders(minimumCapacity: 8)
        var framing = FramingFields()
        var count = 0
        while let (lineStart, lineEnd) = lines.next() {
            guard lineStart < lineEnd else { return .failure(.badRequest) }
            let first = bytes[lineStart]
            if first == .space || first == .tab { return .failure(.badRequest) }  // obsolete line folding
            guard let colon = firstIndex(of: UInt8(ascii: ":"), in: bytes, lineStart, lineEnd) else {
                return .failure(.badRequest)
            }
            let name = UnsafeBufferPointer(rebasing: bytes[lineStart..<colon])
            guard !name.isEmpty, name.allSatisfy(isTokenByte) else { return .failure(.badRequest) }
            var valueStart = colon + 1
            var valueEnd = lineEnd
            while valueStart < valueEnd, bytes[valueStart] == .space || bytes[valueStart] == .tab { valueStart += 1 }
            while valueStart < valueEnd, bytes[valueEnd - 1] == .space || bytes[valueEnd - 1] == .tab { valueEnd -= 1 }
            let value = UnsafeBufferPointer(rebasing: bytes[valueStart..<valueEnd])
            guard value.allSatisfy({ $0 == .tab || ($0 >= 0x20 && $0 != 0x7F) }) else { return .failure(.badRequest) }
            count += 1
            if count > limits.maxHeaderCount { return .failure(.headerFieldsTooLarge) }
            framing.note(name, index: count - 1)
            headers.add(
                HTTPCommonFieldText.text(name) ?? String(decoding: name, as: UTF8.self),
                HTTPCommonFieldText.text(value) ?? String(decoding: value, as: UTF8.self))
        }
        return .success(headers, framing)
    }

    /// The first index of `byte` in `bytes[start..<end]` (memchr: a field line is tens of bytes).
    fileprivate static func firstIndex(of byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Int? {
        guard start < end, let base = bytes.baseAddress, let found = memchr(base + start, Int32(byte), end - start) else {
            return nil
        }
        return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
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
                guard let n = Self.plainLength(head.headers.fields[framing.contentLengthIndex].value) else {
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

    /// The value of a `Content-Length` that is 1 to 15 ASCII digits and nothing else (no spaces,
    /// no list); `nil` for anything else, which ``beginSlowly(_:)`` judges.
    static func plainLength(_ value: String) -> Int? {
        var n = 0
        var digits = 0
        for byte in value.utf8 {
            guard byte.isDigit, digits < 15 else { return nil }
            n = n * 10 + Int(byte - UInt8(ascii: "0"))
            digits += 1
        }
        return digits > 0 ? n : nil
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
        let request = HTTPRequest(
            method: head.method, target: head.target, queryOffset: head.queryOffset, headers: head.headers, body: body)
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

    /// Whether `byte` is a `tchar` of RFC 9110 §5.6.2: letters, digits and ``!#$%&'*+-.^_`|~``,
    /// looked up in a 128-bit table (bit `b` set for each token byte `b`).
    static func isTokenByte(_ byte: UInt8) -> Bool {
        if byte < 64 { return (tokenBitsLow >> UInt64(byte)) & 1 == 1 }
        if byte < 128 { return (tokenBitsHigh >> UInt64(byte - 64)) & 1 == 1 }
        return false
    }

    /// Token bytes 0–63: `!#$%&'*+-.` and the digits.
    private static let tokenBitsLow: UInt64 = 0x03FF_6CFA_0000_0000
    /// Token bytes 64–127: the letters and `^_`|~`.
    private static let tokenBitsHigh: UInt64 = 0x57FF_FFFF_C7FF_FFFE
}

/// Splits a head into CRLF-terminated lines (the last line needs no terminator), as index ranges.
private struct HeadLines {
    let bytes: UnsafeBufferPointer<UInt8>
    var position: Int
    let end: Int

    /// The next line's start and end (its CRLF excluded). A bare CR or LF inside the head is never
    /// valid; it stays part of its line so that validation rejects it.
    mutating func next() -> (Int, Int)? {
        guard position < end else { return nil }
        let start = position
        var from = position
        // The line ends at the first LF after a CR of the line: found LF by LF.
        while let lf = HTTP1RequestParser.firstIndex(of: .lf, in: bytes, from, end) {
            if lf > start, bytes[lf - 1] == .cr {
                position = lf + 1
                return (start, lf - 1)
            }
            from = lf + 1
        }
        position = end
        return (start, end)
    }
}

extension UInt8 {
    static let cr: UInt8 = 0x0D
    static let lf: UInt8 = 0x0A
    static let space: UInt8 = 0x20
    static let tab: UInt8 = 0x09

    var isDigit: Bool { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") }

}

extension Substring {
    func equalsIgnoringCase(_ other: String) -> Bool {
        HTTPHeaders.namesMatch(String(self), other)
    }
}
