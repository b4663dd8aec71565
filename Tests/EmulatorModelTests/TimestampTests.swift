import EmulatorSupport
import Testing

@testable import EmulatorModel

@Suite("Timestamps")
struct TimestampTests {
    static let parseCases: [(String, Int64, Int32, String)] = [
        ("1970-01-01T00:00:00Z", 0, 0, "1970-01-01T00:00:00Z"),
        ("2024-01-02T03:04:05.123456Z", 1_704_164_645, 123_456_000, "2024-01-02T03:04:05.123456Z"),
        ("2024-01-02T03:04:05.1Z", 1_704_164_645, 100_000_000, "2024-01-02T03:04:05.100Z"),
        ("2024-01-02T03:04:05.000000001Z", 1_704_164_645, 1, "2024-01-02T03:04:05.000000001Z"),
        ("2024-01-02T05:04:05+02:00", 1_704_164_645, 0, "2024-01-02T03:04:05Z"),
        ("2024-01-01T23:04:05.5-04:00", 1_704_164_645, 500_000_000, "2024-01-02T03:04:05.500Z"),
        ("1969-12-31T23:59:59.999999Z", -1, 999_999_000, "1969-12-31T23:59:59.999999Z"),
        ("0001-01-01T00:00:00Z", -62_135_596_800, 0, "0001-01-01T00:00:00Z"),
        ("9999-12-31T23:59:59.999999999Z", 253_402_300_799, 999_999_999, "9999-12-31T23:59:59.999999999Z"),
        ("2000-02-29T00:00:00Z", 951_782_400, 0, "2000-02-29T00:00:00Z"),
    ]

    @Test("RFC 3339 parsing and 0/3/6/9-digit formatting", arguments: parseCases)
    func parse(text: String, seconds: Int64, nanos: Int32, formatted: String) throws {
        let t = try Timestamp(rfc3339: text)
        #expect(t.seconds == seconds)
        #expect(t.nanos == nanos)
        #expect(t.rfc3339 == formatted)
        #expect(try Timestamp(rfc3339: t.rfc3339) == t)
    }

    @Test(
        "malformed timestamps are INVALID_ARGUMENT",
        arguments: [
            "", "2024-01-02", "2024-01-02T03:04:05", "2024-13-01T00:00:00Z", "2023-02-29T00:00:00Z",
            "2024-01-02T24:00:00Z", "2024-01-02T03:04:05.Z", "2024-01-02T03:04:05.1234567890Z",
            "10000-01-01T00:00:00Z", "0000-12-31T23:59:59Z", "2024-01-02T03:04:05Zjunk", "2024-01-02 03:04:05Z",
        ])
    func malformed(text: String) {
        #expect(throws: EmulatorError.invalidArgument("Invalid timestamp: \"\(text)\"")) {
            try Timestamp(rfc3339: text)
        }
    }

    @Test("microseconds round down toward the past", arguments: [0, 1, -1, 1_704_164_645_123_456, -1_500_001] as [Int64])
    func microseconds(us: Int64) {
        let t = Timestamp(microseconds: us)
        #expect(t.microseconds == us)
        #expect(t.nanos >= 0 && t.nanos < 1_000_000_000)
        #expect(Timestamp(seconds: -1, nanos: 999_999_999).microseconds == -1)
        #expect(Timestamp(seconds: 0, nanos: 1999).truncatedToMicroseconds == Timestamp(seconds: 0, nanos: 1000))
    }

    @Test("adding microseconds carries across seconds and keeps sub-microsecond digits")
    func adding() {
        #expect(Timestamp(seconds: 0, nanos: 999_999_500).adding(microseconds: 1) == Timestamp(seconds: 1, nanos: 500))
        #expect(Timestamp(seconds: 0).adding(microseconds: -1) == Timestamp(seconds: -1, nanos: 999_999_000))
        #expect(Timestamp(seconds: 5).adding(microseconds: 0) == Timestamp(seconds: 5))
    }

    /// The formatting before `appendRFC3339` (one digit array per field), kept as the reference.
    static func referenceRFC3339(_ t: Timestamp) -> String {
        var out: [UInt8] = []
        let days = t.seconds >= 0 ? t.seconds / 86_400 : (t.seconds - 86_399) / 86_400
        let secondOfDay = t.seconds - days * 86_400
        let date = CivilDate(daysSinceEpoch: days)
        func put(_ v: Int64, _ width: Int) {
            var digits = [UInt8](repeating: 0x30, count: width)
            var v = v < 0 ? -v : v
            var k = width - 1
            while k >= 0 {
                digits[k] = UInt8(0x30 + v % 10)
                v /= 10
                k -= 1
            }
            out.append(contentsOf: digits)
        }
        if date.year < 0 { out.append(0x2D) }
        put(date.year, 4); out.append(0x2D); put(date.month, 2); out.append(0x2D); put(date.day, 2)
        out.append(0x54)
        put(secondOfDay / 3600, 2); out.append(0x3A)
        put(secondOfDay / 60 % 60, 2); out.append(0x3A)
        put(secondOfDay % 60, 2)
        let n = Int64(t.nanos)
        if n != 0 {
            out.append(0x2E)
            if n % 1_000_000 == 0 { put(n / 1_000_000, 3) } else if n % 1000 == 0 { put(n / 1000, 6) } else { put(n, 9) }
        }
        out.append(0x5A)
        return String(decoding: out, as: UTF8.self)
    }

    @Test("appended RFC 3339 text is the reference formatting, in and out of years 1…9999")
    func appendedFormattingMatchesTheReference() {
        var generator = SystemRandomNumberGenerator()
        var times: [Timestamp] = [
            Timestamp(seconds: 0, nanos: 0), Timestamp(seconds: -1, nanos: 999_999_999),
            Timestamp(seconds: 253_402_300_799, nanos: 1), Timestamp(seconds: -62_135_596_800, nanos: 120_000_000),
            Timestamp(seconds: 400_000_000_000, nanos: 5_000), Timestamp(seconds: -100_000_000_000, nanos: 0),
        ]
        for _ in 0..<2000 {
            times.append(Timestamp(
                seconds: Int64.random(in: -70_000_000_000...300_000_000_000, using: &generator),
                nanos: [0, 1_000_000, 1000, 1][Int.random(in: 0..<4, using: &generator)] * Int32.random(in: 0..<1000, using: &generator)))
        }
        for t in times {
            var appended: [UInt8] = [0x22]
            t.appendRFC3339(to: &appended)
            #expect(String(decoding: appended.dropFirst(), as: UTF8.self) == Self.referenceRFC3339(t), "\(t.seconds) \(t.nanos)")
            #expect(t.rfc3339 == Self.referenceRFC3339(t))
        }
    }
}
