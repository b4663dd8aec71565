import Glibc

// EmulatorBenchmarks <scenario> [--quick] [--http] [--port N] [--streams N]
//
// In-process benchmarks, run from a release build (`swift build -c release`). Each prints its
// figures as plain text lines; Benchmarks/run parses them into the comparison table.
// To add a scenario, add one line to `scenarios` below.

let scenarios: [BenchmarkScenario] = [
    BenchmarkScenario(name: "json", summary: "JSON codec parse/serialize MB/s on ~50 MB of small documents") { _ in
        runJSONBenchmark()
    },
    BenchmarkScenario(name: "storage", summary: "engine bulk insert (with/without subscriber), point reads, RSS per 100k, clear") {
        runStorageBenchmark(quick: $0.quick)
    },
    BenchmarkScenario(name: "storage-insert", summary: "only the 1M bulk insert: levelled engine and one-tree baseline, alternately") {
        runStorageInsertBenchmark(quick: $0.quick)
    },
    BenchmarkScenario(name: "storage-read", summary: "only the point reads at 1M, in rounds (for profiling a read)") {
        runStorageReadBenchmark(quick: $0.quick)
    },
    BenchmarkScenario(name: "memory-latency", summary: "what one cache miss costs here (dependent loads over 1-256 MiB)") { _ in
        runMemoryLatencyBenchmark()
    },
    BenchmarkScenario(name: "http-serve", summary: "serve a tiny JSON document on --port until killed (load it with wrk)") {
        runHTTPServeBenchmark(port: $0.port ?? 8080)
    },
    BenchmarkScenario(name: "sse-fanout", summary: "one SSE event to --streams loopback streams (transport only)") {
        runSSEFanOutBenchmark(streams: $0.streams ?? ($0.quick ? 100 : 1000))
    },
    BenchmarkScenario(name: "fanout-floor", summary: "research floor: blocking send of 102 B to --streams sockets, then read all") {
        runFanOutFloorBenchmark(streams: $0.streams ?? ($0.quick ? 100 : 1000), rounds: $0.quick ? 3 : 21)
    },
    BenchmarkScenario(name: "database", summary: "RTDB emulator through its router: SSE fan-out, GET/PUT at 32 clients") { runDatabaseBenchmark(quick: $0.quick) },
    BenchmarkScenario(name: "database-clear", summary: "RTDB PUT null / DELETE / PATCH null over 100k children, with streams") {
        runDatabaseClearBenchmark(quick: $0.quick)
    },
    BenchmarkScenario(name: "database-bulk", summary: "RTDB PATCH of 1M children in 500-child batches through the router; RSS per 100k") {
        runDatabaseBulkBenchmark(quick: $0.quick)
    },
    BenchmarkScenario(name: "firestore", summary: "Firestore emulator through its router: load, queries, 500-doc commits") { runFirestoreBenchmark(quick: $0.quick) },
    BenchmarkScenario(name: "firestore-cursor", summary: "RunQuery through the query cursor vs the whole result: time and decoded documents held") {
        runFirestoreCursorBenchmark(quick: $0.quick)
    },
    BenchmarkScenario(name: "firestore-commit", summary: "only 500-doc Firestore commits through the router (for profiling)") {
        runFirestoreCommitBenchmark(quick: $0.quick)
    },
    BenchmarkScenario(name: "firestore-locks", summary: "plain commits with/without the transaction lock layer; 4-thread counter transactions") {
        runFirestoreLockBenchmark(quick: $0.quick)
    },
    BenchmarkScenario(name: "client", summary: "Swift client: listener latency over Listen, setData(from:) batches") {
        runClientBenchmark(quick: $0.quick)
    },
    BenchmarkScenario(name: "rules", summary: "security rules evaluation") { _ in runRulesBenchmark() },
    BenchmarkScenario(name: "rules-throughput", summary: "requests/s with rules against open rules") {
        runRulesThroughputBenchmark(quick: $0.quick)
    },
    BenchmarkScenario(name: "rules-trace", summary: "Firestore writes/s: rules without traces, with coverage, with the UI's request log") {
        runRulesTraceBenchmark(quick: $0.quick)
    },
    BenchmarkScenario(name: "journal", summary: "RTDB PUT through the router (--http: over loopback) with 1-128 clients: in-memory vs live data directory") {
        if $0.http { runJournalHTTPBenchmark(quick: $0.quick) } else { runJournalBenchmark(quick: $0.quick) }
    },
    BenchmarkScenario(name: "snapshot", summary: "export/import of 1M ~1 KB docs (100k small with --quick)") {
        runSnapshotBenchmark(quick: $0.quick)
    },
    BenchmarkScenario(name: "snapshot-import", summary: "import of SNAPSHOT_BENCH_IMPORT_DIR in this process (run by snapshot)") { _ in
        runSnapshotImportBenchmark()
    },
]

let options = BenchmarkOptions(arguments: Array(CommandLine.arguments.dropFirst()))

func printUsage() {
    print("usage: EmulatorBenchmarks <scenario> [--quick] [--http] [--port N] [--streams N]")
    print("scenarios:")
    for scenario in scenarios {
        let padding = String(repeating: " ", count: max(1, 18 - scenario.name.count))
        print("  \(scenario.name)\(padding)\(scenario.summary)")
    }
}

if options.scenario == nil || options.scenario == "help" || options.scenario == "--help" {
    printUsage()
} else if !options.unknown.isEmpty {
    print("EmulatorBenchmarks: unknown argument(s): \(options.unknown.joined(separator: " "))")
    printUsage()
    exit(2)
} else if let scenario = scenarios.first(where: { $0.name == options.scenario }) {
    scenario.run(options)
} else {
    print("EmulatorBenchmarks: unknown scenario '\(options.scenario ?? "")'")
    printUsage()
    exit(2)
}
