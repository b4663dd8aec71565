import EmulatorHTTP
import Synchronization

extension GRPCServerConnection {
    /// Runs one handler call of `stream` (transport thread) through the gate. While the call runs,
    /// and afterwards until the gate releases it, output to the stream queues in order; the
    /// release hops back to the connection's thread and sends what queued. Without a gate the call
    /// just runs.
    func gated(_ stream: UInt32, _ body: () -> Void) {
        guard let gate else { return body() }
        let hold = state.withLock { s -> UInt64? in
            guard !s.closed, s.calls[stream] != nil else { return nil }
            s.nextHold += 1
            s.calls[stream]?.pending.append(.hold(s.nextHold))
            return s.nextHold
        }
        guard let hold else { return body() }
        if let release = gate.run(body) {
            release { [self] in output.execute { self.release(stream, hold) } }
        } else {
            release(stream, hold)
        }
    }

    /// Lifts `hold` and sends what queued behind it, up to the next hold (connection thread). A
    /// stream that was reset or finished meanwhile has nothing left to send.
    func release(_ stream: UInt32, _ hold: UInt64) {
        var work: [@Sendable () -> Void] = []
        locked { s in
            guard !s.closed, let pending = s.calls[stream]?.pending else { return }
            guard let index = pending.firstIndex(where: { if case .hold(hold) = $0 { true } else { false } }) else { return }
            s.calls[stream]?.pending.remove(at: index)
            while let first = s.calls[stream]?.pending.first {
                guard case .output(let messages, let framed, let status) = first else { break }
                s.calls[stream]?.pending.removeFirst()
                emit(stream, messages, framed: framed, status: status, &s, &work)
            }
        }
        for w in work { w() }
    }
}
