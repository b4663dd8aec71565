/// A date in the proleptic Gregorian calendar (UTC, no time zone), convertible to and from a
/// count of days since the Unix epoch, 1970-01-01.
///
/// The conversions use Howard Hinnant's era-based algorithms: exact for every year,
/// including years before 1 (year 0 is 1 BC) and negative day counts, with no tables and
/// no Foundation.
///
/// ```swift
/// CivilDate(year: 2024, month: 2, day: 29).daysSinceEpoch  // 19_782
/// CivilDate(daysSinceEpoch: -1)                            // 1969-12-31
/// ```
package struct CivilDate: Sendable, Hashable {
    package var year: Int64
    /// 1 (January) … 12 (December).
    package var month: Int64
    /// 1 … 31.
    package var day: Int64

    /// A date from its parts; nothing is checked (see `isValid`).
    package init(year: Int64, month: Int64, day: Int64) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// The date `days` days after 1970-01-01 (before it when negative).
    package init(daysSinceEpoch days: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153  // 0 = March … 11 = February
        day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// Days since 1970-01-01 (negative before it). Meaningful for a valid date; for a month
    /// outside 1…12 or a day past the month's end the count lands elsewhere, so a caller
    /// validating user input converts back and compares.
    package var daysSinceEpoch: Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let shiftedMonth = month > 2 ? month - 3 : month + 9  // 0 = March … 11 = February
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Whether `month` is 1…12 and `day` is within that month of `year`.
    package var isValid: Bool {
        (1...12).contains(month) && day >= 1 && day <= Self.daysInMonth(year: year, month: month)
    }

    /// Whether `year` has a February 29th: divisible by 4, except centuries not divisible by 400.
    package static func isLeapYear(_ year: Int64) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// 28…31 for `month` 1…12 of `year`; 31 for any other month number.
    package static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
