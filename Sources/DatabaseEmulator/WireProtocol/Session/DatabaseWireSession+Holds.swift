import EmulatorHTTP
import Synchronization

extension DatabaseWireSession {
    /// Sends `reply` now when nothing is held ahead of it and the gate let it pass; else queues it
    /// and, for a held one, sends the queue's ready head once the gate releases it (back on the
    /// connection's thread).
    func answer(_ reply: DatabaseWireReply?, release: ReplyGate.Release?) {
        guard let reply else { return }  // a notification: nothing to answer, nothing to order
        let hold = state.withLock { s -> UInt64? in
            if s.isClosed { return nil }
            if release == nil, s.replies.isEmpty {
                output(reply.bytes)
                return nil
            }
            s.nextHold += 1
            s.replies.append(HeldReply(hold: s.nextHold, reply: reply, ready: release == nil))
            return s.nextHold
        }
        guard let hold, let release else { return }
        release { [self] in execute { self.released(hold) } }
    }

    /// The gate released `hold` (connection thread): sends every ready reply at the queue's head.
    /// Replies are sent with the lock held so two releases cannot interleave them.
    func released(_ hold: UInt64) {
        state.withLock { s in
            guard let index = s.replies.firstIndex(where: { $0.hold == hold }) else { return }
            s.replies[index].ready = true
            while let first = s.replies.first, first.ready {
                s.replies.removeFirst()
                output(first.reply.bytes)
            }
        }
    }
}
