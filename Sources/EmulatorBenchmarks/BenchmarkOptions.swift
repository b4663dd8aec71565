/// The command line of `EmulatorBenchmarks`: `<scenario> [--quick] [--http] [--port N] [--streams N]`.
///
/// A bare number after the scenario name is accepted as the scenario's main parameter, and a bare
/// `quick` as `--quick`, so the older spellings `http-serve 8080`, `sse-fanout 1000` and
/// `storage quick` keep working.
///
///     EmulatorBenchmarks storage --quick
///     EmulatorBenchmarks http-serve --port 18080
struct BenchmarkOptions: Sendable {
    /// The scenario name (first argument), or nil when none was given.
    var scenario: String?
    /// Tiny sizes, for a smoke test of the harness; figures are not meaningful.
    var quick = false
    /// Over loopback sockets instead of in process (`journal --http`).
    var http = false
    /// The port a serving benchmark listens on.
    var port: Int?
    /// The number of streams for a fan-out benchmark.
    var streams: Int?
    /// Arguments this parser did not recognise (reported, then the run stops).
    var unknown: [String] = []

    init(arguments: [String]) {
        var rest = arguments[...]
        if let first = rest.first, !first.hasPrefix("-") {
            scenario = first
            rest = rest.dropFirst()
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--quick", "quick": quick = true  // `quick` is the older spelling
            case "--http": http = true
            case "--port": port = rest.popFirst().flatMap { Int($0) }
            case "--streams": streams = rest.popFirst().flatMap { Int($0) }
            default:
                if let number = Int(argument) {
                    // Positional parameter: a port for servers, a stream count for fan-out.
                    port = port ?? number
                    streams = streams ?? number
                } else {
                    unknown.append(argument)
                }
            }
        }
    }
}
