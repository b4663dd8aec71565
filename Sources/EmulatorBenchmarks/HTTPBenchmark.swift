import EmulatorHTTP
import EmulatorPosix
import Glibc

/// Serves a tiny JSON document for any method and path at `127.0.0.1:port` until killed, so
/// `wrk` can load it. Prints the time from entry to the listening socket being ready.
///
///     wrk -t2 -c32 -d5s http://127.0.0.1:8080/doc
func runHTTPServeBenchmark(port: Int) {
    var start = timespec()
    clock_gettime(CLOCK_MONOTONIC, &start)
    let body = Array(#"{"name":"ada","age":36,"ok":true}"#.utf8)
    var router = Router()
    router.add(nil, "*") { _ in HTTPResponse.json(body) }
    do {
        let server = try HTTPServer.start(ServerConfiguration(host: "127.0.0.1", port: port), router: router)
        var ready = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ready)
        let micros = (ready.tv_sec - start.tv_sec) * 1_000_000 + (ready.tv_nsec - start.tv_nsec) / 1000
        print("http: serving on 127.0.0.1:\(server.port) (listening after \(micros) µs)")
        while true { sleep(3600) }
    } catch {
        print("http: cannot start: \(error)")
        exit(1)
    }
}
