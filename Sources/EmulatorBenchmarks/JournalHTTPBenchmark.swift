import EmulatorHTTP
import EmulatorSuite
import EmulatorSupport
import Glibc
import Synchronization

/// Write throughput over loopback with the live data directory against in-memory: the suite is
/// started in process (`Suite.start`, Realtime Database only, the real EmulatorPosix server and
/// `--data-dir` wiring) and N client threads, each on its own keep-alive connection, send
/// `PUT /w/c<client>_<i>.json` and wait for each answer. Modes: in-memory, `--data-dir-no-fsync`,
/// `--data-dir` (fdatasync group commit; acknowledged by deferred responses). Rounds alternate
/// the modes; medians of 3 (1 with --quick). Clients and server share the machine's cores.
/// A fourth mode, `--data-dir` on a transport that does not complete deferred responses, shows
/// the blocking acknowledgement (the handler waits for the sync on the event loop) for contrast.
/// With `JOURNAL_CPU=1` in the environment every run also prints the process's CPU use and CPU
/// time per write (clients included), which shows what each `fdatasync` costs the machine.
/// `JOURNAL_CONNECTIONS=8,32` limits the connection counts, `JOURNAL_MODES=memory,sync` the modes
/// (`memory`, `write`, `sync`, `blocking`; a mode left out prints 0), `JOURNAL_ROUNDS=n` the rounds.
/// Mode `experiment` (only when listed) is `--data-dir` with `EMULATORS_JOURNAL_EXPERIMENT=1` set
/// during the run, alternating with the others: for paired runs of a change under test that
/// reads the variable (nothing in the shipped code does).
func runJournalHTTPBenchmark(quick: Bool) {
    let root = "/tmp/emulators-journal-http-\(getpid())"
    mkdir(root, 0o755)
    defer { removeBenchTree(root) }
    let seconds = quick ? 1 : 2
    let rounds = environmentInt("JOURNAL_ROUNDS") ?? (quick ? 1 : 3)
    let counts = environmentList("JOURNAL_CONNECTIONS").compactMap { Int($0) }
    let modes = Set(environmentList("JOURNAL_MODES"))
    func runs(_ mode: String) -> Bool { modes.isEmpty || modes.contains(mode) }
    print("== journal over HTTP: RTDB PUT on keep-alive loopback connections, \(seconds) s per run, medians of \(rounds) ==")
    for connections in counts.isEmpty ? [1, 8, 32, 128] : counts {
        var memory: [Double] = [], written: [Double] = [], synced: [Double] = [], blocking: [Double] = [], experiment: [Double] = []
        for round in 0..<rounds {
            func runExperiment() {
                guard modes.contains("experiment") else { return }
                setenv("EMULATORS_JOURNAL_EXPERIMENT", "1", 1)
                experiment.append(httpJournalRun(root: root, connections: connections, seconds: seconds, mode: true, round: round, label: "experiment"))
                unsetenv("EMULATORS_JOURNAL_EXPERIMENT")
            }
            memory.append(runs("memory") ? httpJournalRun(root: root, connections: connections, seconds: seconds, mode: nil, round: round) : 0)
            written.append(runs("write") ? httpJournalRun(root: root, connections: connections, seconds: seconds, mode: false, round: round) : 0)
            // The experiment and `--data-dir` swap places every round: with the experiment always
            // second, an A/A run (the same code in both) differed by 7-9% at 8 and 32 connections.
            let experimentFirst = round % 2 == 1
            if experimentFirst { runExperiment() }
            synced.append(runs("sync") ? httpJournalRun(root: root, connections: connections, seconds: seconds, mode: true, round: round) : 0)
            if !experimentFirst { runExperiment() }
            blocking.append(
                runs("blocking")
                    ? httpJournalRun(root: root, connections: connections, seconds: seconds, mode: true, round: round, transport: BlockingTransport())
                    : 0)
        }
        let m = httpMedian(memory), w = httpMedian(written), y = httpMedian(synced), b = httpMedian(blocking)
        func percent(_ value: Double) -> String { m > 0 ? "\(Int((value / m * 100).rounded()))%" : "—" }
        print("journal-http \(connections) connections: in-memory \(Int(m)) writes/s; write before ack \(Int(w)) writes/s = \(percent(w)); fdatasync group commit \(Int(y)) writes/s = \(percent(y)); blocking ack \(Int(b)) writes/s = \(percent(b))")
        if !experiment.isEmpty {
            let x = httpMedian(experiment)
            print("journal-http \(connections) connections: experiment \(Int(x)) writes/s = \(percent(x)) (runs: \(experiment.map { String(Int($0)) }.joined(separator: " ")); sync runs: \(synced.map { String(Int($0)) }.joined(separator: " ")))")
        }
    }
    var load = [Double](repeating: 0, count: 3)
    if getloadavg(&load, 3) == 3 {
        print("load average after the run: \(load.map { String(Int($0 * 100)) }.joined(separator: " ")) (×0.01)")
    }
}

private func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

private func environmentList(_ name: String) -> [String] {
    guard let raw = getenv(name) else { return [] }
    return String(cString: raw).split(separator: ",").map { String($0) }
}

private func environmentInt(_ name: String) -> Int? {
    guard let raw = getenv(name) else { return nil }
    return Int(String(cString: raw))
}

private func httpMedian(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

/// One run; `mode` nil = in-memory, false = `--data-dir-no-fsync`, true = `--data-dir`.
private func httpJournalRun(
    root: String, connections: Int, seconds: Int, mode: Bool?, round: Int, transport: any ListenerFactory = Suite.defaultTransport,
    label custom: String? = nil, verbose: Bool = getenv("JOURNAL_CPU") != nil
) -> Double {
    var configuration = SuiteConfiguration.ephemeral(projectId: "demo-bench", kinds: [.database])
    let label = custom ?? (mode.map { $0 ? "sync" : "write" } ?? "memory") + (transport.completesDeferredResponses ? "" : "-blocking")
    let directory = root + "/live-\(connections)-\(round)-\(label)"
    if let mode {
        configuration.dataDirectory = directory
        configuration.dataDirectoryFsync = mode
    }
    let suite: Suite
    do {
        suite = try Suite.start(configuration, transport: transport)
    } catch {
        print("journal-http: cannot start the suite: \(error)")
        return 0
    }
    guard let port = suite.port(of: .database) else { return 0 }
    let cpuBefore = processCPUSeconds()
    let start = httpNanos()
    let deadline = start + Int64(seconds) * 1_000_000_000
    let clients = (0..<connections).map { HTTPWriteClient(port: port, id: $0, deadline: deadline) }
    let threads = clients.compactMap { client in PosixThread.start { client.run() } }
    for thread in threads { thread.join() }
    let elapsed = Double(httpNanos() - start) / 1e9
    let cpu = processCPUSeconds() - cpuBefore
    let writes = Double(clients.reduce(0) { $0 + $1.done.withLock { $0 } })
    if verbose {
        print("  \(label) \(connections): \(Int(writes / elapsed)) writes/s, process CPU \(Int(cpu / elapsed * 100))% of one core, \(Int(cpu / max(writes, 1) * 1e6)) µs CPU per write")
    }
    suite.shutdown(gracePeriod: .milliseconds(200))
    removeBenchTree(directory)
    return Double(clients.reduce(0) { $0 + $1.done.withLock { $0 } }) / elapsed
}

/// The EmulatorPosix transport without deferred acknowledgements: handlers block on the sync.
private struct BlockingTransport: ListenerFactory {
    func listen(host: String, port: Int, handler: @escaping HTTPHandler) throws(ListenFailure) -> any SuiteListener {
        try PosixListenerFactory().listen(host: host, port: port, handler: handler, http2Handler: nil)
    }
}

/// One keep-alive connection writing as fast as its answers come back.
private final class HTTPWriteClient: Sendable {
    let port: Int, id: Int, deadline: Int64, done: Mutex<Int>
    init(port: Int, id: Int, deadline: Int64) {
        self.port = port; self.id = id; self.deadline = deadline; self.done = Mutex(0)
    }

    func run() {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return }
        var n = 0
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while httpNanos() < deadline {
            let body = "{\"name\":\"Ada\",\"n\":\(n)}"
            let request = Array(
                "PUT /w/c\(id)_\(n & 4095).json?ns=bench HTTP/1.1\r\nHost: b\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8)
            guard sendAll(fd, request), let status = readResponse(fd, &buffer) else { break }
            if status == 200 { n += 1 }
        }
        done.withLock { $0 = n }
    }

    private func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return -1 }
                return send(fd, base + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    /// Reads one response with a `Content-Length` body; returns its status code.
    private func readResponse(_ fd: Int32, _ buffer: inout [UInt8]) -> Int? {
        var count = 0
        var headEnd: Int?
        var total: Int?
        while true {
            if count == buffer.count { buffer.append(contentsOf: [UInt8](repeating: 0, count: buffer.count)) }
            let received = buffer.withUnsafeMutableBytes { raw -> Int in
                guard let base = raw.baseAddress else { return -1 }
                return recv(fd, base + count, raw.count - count, 0)
            }
            if received <= 0 { return nil }
            count += received
            if headEnd == nil, count >= 4 {
                for i in 0...(count - 4) where buffer[i] == 13 && buffer[i + 1] == 10 && buffer[i + 2] == 13 && buffer[i + 3] == 10 {
                    headEnd = i + 4
                    break
                }
                if let end = headEnd {
                    let head = String(decoding: buffer[0..<end], as: UTF8.self).lowercased()
                    var length = 0
                    for line in head.split(separator: "\r\n") where line.hasPrefix("content-length:") {
                        length = Int(line.dropFirst("content-length:".count).drop { $0 == " " }) ?? 0
                    }
                    total = end + length
                }
            }
            if let total, count >= total {
                // "HTTP/1.1 200": the status code is bytes 9..<12.
                guard count >= 12 else { return nil }
                return Int(String(decoding: buffer[9..<12], as: UTF8.self))
            }
        }
    }
}

private func removeBenchTree(_ path: String) {
    if let dir = opendir(path) {
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            removeBenchTree(path + "/" + name)
        }
        closedir(dir)
        rmdir(path)
    } else {
        unlink(path)
    }
}

private func httpNanos() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
}
