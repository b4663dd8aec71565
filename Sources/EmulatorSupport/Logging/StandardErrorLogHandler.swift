import Glibc

/// Writes each record as one line to standard error with a single `write(2)` call, so lines
/// from concurrent threads never interleave.
package struct StandardErrorLogHandler: LogHandler {
    package init() {}

    package func log(_ record: LogRecord) {
        var line = Array(record.formattedLine.utf8)
        line.append(0x0A)
        line.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            var written = 0
            while written < raw.count {
                let result = write(STDERR_FILENO, base + written, raw.count - written)
                if result > 0 {
                    written += result
                } else if result < 0 && errno == EINTR {
                    continue
                } else {
                    return  // stderr closed or broken: drop the line rather than fail the caller
                }
            }
        }
    }
}
