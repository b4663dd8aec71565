/// Writes one event to many streams so that a transport with several sending threads sends in
/// parallel.
///
/// A transport's writer either sends on the calling thread or hands the bytes to the thread that
/// owns its connection (``HTTPStreamWriter/sendsOnCallingThread``). Writing the streams in their
/// own order would make the owning threads wait for the caller to reach their streams; instead the
/// hand-overs go first (cheap: a queue append each), so every other thread starts sending at once,
/// and then the caller sends its own share. Each stream still gets exactly one write per call, so
/// the order of events on any one stream is the order of the calls.
///
/// ```swift
/// let refused = HTTPStreamFanOut.write(event, count: writers.count) { writers[$0] }
/// // refused: the indices whose stream had closed (drop them)
/// ```
package enum HTTPStreamFanOut {
    /// Writes `bytes` to `writer(i)` for every `i` in `0..<count` where it is not nil; returns the
    /// indices (ascending) whose writer refused the bytes because its stream had closed.
    package static func write(
        _ bytes: [UInt8], count: Int, writer: (Int) -> (any HTTPStreamWriter)?
    ) -> [Int] {
        var refused: [Int] = []
        // Pass 1: hand-overs to other threads. Pass 2: the streams sent from this thread.
        var local: [Int] = []
        for index in 0..<count {
            guard let target = writer(index) else { continue }
            if target.sendsOnCallingThread {
                local.append(index)
            } else if !target.write(bytes) {
                refused.append(index)
            }
        }
        var localRefused = false
        for index in local {
            guard let target = writer(index), !target.write(bytes) else { continue }
            refused.append(index)
            localRefused = true
        }
        if localRefused, refused.count > 1 { refused.sort() }
        return refused
    }
}
