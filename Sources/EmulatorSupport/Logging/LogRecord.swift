/// One log message, as handed to a `LogHandler`.
package struct LogRecord: Sendable, Hashable {
    package var level: LogLevel
    /// The emitting subsystem, e.g. `firestore`, `database`, `hub`.
    package var label: String
    package var message: String
    /// Wall-clock time, microseconds since the Unix epoch.
    package var timestampMicroseconds: Int64

    package init(level: LogLevel, label: String, message: String, timestampMicroseconds: Int64) {
        self.level = level
        self.label = label
        self.message = message
        self.timestampMicroseconds = timestampMicroseconds
    }

    /// The line a text handler writes (no trailing newline), e.g.
    /// `2026-11-22T04:21:45.123Z warning [firestore] rules file has 2 issues`.
    package var formattedLine: String {
        "\(Self.iso8601(timestampMicroseconds)) \(level) [\(label)] \(message)"
    }

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ` for a Unix time in microseconds (UTC, proleptic Gregorian).
    package static func iso8601(_ micros: Int64) -> String {
        let (seconds, microsRemainder) = micros.quotientAndRemainder(dividingBy: 1_000_000)
        var secs = seconds
        var millis = microsRemainder / 1_000
        if millis < 0 {
            millis += 1_000
            secs -= 1
        }
        var days = secs / 86_400
        var secondOfDay = secs % 86_400
        if secondOfDay < 0 {
            secondOfDay += 86_400
            days -= 1
        }
        let date = CivilDate(daysSinceEpoch: days)
        func pad(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(date.year, 4))-\(pad(date.month, 2))-\(pad(date.day, 2))T\(pad(secondOfDay / 3_600, 2)):"
            + "\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2)).\(pad(millis, 3))Z"
    }
}
