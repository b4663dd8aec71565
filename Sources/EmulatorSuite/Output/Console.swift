#if canImport(Glibc)
package import EmulatorSupport
import Glibc
#endif

/// Where the suite prints: notices filtered by verbosity, the banner, and errors.
///
/// Output goes to file descriptors with `write(2)` so that lines reach a pipe at once (scripts
/// wait for the banner on a pipe). Tests pass a `sink` to capture instead.
package struct Console: Sendable {
    package enum Stream: Sendable { case standardOutput, standardError }

    package var verbosity: LogVerbosity
    private let sink: @Sendable (Stream, String) -> Void
    /// Sees every notice, whatever the verbosity (the Emulator UI's Logs view keeps them).
    package var observer: (@Sendable (SuiteNotice) -> Void)?

    package init(verbosity: LogVerbosity, sink: @escaping @Sendable (Stream, String) -> Void = Console.writeToFile) {
        self.verbosity = verbosity
        self.sink = sink
    }

    /// Prints `notice` if the verbosity lets it through; errors and warnings go to stderr.
    package func emit(_ notice: SuiteNotice) {
        observer?(notice)
        guard notice.isShown(at: verbosity) else { return }
        let stream: Stream = notice.level == .error ? .standardError : .standardOutput
        sink(stream, notice.rendered + "\n")
    }

    package func info(_ scope: String?, _ text: String) { emit(SuiteNotice(.info, scope, text)) }
    package func warning(_ scope: String?, _ text: String) { emit(SuiteNotice(.warning, scope, text)) }
    package func success(_ scope: String?, _ text: String) { emit(SuiteNotice(.success, scope, text)) }
    package func debug(_ scope: String?, _ text: String) { emit(SuiteNotice(.debug, scope, text)) }

    /// A fatal error, always printed on stderr as `Error: …`, as the official CLI prints it.
    package func fatal(_ text: String) {
        sink(.standardError, "\nError: \(text)\n")
    }

    /// Text printed as is on stdout unless the suite is silent (the ready banner, command output).
    package func banner(_ text: String) {
        guard verbosity != .silent else { return }
        sink(.standardOutput, text)
    }

    /// Text printed as is on stderr regardless of verbosity (usage errors).
    package func writeError(_ text: String) {
        sink(.standardError, text)
    }

    /// Text printed as is on stdout regardless of verbosity (help, version).
    package func plain(_ text: String) {
        sink(.standardOutput, text)
    }

    /// Writes to fd 1 or 2, retrying partial writes.
    package static let writeToFile: @Sendable (Stream, String) -> Void = { stream, text in
        let fd: Int32 = stream == .standardOutput ? 1 : 2
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            offset += n
        }
    }
}
