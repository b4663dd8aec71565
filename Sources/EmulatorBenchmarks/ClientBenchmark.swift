import Dispatch
import EmulatorClient
import EmulatorSuite
import Foundation
import Synchronization

/// Scenario `client`: the Swift client library against an in-process suite over loopback.
/// - listener latency: a write by one client until another client's snapshot listener (the
///   `Listen` stream) sees it, p50/p99;
/// - `setData(from:)` in 500-document batches, documents per second.
func runClientBenchmark(quick: Bool) {
    let done = DispatchSemaphore(value: 0)
    Task {
        do {
            try await clientBenchmark(quick: quick)
        } catch {
            print("client benchmark failed: \(error)")
        }
        done.signal()
    }
    done.wait()
}

private struct BenchBook: Codable {
    var title: String
    var numberOfPages: Int
    var author: String
}

private final class Arrivals: Sendable {
    private let seen = Mutex<[Int: UInt64]>([:])
    func record(_ i: Int) { seen.withLock { if $0[i] == nil { $0[i] = DispatchTime.now().uptimeNanoseconds } } }
    func arrival(_ i: Int) -> UInt64? { seen.withLock { $0[i] } }
}

private func clientBenchmark(quick: Bool) async throws {
    try await withSuite(.ephemeral(projectId: "demo-bench", kinds: [.firestore])) { suite in
        guard let port = suite.port(of: .firestore) else { return }
        let writer = Firestore(projectID: "demo-bench")
        writer.useEmulator(withHost: "127.0.0.1", port: port)
        let reader = Firestore(projectID: "demo-bench")
        reader.useEmulator(withHost: "127.0.0.1", port: port)

        let arrivals = Arrivals()
        let registration = reader.document("bench/latency").addSnapshotListener { snapshot, _ in
            if let i = snapshot?.get("i") as? Int { arrivals.record(i) }
        }
        try await writer.document("bench/latency").setData(["i": -1])
        while arrivals.arrival(-1) == nil { try await Task.sleep(for: .milliseconds(1)) }
        let rounds = quick ? 100 : 2_000
        var latencies: [Double] = []
        for i in 0..<rounds {
            let start = DispatchTime.now().uptimeNanoseconds
            try await writer.document("bench/latency").setData(["i": i])
            var arrived = arrivals.arrival(i)
            while arrived == nil {
                await Task.yield()
                arrived = arrivals.arrival(i)
            }
            latencies.append(Double((arrived ?? start) - start) / 1_000)
        }
        registration.remove()
        latencies.sort()
        func percentile(_ p: Double) -> Double { latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] }
        print(String(format: "client listener latency (write by another client to callback): p50 %.0f µs, p99 %.0f µs (%d writes)",
            percentile(0.5), percentile(0.99), rounds))

        let total = quick ? 2_000 : 10_000
        let books = writer.collection("books")
        let start = DispatchTime.now().uptimeNanoseconds
        var written = 0
        while written < total {
            let batch = writer.batch()
            for _ in 0..<min(500, total - written) {
                try batch.setData(from: BenchBook(title: "Book \(written)", numberOfPages: written, author: "Bench"), forDocument: books.document())
                written += 1
            }
            try await batch.commit()
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        print(String(format: "client setData(from:) in 500-document batches: %d docs in %.2f s = %.0f docs/s", total, seconds, Double(total) / seconds))
        runPythonBatches(port: port, total: total)
    }
}

/// The same documents through google-cloud-firestore against the same suite, when
/// `CLIENT_BENCH_PYTHON` names a Python that has it (Benchmarks/client_batch_python.py).
private func runPythonBatches(port: Int, total: Int) {
    guard let python = ProcessInfo.processInfo.environment["CLIENT_BENCH_PYTHON"] else {
        print("python comparison skipped: set CLIENT_BENCH_PYTHON to a python3 with google-cloud-firestore")
        return
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: python)
    process.arguments = ["Benchmarks/client_batch_python.py", "demo-bench", String(total)]
    var environment = ProcessInfo.processInfo.environment
    environment["FIRESTORE_EMULATOR_HOST"] = "127.0.0.1:\(port)"
    process.environment = environment
    do {
        try process.run()
        process.waitUntilExit()
    } catch {
        print("python comparison failed: \(error)")
    }
}
