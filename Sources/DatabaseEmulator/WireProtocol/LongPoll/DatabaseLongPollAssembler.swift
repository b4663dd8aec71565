import EmulatorSupport

/// One piece of a client message as a long poll carries it: the query items `seg<i>` (the client's
/// running segment number, from 0 for the connection), `ts<i>` (how many segments the message
/// has) and `d<i>` (a slice of the message's base64 text). The Firebase JS SDK
/// (`BrowserPollConnection.send`) base64-encodes each JSON message with the URL-safe alphabet and
/// `.` as padding, and cuts the text into slices of at most 1,840 characters.
struct DatabaseLongPollSegment: Equatable, Sendable {
    var number: Int
    var total: Int
    var data: String
}

/// Puts client messages back together from long-poll segments, in segment-number order.
///
/// Two polls may be in flight at once, so segments can arrive out of order: a segment ahead of
/// the next expected one waits (bounded), one already seen (a replayed request) is dropped. A
/// message is complete when its `ts` segments have arrived; its base64 text is decoded to UTF-8
/// JSON text.
///
/// ```swift
/// var assembler = DatabaseLongPollAssembler()
/// let messages = try assembler.add([DatabaseLongPollSegment(number: 0, total: 1, data: "e30.")])  // ["{}"]
/// ```
struct DatabaseLongPollAssembler: Sendable {
    struct Limits: Sendable {
        /// The largest decoded message (the WebSocket's limit too).
        var maxMessageBytes = 16 * 1024 * 1024
        /// Segments that may wait for an earlier one.
        var maxWaitingSegments = 256
        /// Base64 characters those waiting segments may hold together.
        var maxWaitingCharacters = 1024 * 1024
    }

    /// Why the segments cannot make messages; the session ends with this text.
    struct Failure: Error, Equatable, Sendable {
        var message: String
    }

    let limits: Limits
    /// The segment number expected next.
    private(set) var next = 0
    private var waiting: [Int: DatabaseLongPollSegment] = [:]
    private var waitingCharacters = 0
    /// The base64 text of the message being collected, and how many of its segments came.
    private var text: [UInt8] = []
    private var total = 0
    private var collected = 0

    init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Segments waiting for an earlier one.
    var waitingCount: Int { waiting.count }

    /// Adds the segments of one request and returns the messages they complete, in order.
    mutating func add(_ segments: [DatabaseLongPollSegment]) throws(Failure) -> [String] {
        var messages: [String] = []
        for segment in segments {
            guard segment.number >= 0, segment.total >= 1 else {
                throw Failure(message: "Long-poll segment \(segment.number) of \(segment.total) is not a valid segment.")
            }
            guard !segment.data.isEmpty else {
                throw Failure(message: "Long-poll segment \(segment.number) carries no data.")
            }
            if segment.number < next || waiting[segment.number] != nil { continue }  // a replay
            if segment.number > next {
                guard waiting.count < limits.maxWaitingSegments,
                    waitingCharacters + segment.data.utf8.count <= limits.maxWaitingCharacters
                else {
                    throw Failure(
                        message: "Long-poll segments are missing from \(next): \(waiting.count + 1) later segments are waiting, more than allowed.")
                }
                waiting[segment.number] = segment
                waitingCharacters += segment.data.utf8.count
                continue
            }
            try consume(segment, into: &messages)
            while let following = waiting.removeValue(forKey: next) {
                waitingCharacters -= following.data.utf8.count
                try consume(following, into: &messages)
            }
        }
        return messages
    }

    private mutating func consume(_ segment: DatabaseLongPollSegment, into messages: inout [String]) throws(Failure) {
        if collected == 0 {
            total = segment.total
        } else if segment.total != total {
            throw Failure(
                message: "Long-poll segment \(segment.number) says its message has \(segment.total) segments; the earlier ones said \(total).")
        }
        text.append(contentsOf: segment.data.utf8)
        guard text.count <= Self.base64Length(limits.maxMessageBytes) else {
            throw Failure(message: "A long-poll message is larger than \(limits.maxMessageBytes) bytes.")
        }
        collected += 1
        next += 1
        guard collected == total else { return }
        defer {
            text = []
            total = 0
            collected = 0
        }
        messages.append(try Self.decode(text, endingAt: segment.number))
    }

    /// The JSON text of a message's base64 text: URL-safe or standard alphabet, `.` or `=`
    /// padding (a `+` that travelled unescaped in the URL arrives as a space).
    static func decode(_ text: [UInt8], endingAt number: Int) throws(Failure) -> String {
        var base64 = text
        for i in base64.indices {
            switch base64[i] {
            case UInt8(ascii: "."): base64[i] = UInt8(ascii: "=")
            case UInt8(ascii: " "): base64[i] = UInt8(ascii: "+")
            default: break
            }
        }
        guard let bytes = Base64.decode(base64, alphabet: nil) else {
            throw Failure(message: "The long-poll message ending at segment \(number) is not base64.")
        }
        guard UTF8Validation.isValid(bytes) else {
            throw Failure(message: "The long-poll message ending at segment \(number) is not UTF-8 text.")
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Base64 characters (with padding) that encode `bytes` bytes.
    static func base64Length(_ bytes: Int) -> Int { (bytes + 2) / 3 * 4 }
}
