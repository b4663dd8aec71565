import Glibc

/// What one cache miss costs on this machine: a chain of dependent loads, each to a random
/// 64-byte line of a buffer of 1, 16 and 256 MiB (in the cache; past it; far past it, where
/// the page tables miss too). A point read in a large tree is a few such misses in a row, so
/// this is the floor to read its figures against (machines differ by 2× here).
func runMemoryLatencyBenchmark() {
    print("== memory-latency: dependent loads to random lines ==")
    var generator = BenchmarkRandom(seed: 5)
    for mebibytes in [1, 16, 256] {
        let lines = mebibytes << 14
        // A random cycle through every line: each load's address is the value the last one read.
        var order = Array(0..<lines)
        order.shuffle(using: &generator)
        var next = [Int](repeating: 0, count: lines * 8)
        for position in 0..<lines {
            next[order[position] * 8] = order[(position + 1) % lines] * 8
        }
        let steps = 2_000_000
        var cursor = 0
        let start = monotonicNanos()
        next.withUnsafeBufferPointer { next in
            for _ in 0..<steps { cursor = next[cursor] }
        }
        let nanos = Double(monotonicNanos() - start) / Double(steps)
        keepAlive(cursor)
        print("\(mebibytes) MiB: \(Int(nanos.rounded())) ns per dependent load")
    }
}
