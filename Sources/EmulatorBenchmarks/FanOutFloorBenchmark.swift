import Glibc

/// The fan-out floor (the least that delivering one event to K streams can cost), in the same run
/// as the figures it is compared with: one thread writes one 102 B event to `streams` loopback TCP
/// connections with blocking `send` (no server, no event loop, no reader running meanwhile), then
/// reads every one.
/// Prints the median and p99 of `rounds` rounds of "write all" and of "write and read all".
func runFanOutFloorBenchmark(streams: Int = 1000, rounds: Int = 21) {
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ready = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
            bind(listener, pointer, length) == 0 && listen(listener, 4096) == 0
                && getsockname(listener, pointer, &length) == 0
        }
    }
    guard listener >= 0, ready else {
        print("fanout-floor: cannot listen (errno \(errno))")
        return
    }
    var servers: [Int32] = []
    var clients: [Int32] = []
    defer {
        for fd in servers + clients { close(fd) }
        close(listener)
    }
    var one: Int32 = 1
    for _ in 0..<streams {
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        let server = connected == 0 ? accept(listener, nil, nil) : -1
        guard client >= 0, server >= 0 else {
            print("fanout-floor: connect/accept failed after \(servers.count) streams (errno \(errno))")
            if client >= 0 { close(client) }
            return
        }
        _ = setsockopt(server, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        servers.append(server)
        clients.append(client)
    }
    // One SSE event of 102 bytes (a small `put`): a string value padded to fit.
    let head = Array("event: put\ndata: {\"path\":\"/\",\"data\":\"".utf8)
    let tail = Array("\"}\n\n".utf8)
    let event = head + [UInt8](repeating: UInt8(ascii: "x"), count: 102 - head.count - tail.count) + tail
    var buffer = [UInt8](repeating: 0, count: 4096)
    var writeTimes: [Double] = []
    var allTimes: [Double] = []
    for _ in 0..<rounds {
        let start = floorNow()
        for fd in servers {
            _ = event.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        let written = floorNow()
        for fd in clients {
            _ = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        }
        let read = floorNow()
        writeTimes.append(Double(written - start) / 1e6)
        allTimes.append(Double(read - start) / 1e6)
        usleep(20_000)
    }
    writeTimes.sort()
    allTimes.sort()
    let p99 = min(rounds - 1, rounds * 99 / 100)
    print(
        "fan-out floor: \(streams) streams, \(event.count) B event, \(rounds) rounds: write all p50 "
            + "\(floorFormat(writeTimes[rounds / 2])) ms p99 \(floorFormat(writeTimes[p99])) ms; "
            + "write and read all p50 \(floorFormat(allTimes[rounds / 2])) ms p99 \(floorFormat(allTimes[p99])) ms")
}

private func floorNow() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
}

private func floorFormat(_ value: Double) -> String {
    let hundredths = Int((value * 100).rounded())
    return "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)"
}
