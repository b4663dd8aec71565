import Glibc
import Synchronization

/// Generates Realtime Database push ids: 20 characters, 8 encoding the time in milliseconds and
/// 12 random ones, in an alphabet whose ASCII order is its numeric order, so ids sort by time.
///
/// Within one millisecond (or if the clock steps back) the previous random part is incremented,
/// so ids from one generator are strictly increasing.
///
/// ```swift
/// let ids = PushIdGenerator()
/// let key = ids.next()          // e.g. "-NxY3c1Qz9AbCdEfGhIj"
/// ```
package final class PushIdGenerator: Sendable {
    /// The 64 characters in ascending ASCII order.
    package static let alphabet: [UInt8] = Array("-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz".utf8)

    private struct State {
        var lastTime: Int64 = -1
        var random: [UInt8] = Array(repeating: 0, count: 12)
    }

    private let state = Mutex(State())

    package init() {}

    /// A new id for the current wall-clock time.
    package func next() -> String {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return next(milliseconds: Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000)
    }

    /// A new id for the given time (milliseconds since the epoch, e.g. server time).
    package func next(milliseconds: Int64) -> String {
        state.withLock { s in
            var time = milliseconds
            if time > s.lastTime {
                var rng = SystemRandomNumberGenerator()
                for i in 0..<12 { s.random[i] = UInt8.random(in: 0..<64, using: &rng) }
            } else {
                time = s.lastTime
                var i = 11
                while i >= 0 && s.random[i] == 63 {
                    s.random[i] = 0
                    i -= 1
                }
                if i >= 0 {
                    s.random[i] += 1
                } else {
                    time += 1  // all 72 random bits used up in this millisecond: borrow the next one
                }
            }
            s.lastTime = time
            var out = [UInt8](repeating: 0, count: 20)
            var t = time
            for i in stride(from: 7, through: 0, by: -1) {
                out[i] = Self.alphabet[Int(t & 63)]
                t >>= 6
            }
            for i in 0..<12 { out[8 + i] = Self.alphabet[Int(s.random[i])] }
            return String(decoding: out, as: UTF8.self)
        }
    }
}
