import Testing
import EmulatorSupport

@Suite struct CivilDateTests {
    /// (year, month, day, days since 1970-01-01), checked against an independent calendar library.
    static let table: [(Int64, Int64, Int64, Int64)] = [
        (1970, 1, 1, 0),  // the epoch
        (1969, 12, 31, -1),  // negative days
        (1900, 2, 28, -25_509),  // 1900 is not a leap year: the next day is March 1st
        (1900, 3, 1, -25_508),
        (2000, 2, 29, 11_016),  // 2000 is (divisible by 400)
        (2000, 3, 1, 11_017),
        (2024, 2, 29, 19_782),
        (2100, 3, 1, 47_541),
        (1600, 2, 29, -135_081),
        (1, 1, 1, -719_162),  // year 1, the first day proto3 timestamps allow
        (1, 3, 1, -719_103),
        (0, 1, 1, -719_528),  // year 0 (1 BC) is a leap year of 366 days
        (0, 3, 1, -719_468),
        (-1, 12, 31, -719_529),
        (9999, 12, 31, 2_932_896),  // the last day proto3 timestamps allow
    ]

    @Test(arguments: table)
    func convertsBothWays(year: Int64, month: Int64, day: Int64, days: Int64) {
        let date = CivilDate(year: year, month: month, day: day)
        #expect(date.daysSinceEpoch == days)
        #expect(CivilDate(daysSinceEpoch: days) == date)
        #expect(date.isValid)
    }

    /// Four centuries (1600 … 2001) day by day against a plain calendar walk.
    @Test func consecutiveDaysAreConsecutiveDates() {
        var expected = CivilDate(year: 1599, month: 12, day: 31)
        for days in Int64(-135_140)...Int64(11_400) {
            expected.day += 1
            if expected.day > CivilDate.daysInMonth(year: expected.year, month: expected.month) {
                expected.day = 1
                expected.month += 1
                if expected.month > 12 {
                    expected.month = 1
                    expected.year += 1
                }
            }
            let date = CivilDate(daysSinceEpoch: days)
            guard date == expected, date.daysSinceEpoch == days else {
                Issue.record("day \(days): \(date), expected \(expected)")
                return
            }
        }
    }

    static let invalid: [(Int64, Int64, Int64)] = [
        (1900, 2, 29), (2023, 2, 29), (2024, 4, 31), (2024, 0, 1), (2024, 13, 1), (2024, 1, 0), (2024, 1, 32),
    ]

    @Test(arguments: invalid)
    func rejectsDatesNotOnTheCalendar(year: Int64, month: Int64, day: Int64) {
        #expect(!CivilDate(year: year, month: month, day: day).isValid)
    }

    @Test func leapYears() {
        #expect(CivilDate.isLeapYear(2024))
        #expect(CivilDate.isLeapYear(2000))
        #expect(CivilDate.isLeapYear(0))
        #expect(!CivilDate.isLeapYear(1900))
        #expect(!CivilDate.isLeapYear(2023))
        #expect(CivilDate.daysInMonth(year: 2024, month: 2) == 29)
        #expect(CivilDate.daysInMonth(year: 2023, month: 2) == 28)
        #expect(CivilDate.daysInMonth(year: 2023, month: 4) == 30)
    }
}
