/// Which records get written, named after the Firebase CLI's `--log-verbosity` values.
///
/// | verbosity | writes |
/// |---|---|
/// | `DEBUG`  | everything |
/// | `INFO`   | info, warning, error (the default) |
/// | `QUIET`  | warning and error only |
/// | `SILENT` | nothing |
///
/// ```swift
/// LogVerbosity("quiet")?.allows(.info) // false
/// ```
package enum LogVerbosity: Sendable, Hashable, CaseIterable, Comparable, CustomStringConvertible {
    /// Most to least talkative: `debug < info < quiet < silent`.
    case debug, info, quiet, silent

    /// Parses `DEBUG`, `INFO`, `QUIET` or `SILENT`, ignoring ASCII case.
    package init?(_ text: String) {
        let upper = String(decoding: text.utf8.map { $0 >= 0x61 && $0 <= 0x7A ? $0 &- 0x20 : $0 }, as: UTF8.self)
        switch upper {
        case "DEBUG": self = .debug
        case "INFO": self = .info
        case "QUIET": self = .quiet
        case "SILENT": self = .silent
        default: return nil
        }
    }

    /// Whether a record at `level` is written.
    package func allows(_ level: LogLevel) -> Bool {
        switch self {
        case .debug: true
        case .info: level >= .info
        case .quiet: level >= .warning
        case .silent: false
        }
    }

    package var description: String {
        switch self {
        case .debug: "DEBUG"
        case .info: "INFO"
        case .quiet: "QUIET"
        case .silent: "SILENT"
        }
    }
}
