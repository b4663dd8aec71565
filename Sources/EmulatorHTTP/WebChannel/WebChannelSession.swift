/// The state of one WebChannel session, without I/O: the numbered server messages not yet
/// acknowledged, the client messages seen (by `ofs`), and the back channel the messages go out on.
/// Every change returns the ``Action``s the server carries out on the back channel's HTTP stream.
///
/// Server messages are numbered from 1 (0 is the session reply, `["c",…]`). They stay buffered
/// until the client acknowledges them (`AID` on any request), so a new back channel resends what
/// the last one may have lost. A streaming back channel (`CI=0`) stays open and gets each message
/// as it comes, until it has carried ``maxBackChannelBytes`` (the client then opens another); a
/// long-polling one (`CI=1`) ends with the first data it carries. Either carries at most about
/// ``maxBackChannelBytes`` of a backlog (at least one message); the rest waits for the next.
///
/// ```swift
/// var session = WebChannelSession()
/// let (generation, opened) = session.attach(.streaming, acknowledged: 0)   // writes a noop
/// let sent = try session.enqueue(Array(#"{"targetChange":{}}"#.utf8))      // writes [[2,[…]]]
/// ```
package struct WebChannelSession: Sendable {
    package enum Mode: Sendable, Equatable {
        /// `CI=0`: the response stays open; messages are written as they come.
        case streaming
        /// `CI=1`: the response ends with the first data.
        case polling
    }

    /// What the server does on a back channel's HTTP stream.
    package enum Action: Sendable, Equatable {
        /// Write `bytes` (already framed) on the back channel `generation`, then end it if `finish`.
        case write(generation: Int, bytes: [UInt8], finish: Bool)
        /// End the back channel `generation` (replaced by a newer one).
        case finish(generation: Int)
    }

    /// Why client messages cannot be accepted.
    package enum Failure: Error, Sendable, Equatable {
        /// `ofs` skips messages the session never got.
        case gap(expected: Int, got: Int)
        /// The client left more than the allowed bytes unacknowledged.
        case overflow(bytes: Int)
    }

    /// The noop message a back channel carries to show it is alive.
    package static let noop: [UInt8] = Array(#""noop""#.utf8)

    private struct Outgoing: Sendable {
        var id: Int
        var payload: [UInt8]
    }

    private struct BackChannel: Sendable {
        var generation: Int
        var mode: Mode
        /// The last message id written on it.
        var sentThrough: Int
        /// The bytes written on it.
        var written = 0
    }

    /// Messages not yet acknowledged, ascending ids.
    private var outgoing: [Outgoing] = []
    private var outgoingStart = 0
    /// The payload bytes of `outgoing`.
    package private(set) var unacknowledgedBytes = 0
    /// The last message id handed out (0: only the session reply so far).
    package private(set) var lastID = 0
    /// The `ofs` the next new client message has.
    package private(set) var nextOffset = 0
    private var backChannel: BackChannel?
    private var generations = 0
    private var holds = 0
    /// Unacknowledged bytes past which the session fails.
    package let maxUnacknowledgedBytes: Int
    /// A back channel carries about this many bytes at most (one message may exceed it alone),
    /// then ends. The client keeps a back channel's whole response as one growing string and
    /// copies and searches it again after every network read (the JS SDK's WebChannel over
    /// `fetch` does), so a long-lived back channel, or one that carries a large backlog at once,
    /// costs the client time quadratic in what it carried; a fresh one starts from nothing.
    package let maxBackChannelBytes: Int

    package init(maxUnacknowledgedBytes: Int = 32 << 20, maxBackChannelBytes: Int = 128 << 10) {
        self.maxUnacknowledgedBytes = maxUnacknowledgedBytes
        self.maxBackChannelBytes = maxBackChannelBytes
    }

    /// Whether a back channel is attached.
    package var isBackChannelOpen: Bool { backChannel != nil }

    /// No back channel is attached: the client has not come back for what it was sent. (Held
    /// messages do not count: their release sends them without the client's help.)
    package var isBackedUp: Bool { backChannel == nil }

    /// The bytes of messages not yet written on any back channel (the forward channel's
    /// "outstanding bytes").
    package var unsentBytes: Int {
        var bytes = 0
        for item in outgoing[firstIndex(after: backChannel?.sentThrough ?? 0)...] { bytes += item.payload.count }
        return bytes
    }

    /// The index in `outgoing` of the first message after `id` (ids are consecutive).
    private func firstIndex(after id: Int) -> Int {
        guard outgoingStart < outgoing.count else { return outgoing.count }
        let first = outgoing[outgoingStart].id
        return outgoingStart + min(max(0, id + 1 - first), outgoing.count - outgoingStart)
    }

    // MARK: Client messages

    /// Which of `count` client messages starting at `offset` are new (indices into the request's
    /// messages): resent ones are skipped, a gap is a failure.
    package mutating func accept(offset: Int, count: Int) throws(Failure) -> Range<Int> {
        guard offset <= nextOffset else { throw .gap(expected: nextOffset, got: offset) }
        let skip = min(count, nextOffset - offset)
        nextOffset = max(nextOffset, offset + count)
        return skip..<count
    }

    /// Drops the messages up to and including `id`.
    package mutating func acknowledge(_ id: Int) {
        while outgoingStart < outgoing.count, outgoing[outgoingStart].id <= id {
            unacknowledgedBytes -= outgoing[outgoingStart].payload.count
            outgoingStart += 1
        }
        if outgoingStart == outgoing.count {
            outgoing.removeAll(keepingCapacity: outgoing.count <= 64)
            outgoingStart = 0
        } else if outgoingStart > 64, outgoingStart * 2 > outgoing.count {
            outgoing.removeFirst(outgoingStart)
            outgoingStart = 0
        }
    }

    // MARK: Server messages

    /// Numbers `payload` (one message's JSON) and sends it if a back channel is attached and
    /// nothing is held.
    package mutating func enqueue(_ payload: [UInt8]) throws(Failure) -> [Action] {
        try enqueue(contentsOf: CollectionOfOne(payload))
    }

    /// Numbers each payload in turn; what a back channel can take goes out in one write.
    package mutating func enqueue(contentsOf payloads: some Collection<[UInt8]>) throws(Failure) -> [Action] {
        var bytes = unacknowledgedBytes
        for payload in payloads { bytes += payload.count }
        guard bytes <= maxUnacknowledgedBytes else { throw .overflow(bytes: bytes) }
        for payload in payloads {
            lastID += 1
            outgoing.append(Outgoing(id: lastID, payload: payload))
        }
        unacknowledgedBytes = bytes
        return flush()
    }

    /// Holds messages back (until ``release()``) while work whose replies must wait runs.
    package mutating func hold() { holds += 1 }

    /// Ends one ``hold()``; sends what waited when it was the last.
    package mutating func release() -> [Action] {
        holds = max(0, holds - 1)
        return flush()
    }

    // MARK: Back channel

    /// A new back channel after the client saw everything up to `acknowledged`. A back channel
    /// still attached is ended: the client has only one, so it gave up on the old one. A
    /// streaming back channel gets what is pending and a noop (which shows the client that no
    /// proxy buffers the response); a polling one gets what is pending, or waits for data.
    package mutating func attach(_ mode: Mode, acknowledged: Int) -> (generation: Int, actions: [Action]) {
        var actions: [Action] = []
        if let old = backChannel { actions.append(.finish(generation: old.generation)) }
        acknowledge(acknowledged)
        generations += 1
        backChannel = BackChannel(generation: generations, mode: mode, sentThrough: min(max(acknowledged, 0), lastID))
        if mode == .streaming, holds == 0, let noop = try? enqueue(Self.noop) {
            actions += noop
        } else {
            actions += flush()
        }
        return (generations, actions)
    }

    /// The back channel `generation` closed (its peer went away, or it ended).
    package mutating func detach(_ generation: Int) {
        if backChannel?.generation == generation { backChannel = nil }
    }

    /// A keep-alive tick of back channel `generation`: a noop, and the end of it when `final`
    /// (a streaming back channel's lifetime is bounded; a poll is answered in bounded time).
    package mutating func tick(_ generation: Int, final: Bool) -> [Action] {
        guard let channel = backChannel, channel.generation == generation else { return [] }
        var actions: [Action] = []
        if holds == 0, let noop = try? enqueue(Self.noop) { actions = noop }
        // A poll that carried the noop has already ended.
        guard final, backChannel?.generation == generation else { return actions }
        backChannel = nil
        if case .write(let g, let bytes, _)? = actions.last, g == generation {
            actions[actions.count - 1] = .write(generation: g, bytes: bytes, finish: true)
        } else {
            actions.append(.finish(generation: generation))
        }
        return actions
    }

    /// Writes what the back channel has not carried yet, as far as its byte bound allows: at least
    /// one message, then more while they fit. A back channel that cannot take everything ends;
    /// the rest waits for the client's next one (a client catching up gets its backlog in pieces
    /// of about the bound, not as one response it must hold and search as a whole).
    private mutating func flush() -> [Action] {
        guard var channel = backChannel, holds == 0, lastID > channel.sentThrough else { return [] }
        let start = firstIndex(after: channel.sentThrough)
        var end = start + 1
        var size = Self.framedSize(outgoing[start].payload)
        while end < outgoing.count {
            let next = Self.framedSize(outgoing[end].payload)
            guard channel.written + size + next <= maxBackChannelBytes else { break }
            size += next
            end += 1
        }
        let bytes = WebChannelFrame.frame(WebChannelFrame.messages(outgoing[start..<end].lazy.map { (id: $0.id, payload: $0.payload) }))
        channel.sentThrough = outgoing[end - 1].id
        channel.written += bytes.count
        let finish = channel.mode == .polling || channel.written >= maxBackChannelBytes || end < outgoing.count
        backChannel = finish ? nil : channel
        return [.write(generation: channel.generation, bytes: bytes, finish: finish)]
    }

    /// About what one message adds to a frame: its payload and `[id,[…]],` around it.
    private static func framedSize(_ payload: [UInt8]) -> Int { payload.count + 16 }
}
