import DatabaseEmulator
import Dispatch
import EmulatorHTTP
import EmulatorStorage
import Glibc
import Synchronization

/// Realtime Database emulator figures, in process through the router: one write fanned out to
/// 1,000 and 10,000 open event streams (delivery latency per stream), and PUT/GET throughput of
/// small values from 32 concurrent clients. Run from a release build.
func runDatabaseBenchmark(quick: Bool) {
    print("== database: SSE fan-out ==")
    for streams in [1_000, 10_000] {
        fanOut(streams: streams, rounds: quick ? 5 : 20)
    }
    idleStreams(10_000, writes: quick ? 200 : 2_000)
    print("== database: small values through the router, 32 clients ==")
    throughput(clients: 32, seconds: quick ? 1 : 3)
}

/// A stream writer that records when the armed event reached it.
private final class TimingWriter: HTTPStreamWriter {
    private let armedAt = Atomic<Int64>(0)
    private let arrival = Atomic<Int64>(0)

    func arm(_ start: Int64) {
        arrival.store(0, ordering: .relaxed)
        armedAt.store(start, ordering: .releasing)
    }

    func write(_ bytes: [UInt8]) -> Bool {
        if armedAt.load(ordering: .acquiring) != 0 && arrival.load(ordering: .relaxed) == 0 {
            arrival.store(benchNanos(), ordering: .relaxed)
        }
        return true
    }

    /// Nanoseconds from arming to arrival (nil if nothing arrived).
    var latency: Int64? {
        let a = arrival.load(ordering: .relaxed)
        return a == 0 ? nil : a - armedAt.load(ordering: .relaxed)
    }

    func finish() {}
    var isOpen: Bool { true }
    func onClose(_ handler: @escaping @Sendable () -> Void) {}
}

private func fanOut(streams: Int, rounds: Int) {
    let emulator = DatabaseEmulator(
        storage: StorageEngine(), configuration: DatabaseEmulatorConfiguration(keepAliveSeconds: nil))
    let router = emulator.router
    var headers = HTTPHeaders()
    headers.add("Accept", "text/event-stream")
    headers.add("Host", "127.0.0.1")
    var writers: [TimingWriter] = []
    for _ in 0..<streams {
        let response = router.respond(to: HTTPRequest(method: .get, target: "/rooms/lobby.json?ns=bench", headers: headers))
        guard case .stream(let body) = response.body else { return }
        let writer = TimingWriter()
        body.start(writer)
        writers.append(writer)
    }
    var samples: [Int64] = []
    var total: [Int64] = []
    samples.reserveCapacity(streams * rounds)
    for round in 0..<rounds {
        let start = benchNanos()
        for writer in writers { writer.arm(start) }
        let response = router.respond(
            to: HTTPRequest(
                method: .put, target: "/rooms/lobby/messages/m\(round).json?ns=bench",
                body: Array(#"{"text":"hello","ts":1763784000000}"#.utf8)))
        total.append(benchNanos() - start)
        guard response.status.code == 200 else { return }
        for writer in writers { if let latency = writer.latency { samples.append(latency) } }
    }
    print(
        "\(streams) streams: \(samples.count)/\(streams * rounds) deliveries; latency p50 \(benchMillis(benchPercentile(samples, 0.5))) ms, "
            + "p99 \(benchMillis(benchPercentile(samples, 0.99))) ms; whole write p99 \(benchMillis(benchPercentile(total, 0.99))) ms")
}

/// Write latency while `count` streams listen on other locations (each its own path).
private func idleStreams(_ count: Int, writes: Int) {
    let emulator = DatabaseEmulator(
        storage: StorageEngine(), configuration: DatabaseEmulatorConfiguration(keepAliveSeconds: nil))
    let router = emulator.router
    var headers = HTTPHeaders()
    headers.add("Accept", "text/event-stream")
    var writers: [TimingWriter] = []
    for i in 0..<count {
        let response = router.respond(to: HTTPRequest(method: .get, target: "/users/u\(i).json?ns=bench", headers: headers))
        guard case .stream(let body) = response.body else { return }
        let writer = TimingWriter()
        body.start(writer)
        writers.append(writer)
    }
    var samples: [Int64] = []
    for i in 0..<writes {
        let target = "/users/u\(i % count)/name.json?ns=bench"
        let start = benchNanos()
        _ = router.respond(to: HTTPRequest(method: .put, target: target, body: Array(#""Ada""#.utf8)))
        samples.append(benchNanos() - start)
    }
    print(
        "PUT with \(count) streams on other paths (one matching): p50 \(benchMillis(benchPercentile(samples, 0.5))) ms, "
            + "p99 \(benchMillis(benchPercentile(samples, 0.99))) ms")
}

private func throughput(clients: Int, seconds: Int) {
    let emulator = DatabaseEmulator(
        storage: StorageEngine(), configuration: DatabaseEmulatorConfiguration(keepAliveSeconds: nil))
    let router = emulator.router
    for method in [HTTPMethod.put, .get] {
        let counts = Mutex([Int](repeating: 0, count: clients))
        let deadline = benchNanos() + Int64(seconds) * 1_000_000_000
        let start = benchNanos()
        DispatchQueue.concurrentPerform(iterations: clients) { client in
            var done = 0
            var i = 0
            while benchNanos() < deadline {
                for _ in 0..<64 {
                    let target = "/users/u\(client)_\(i & 1023).json?ns=bench"
                    // Every PUT changes the stored value (a repeated identical write costs less).
                    let body = method == .put ? Array("{\"name\":\"Ada\",\"n\":\(i)}".utf8) : []
                    let request = HTTPRequest(method: method, target: target, body: body)
                    if router.respond(to: request).status.code == 200 { done += 1 }
                    i += 1
                }
            }
            counts.withLock { $0[client] = done }
        }
        let elapsed = Double(benchNanos() - start) / 1e9
        let total = counts.withLock { $0.reduce(0, +) }
        print("\(method.token): \(Int(Double(total) / elapsed)) requests/s (\(total) in \(String(Int(elapsed * 1000))) ms)")
    }
}

private func benchNanos() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}

private func benchPercentile(_ samples: [Int64], _ fraction: Double) -> Int64 {
    guard !samples.isEmpty else { return 0 }
    let sorted = samples.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * fraction))]
}

private func benchMillis(_ nanos: Int64) -> String {
    let hundredths = (nanos + 5_000) / 10_000
    let fraction = hundredths % 100
    return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
}
