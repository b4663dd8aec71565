import EmulatorHTTP
import EmulatorPosix
import Glibc
import Synchronization

/// Opens `streams` Server-Sent-Event streams over loopback, then writes one event to every stream
/// from this (non-loop) thread and times until every client has read it. Prints the median of
/// `rounds` rounds.
func runSSEFanOutBenchmark(streams: Int = 1000, rounds: Int = 7) {
    let writers = Mutex<[any HTTPStreamWriter]>([])
    var router = Router()
    router.add(.get, "/events") { _ in
        HTTPResponse(headers: ServerSentEvent.responseHeaders, stream: HTTPStreamBody { writer in
            writers.withLock { $0.append(writer) }
        })
    }
    let server: RunningServer
    do {
        server = try HTTPServer.start(ServerConfiguration(host: "127.0.0.1", port: 0), router: router)
    } catch {
        print("sse: cannot start: \(error)")
        return
    }
    var clients: [Int32] = []
    for _ in 0..<streams {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(server.port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            print("sse: connect failed (errno \(errno))")
            return
        }
        let request = Array("GET /events HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        clients.append(fd)
    }
    var buffer = [UInt8](repeating: 0, count: 4096)
    // Read the response heads.
    for fd in clients { _ = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) } }
    while writers.withLock({ $0.count }) < streams { usleep(1000) }
    let all = writers.withLock { $0 }
    let event = ServerSentEvent(event: "put", data: #"{"path":"/users/ada","data":{"age":36,"city":"London"}}"#).bytes
    var writeTimes: [Double] = []
    var deliverTimes: [Double] = []
    for _ in 0..<rounds {
        let start = now()
        for writer in all { writer.write(event) }
        let written = now()
        for fd in clients {
            _ = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        }
        let delivered = now()
        writeTimes.append(Double(written - start) / 1e6)
        deliverTimes.append(Double(delivered - start) / 1e6)
    }
    writeTimes.sort()
    deliverTimes.sort()
    print(
        "sse fan-out: \(streams) streams, \(event.count) B event: enqueue \(format(writeTimes[rounds / 2])) ms, "
            + "all delivered and read \(format(deliverTimes[rounds / 2])) ms (median of \(rounds))")
    for fd in clients { close(fd) }
    server.shutdown(gracePeriod: .seconds(1))
}

private func now() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
}

private func format(_ value: Double) -> String {
    let hundredths = Int((value * 100).rounded())
    return "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)"
}
