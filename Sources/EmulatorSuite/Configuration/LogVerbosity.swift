/// `--log-verbosity`: how much the suite prints.
///
/// - `DEBUG`: everything, including per-request debug lines.
/// - `INFO` (default): progress, warnings and the ready banner.
/// - `QUIET`: warnings, errors and the ready banner.
/// - `SILENT`: errors only (on stderr); no banner.
package enum LogVerbosity: String, Sendable, CaseIterable, Comparable {
    case debug = "DEBUG"
    case info = "INFO"
    case quiet = "QUIET"
    case silent = "SILENT"

    package static func < (lhs: LogVerbosity, rhs: LogVerbosity) -> Bool {
        lhs.rank < rhs.rank
    }

    private var rank: Int {
        switch self {
        case .debug: 0
        case .info: 1
        case .quiet: 2
        case .silent: 3
        }
    }
}
