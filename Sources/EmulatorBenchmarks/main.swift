// The lead wires the real benchmark driver; `http-serve [port]` runs the HTTP server benchmark.
let arguments = CommandLine.arguments
if arguments.count >= 2, arguments[1] == "http-serve" {
    runHTTPServeBenchmark(port: arguments.count >= 3 ? Int(arguments[2]) ?? 8080 : 8080)
} else if arguments.count >= 2, arguments[1] == "sse-fanout" {
    runSSEFanOutBenchmark(streams: arguments.count >= 3 ? Int(arguments[2]) ?? 1000 : 1000)
} else {
    print("benchmarks: none yet")
}
