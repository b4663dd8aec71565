import EmulatorSupport
import Synchronization
@testable import EmulatorSuite

/// A console whose output tests can read back.
final class CapturedOutput: Sendable {
    private let lines = Mutex<[(Console.Stream, String)]>([])

    var console: Console {
        Console(verbosity: .debug) { [self] stream, text in lines.withLock { $0.append((stream, text)) } }
    }

    func console(verbosity: LogVerbosity) -> Console {
        Console(verbosity: verbosity) { [self] stream, text in lines.withLock { $0.append((stream, text)) } }
    }

    var standardOutput: String {
        lines.withLock { $0.filter { $0.0 == .standardOutput }.map(\.1).joined() }
    }

    var standardError: String {
        lines.withLock { $0.filter { $0.0 == .standardError }.map(\.1).joined() }
    }
}
