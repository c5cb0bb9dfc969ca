/// HTTP dates (RFC 9110 §5.6.7): the IMF-fixdate form every HTTP/1.1 client sends, such as
/// `Sun, 06 Nov 1994 08:49:37 GMT`.
///
/// ```swift
/// HTTPDate.seconds("Sun, 06 Nov 1994 08:49:37 GMT")   // 784111777
/// ```
enum HTTPDate {
    private static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The date's seconds since 1970, or `nil` when `text` is not an IMF-fixdate.
    static func seconds(_ text: String) -> Double? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true)
        guard text.utf8.count <= 40, parts.count == 6, parts[0].count == 4, parts[0].hasSuffix(","), parts[5] == "GMT",
              parts[1].count == 2, let day = Int(parts[1]), (1...31).contains(day),
              let monthIndex = months.firstIndex(of: String(parts[2])),
              parts[3].count == 4, let year = Int(parts[3]), year >= 1900
        else { return nil }
        let clock = parts[4].split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 }),
              let hour = Int(clock[0]), let minute = Int(clock[1]), let second = Int(clock[2]),
              (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        let days = CivilDate(year: year, month: monthIndex + 1, day: day).daysSince1970
        return Double(days * 86_400 + hour * 3_600 + minute * 60 + second)
    }

    /// `seconds` since 1970 (whole, UTC) as an IMF-fixdate.
    static func format(_ seconds: Double) -> String {
        let (days, secondOfDay) = CivilDate.split(seconds: Int(seconds.rounded(.down)))
        let date = CivilDate(daysSince1970: days)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let weekday = weekdays[((days % 7) + 7) % 7]
        return "\(weekday), \(two(date.day)) \(months[date.month - 1]) \(date.year) "
            + "\(two(secondOfDay / 3_600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)) GMT"
    }
}
