/// One runnable benchmark: its name on the command line, a one-line summary, and the entry point.
struct BenchmarkScenario: Sendable {
    var name: String
    var summary: String
    var run: @Sendable (BenchmarkOptions) -> Void
}
