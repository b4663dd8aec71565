import Synchronization

/// One live session of a ``WebChannelServer``: the ``WebChannelSession`` state machine, the
/// back channel's HTTP stream it writes to, and the service's stream.
///
/// Locks: client messages are delivered under `delivery` (one request's messages at a time, in
/// `ofs` order) and outside `state`, because the stream answers synchronously through
/// ``enqueue(_:)``, which takes `state`. Nothing under `state` calls into the stream.
final class WebChannelSessionBox: Sendable {
    let id: String

    private struct State {
        var session: WebChannelSession
        var writer: (generation: Int, writer: any HTTPStreamWriter)?
        var stream: (any WebChannelStream)?
        var lastActive: UInt64
        var closed = false
        /// The client left too much unacknowledged: the session answers as unknown from now on.
        var failed = false
    }

    private let state: Mutex<State>
    private let delivery = Mutex<Void>(())

    init(id: String, session: WebChannelSession, now: UInt64) {
        self.id = id
        self.state = Mutex(State(session: session, lastActive: now))
    }

    var lastActive: UInt64 { state.withLock { $0.lastActive } }

    var stream: (any WebChannelStream)? { state.withLock { $0.stream } }

    func setStream(_ stream: any WebChannelStream) {
        state.withLock { $0.stream = stream }
    }

    /// Notes a request; false when the session can no longer be used.
    func touch(_ now: UInt64) -> Bool {
        state.withLock { s in
            guard !s.closed, !s.failed else { return false }
            s.lastActive = now
            return true
        }
    }

    /// True when the session should be closed: failed, or no back channel and no request for
    /// longer than `timeout` nanoseconds.
    func isIdle(now: UInt64, timeout: UInt64) -> Bool {
        state.withLock { s in
            s.failed || (!s.session.isBackChannelOpen && now >= s.lastActive && now - s.lastActive > timeout)
        }
    }

    func acknowledge(_ id: Int) {
        state.withLock { $0.session.acknowledge(id) }
    }

    /// Hands the new messages of `form` to the stream, inside `through` (which runs its work once,
    /// on this thread).
    func deliver(_ form: WebChannelForm, through: (() -> Void) -> Void) throws(WebChannelSession.Failure) {
        try delivery.withLock { _ throws(WebChannelSession.Failure) in
            let (range, stream) = try state.withLock { s throws(WebChannelSession.Failure) in
                (try s.session.accept(offset: form.offset, count: form.messages.count), s.stream)
            }
            guard let stream, !range.isEmpty else { return }
            through {
                for i in range { stream.receive(form.messages[i]) }
            }
        }
    }

    func enqueue(_ messages: [[UInt8]]) {
        state.withLock { s in
            guard !s.closed, !s.failed else { return }
            do {
                let actions = try s.session.enqueue(contentsOf: messages)
                perform(actions, &s, replaced: nil)
            } catch {
                // Called from inside the stream's own lock, so the stream is closed later, by the
                // sweep; the client sees an unknown session and starts over.
                s.failed = true
                s.writer?.writer.finish()
                s.writer = nil
            }
        }
    }

    func hold() { state.withLock { $0.session.hold() } }

    func release() {
        state.withLock { s in
            let actions = s.session.release()
            perform(actions, &s, replaced: nil)
        }
    }

    /// `[back channel open, last id, unsent bytes]` for a forward channel's answer.
    func forwardReply() -> (Bool, Int, Int) {
        state.withLock { s in (s.session.isBackChannelOpen, s.session.lastID, s.session.unsentBytes) }
    }

    var isBackedUp: Bool { state.withLock { $0.session.isBackedUp } }

    /// Makes `writer` the back channel, then tells the stream; nil (and the writer ended) when
    /// the session is gone.
    func attach(_ writer: any HTTPStreamWriter, mode: WebChannelSession.Mode, acknowledged: Int) -> Int? {
        let attached = state.withLock { s -> (generation: Int, stream: (any WebChannelStream)?)? in
            guard !s.closed, !s.failed else {
                writer.finish()
                return nil
            }
            let (generation, actions) = s.session.attach(mode, acknowledged: acknowledged)
            let old = s.writer
            s.writer = (generation, writer)
            perform(actions, &s, replaced: old)
            return (generation, s.stream)
        }
        attached?.stream?.backChannelAttached()
        return attached?.generation
    }

    func detach(_ generation: Int, now: UInt64) {
        state.withLock { s in
            s.session.detach(generation)
            if s.writer?.generation == generation { s.writer = nil }
            s.lastActive = now
        }
    }

    /// A keep-alive tick; true while back channel `generation` is still attached.
    func tick(_ generation: Int, final: Bool) -> Bool {
        state.withLock { s in
            guard !s.closed else { return false }
            perform(s.session.tick(generation, final: final), &s, replaced: nil)
            return s.writer?.generation == generation
        }
    }

    /// Ends the back channel and the stream.
    func close() {
        let stream = state.withLock { s -> (any WebChannelStream)? in
            s.closed = true
            s.writer?.writer.finish()
            s.writer = nil
            defer { s.stream = nil }
            return s.stream
        }
        stream?.close()
    }

    private func perform(_ actions: [WebChannelSession.Action], _ s: inout State, replaced: (generation: Int, writer: any HTTPStreamWriter)?) {
        for action in actions {
            switch action {
            case .write(let generation, let bytes, let finish):
                guard let current = s.writer, current.generation == generation else { continue }
                current.writer.write(bytes)
                if finish {
                    current.writer.finish()
                    s.writer = nil
                }
            case .finish(let generation):
                if let current = s.writer, current.generation == generation {
                    current.writer.finish()
                    s.writer = nil
                } else if let replaced, replaced.generation == generation {
                    replaced.writer.finish()
                }
            }
        }
    }
}
