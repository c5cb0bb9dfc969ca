/// A date of the (proleptic) Gregorian calendar and its day number counted from 1970-01-01,
/// both ways (Howard Hinnant's algorithms): times written and read without a date formatter for
/// each one, which a million-line export would otherwise create.
///
/// ```swift
/// CivilDate(daysSince1970: 19_675)          // 2023-11-14
/// CivilDate(year: 1994, month: 11, day: 6).daysSince1970   // 9_075
/// ```
struct CivilDate: Hashable, Sendable {
    var year: Int
    /// 1 to 12.
    var month: Int
    /// 1 to 31.
    var day: Int

    init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// The date `days` days after 1970-01-01 (before it when negative).
    init(daysSince1970 days: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// Days from 1970-01-01 to this date (negative before it).
    var daysSince1970: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The whole days in `seconds` since 1970 (rounded down) and the seconds left in that day.
    static func split(seconds: Int) -> (days: Int, secondOfDay: Int) {
        let secondOfDay = ((seconds % 86_400) + 86_400) % 86_400
        return ((seconds - secondOfDay) / 86_400, secondOfDay)
    }
}
