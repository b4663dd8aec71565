import EmulatorHTTP
import EmulatorSupport
import Synchronization

/// Where a long-poll connection's server messages wait for the client's next poll, numbered into
/// packets.
///
/// The wire session's `output` lands here (`deliver`). A poll takes everything queued as one
/// packet (`pRTLPCB<cb>(n, [...])`, numbers from 0 without gaps); with nothing queued the poll is
/// held, and the next message (or the next poll, or the hold timeout) answers it. After an upgrade
/// the queue ends with the end-of-transmission message and later messages go to the WebSocket.
/// A close (`pLPCommand<cb>('close', last)`) follows the last packet.
///
/// Output may arrive on any thread, also under the storage commit lock (pushes), so this type
/// never calls out to anything but stream writers and the WebSocket's send, which only queue.
///
/// A held poll's close handler may run inside a write this outbox makes under its lock (a writer
/// that finds its peer gone, or one that closes as it finishes, runs its handlers there), so the
/// handler never takes that lock: it notes the loss in ``LostPolls``, and every section under the
/// lock applies what was noted first, so the loss counts from the moment it was noted, without a
/// hop to another thread and without re-entering the lock.
final class DatabaseLongPollOutbox: Sendable {
    struct State: Sendable {
        var queue: [[UInt8]] = []
        var queuedBytes = 0
        var nextPacket = 0
        var held: (writer: any HTTPStreamWriter, generation: Int, since: Int64)?
        var generation = 0
        /// After the upgrade: the WebSocket's send.
        var webSocket: (@Sendable ([UInt8]) -> Void)?
        /// A close is due after what is queued; `finished` once it went out.
        var closing = false
        var finished = false
        /// The time of the last request, and when a held poll's connection was lost.
        var lastActive: Int64
        var lostAt: Int64?
    }

    let callback: String
    let maxQueuedBytes: Int
    /// Where held polls' close handlers note their loss.
    let lostPolls = LostPolls()
    private let state: Mutex<State>

    init(callback: String, maxQueuedBytes: Int, now: Int64) {
        self.callback = callback
        self.maxQueuedBytes = maxQueuedBytes
        state = Mutex(State(lastActive: now))
    }

    /// `{"t":"c","d":{"t":"n","d":{}}}`: the last message over long-polling after an upgrade.
    static let endOfTransmission = Array(#"{"t":"c","d":{"t":"n","d":{}}}"#.utf8)

    /// `{"t":"c","d":{"t":"e","d":message}}`: an error the SDK logs (`Server Error: …`).
    static func error(_ message: String) -> [UInt8] {
        JSONWriter.encode(
            .object([
                JSONMember("t", .string("c")),
                JSONMember("d", .object([JSONMember("t", .string("e")), JSONMember("d", .string(message))])),
            ]))
    }

    // MARK: Output

    /// One server message (the wire session's output).
    func deliver(_ message: [UInt8]) {
        withState { s in
            if let webSocket = s.webSocket {
                webSocket(message)
                return
            }
            guard !s.closing else { return }
            s.queue.append(message)
            s.queuedBytes += message.count
            if s.queuedBytes > maxQueuedBytes {
                // The client stopped reading: end the connection (the server removes it).
                s.queue = [Self.error("The long-poll client left more than \(maxQueuedBytes) bytes unread.")]
                s.queuedBytes = 0
                s.closing = true
            }
            flushHeld(&s)
        }
    }

    // MARK: Polls

    /// What a poll that just arrived gets at once: a packet (and the close, if due), or nil when
    /// there is nothing to send (hold the poll).
    func answer(now: Int64) -> [UInt8]? {
        withState { s in
            s.lastActive = now
            s.lostAt = nil
            return hasAnswer(s) ? body(&s) : nil
        }
    }

    /// Holds `writer` (an open poll) until there is something to send; answers at once if there
    /// is. Returns the hold's generation, or nil when it was answered.
    func hold(_ writer: any HTTPStreamWriter, now: Int64) -> Int? {
        withState { s -> Int? in
            if hasAnswer(s) || s.finished {
                send(s.finished ? DatabaseLongPollScript.empty : body(&s), to: writer)
                return nil
            }
            if let previous = s.held {  // never two held: the older one ends empty
                send(DatabaseLongPollScript.empty, to: previous.writer)
            }
            s.generation += 1
            s.held = (writer, s.generation, now)
            return s.generation
        }
    }

    /// Answers the held poll, if any, with what is queued (possibly nothing).
    func releaseHeld() {
        withState { s in
            guard let held = s.held, held.writer.isOpen else { return }
            s.held = nil
            send(hasAnswer(s) ? body(&s) : DatabaseLongPollScript.empty, to: held.writer)
        }
    }

    /// Ends the held poll if it has been held since before `cutoff` (the client replaces a poll
    /// after 25 seconds; answering first keeps it to one at a time).
    func releaseHeld(heldBefore cutoff: Int64) {
        withState { s in
            guard let held = s.held, held.since < cutoff, held.writer.isOpen else { return }
            s.held = nil
            send(hasAnswer(s) ? body(&s) : DatabaseLongPollScript.empty, to: held.writer)
        }
    }

    // MARK: Ending

    /// After the upgrade: the end-of-transmission message goes out over long-polling, followed
    /// by the close; every later message goes to `webSocket`.
    func switchToWebSocket(_ webSocket: @escaping @Sendable ([UInt8]) -> Void) {
        withState { s in
            guard !s.closing else { return }
            s.queue.append(Self.endOfTransmission)
            s.closing = true
            s.webSocket = webSocket
            flushHeld(&s)
        }
    }

    /// Ends the connection: `message` (if any) as an error, then the close.
    func close(error message: String? = nil) {
        withState { s in
            guard !s.closing else { return }
            if let message { s.queue.append(Self.error(message)) }
            s.closing = true
            flushHeld(&s)
        }
    }

    /// Whether the connection moved to a WebSocket.
    var isUpgraded: Bool { withState { $0.webSocket != nil } }

    /// Whether a close was asked for, and whether it went out.
    var closeState: (closing: Bool, finished: Bool) { withState { ($0.closing, $0.finished) } }

    /// What the sweep looks at.
    func liveness() -> (lastActive: Int64, lostAt: Int64?, holding: Bool) {
        withState { ($0.lastActive, $0.lostAt, $0.held != nil) }
    }

    /// Messages waiting for a poll.
    var queuedCount: Int { withState { $0.queue.count } }

    // MARK: Internals

    /// `body` under the lock, with the polls lost meanwhile applied before it and after it (a
    /// close its own write caused).
    private func withState<Result>(_ body: (inout State) -> Result) -> Result {
        state.withLock { s in
            applyLost(&s)
            let result = body(&s)
            applyLost(&s)
            return result
        }
    }

    private func applyLost(_ s: inout State) {
        guard let lost = lostPolls.take() else { return }
        guard let held = s.held, held.generation == lost.generation else { return }
        s.held = nil
        s.lostAt = lost.at
    }

    private func hasAnswer(_ s: State) -> Bool {
        !s.queue.isEmpty || (s.closing && !s.finished)
    }

    /// The queued messages as the next packet, then the close if due.
    private func body(_ s: inout State) -> [UInt8] {
        var out: [UInt8] = []
        if !s.queue.isEmpty {
            out = DatabaseLongPollScript.packet(callback: callback, number: s.nextPacket, messages: s.queue)
            s.nextPacket += 1
            s.queue = []
            s.queuedBytes = 0
        }
        if s.closing && !s.finished {
            out.append(contentsOf: DatabaseLongPollScript.close(callback: callback, after: s.nextPacket > 0 ? s.nextPacket - 1 : nil))
            s.finished = true
        }
        return out
    }

    private func flushHeld(_ s: inout State) {
        // A held poll whose peer is gone keeps the messages queued (its close handler clears it).
        guard let held = s.held, held.writer.isOpen, hasAnswer(s) else { return }
        s.held = nil
        send(body(&s), to: held.writer)
    }

    /// Writes `bytes` as the whole answer. A writer whose peer is already gone takes nothing; the
    /// packet is then lost with it, as any packet of a client that went away.
    private func send(_ bytes: [UInt8], to writer: any HTTPStreamWriter) {
        if !bytes.isEmpty { writer.write(bytes) }
        writer.finish()
    }
}

extension DatabaseLongPollOutbox {
    /// The newest held poll whose connection closed unanswered, noted by its close handler until
    /// the outbox applies it under its own lock. Generations only grow and only the held one
    /// counts, so the newest noted is all that needs keeping. A leaf lock: nothing runs under it.
    final class LostPolls: Sendable {
        private let noted = Mutex<(generation: Int, at: Int64)?>(nil)

        func note(_ generation: Int, at now: Int64) {
            noted.withLock { noted in
                if let previous = noted, previous.generation > generation { return }
                noted = (generation, now)
            }
        }

        func take() -> (generation: Int, at: Int64)? {
            noted.withLock { noted in
                defer { noted = nil }
                return noted
            }
        }
    }
}
