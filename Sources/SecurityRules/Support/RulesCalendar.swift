import EmulatorSupport

/// Proleptic Gregorian calendar arithmetic in UTC (no Foundation).
enum RulesCalendar {
    /// Days since 1970-01-01 for a civil date.
    static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        CivilDate(year: year, month: month, day: day).daysSinceEpoch
    }

    /// The civil date of a day count since 1970-01-01.
    static func civil(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let date = CivilDate(daysSinceEpoch: days)
        return (date.year, date.month, date.day)
    }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    /// `2024-01-02T03:04:05.000000006Z`-style text.
    static func iso8601(_ t: RulesTimestamp) -> String {
        let dayCount = floorDiv(t.seconds, 86_400)
        let secondOfDay = t.seconds - dayCount * 86_400
        let date = civil(days: dayCount)
        func pad(_ v: Int64, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        var text = "\(pad(date.year, 4))-\(pad(date.month, 2))-\(pad(date.day, 2))T"
        text += "\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))"
        if t.nanos != 0 { text += "." + pad(Int64(t.nanos), 9) }
        return text + "Z"
    }
}
