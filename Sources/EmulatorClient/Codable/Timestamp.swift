public import Foundation
import EmulatorModel

/// A point in time with nanosecond precision, as Firestore stores it (microseconds kept).
///
/// ```swift
/// let t = Timestamp(date: Date())
/// t.dateValue()
/// ```
public struct Timestamp: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public let seconds: Int64
    public let nanoseconds: Int32

    public init(seconds: Int64, nanoseconds: Int32) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    /// The current time.
    public init() { self.init(date: Date()) }

    public init(date: Date) {
        let interval = date.timeIntervalSince1970
        var secs = interval.rounded(.down)
        var nanos = ((interval - secs) * 1e9).rounded()
        if nanos >= 1e9 {
            secs += 1
            nanos -= 1e9
        }
        self.init(seconds: Int64(secs), nanoseconds: Int32(nanos))
    }

    public func dateValue() -> Date {
        Date(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) / 1e9)
    }

    public static func < (a: Timestamp, b: Timestamp) -> Bool {
        (a.seconds, a.nanoseconds) < (b.seconds, b.nanoseconds)
    }

    public var description: String { "Timestamp(seconds=\(seconds), nanoseconds=\(nanoseconds))" }

    var model: EmulatorModelTimestamp { EmulatorModelTimestamp(seconds: seconds, nanos: nanoseconds) }
    init(_ model: EmulatorModelTimestamp) { self.init(seconds: model.seconds, nanoseconds: model.nanos) }
}
