/// How serious a log record is, from least to most.
package enum LogLevel: Int, Sendable, Comparable, CustomStringConvertible {
    case debug, info, warning, error

    package static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    package var description: String {
        switch self {
        case .debug: "debug"
        case .info: "info"
        case .warning: "warning"
        case .error: "error"
        }
    }
}
