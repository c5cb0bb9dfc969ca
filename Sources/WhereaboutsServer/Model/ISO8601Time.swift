/// Reads the times other tools write (GPX, Google Takeout): ISO 8601 date-times such as
/// `2024-05-01T12:34:56Z`, `2024-05-01T14:34:56.123+02:00` or `2024-05-01 12:34:56Z`, as seconds
/// since 1970, without a date formatter for each (a history has millions of them).
///
/// ```swift
/// ISO8601Time.seconds(in: "1970-01-02T00:00:01.5Z")      // 86_401.5
/// ISO8601Time.seconds(in: "2024-05-01T14:00:00+02:00")    // 1_714_564_800
/// ```
enum ISO8601Time {
    /// The seconds since 1970 `text` names, or `nil` when it is not a date-time with a time
    /// zone (`Z` or `±HH:MM`; a time without one is ambiguous, and refused).
    static func seconds(in text: String) -> Double? {
        var text = text
        return text.withUTF8 { seconds(in: $0) }
    }

    /// The seconds since 1970 in the UTF-8 bytes `bytes`.
    static func seconds(in bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        var index = 0
        func digits(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for _ in 0..<count {
                let byte = bytes[index]
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
                index += 1
            }
            return value
        }
        func expect(_ characters: String) -> Bool {
            guard index < bytes.count, characters.utf8.contains(bytes[index]) else { return false }
            index += 1
            return true
        }
        guard let year = digits(4), expect("-"), let month = digits(2), expect("-"), let day = digits(2),
              expect("Tt "), let hour = digits(2), expect(":"), let minute = digits(2), expect(":"), let second = digits(2),
              (1...12).contains(month), (1...31).contains(day), hour <= 23, minute <= 59, second <= 60
        else { return nil }
        var fraction = 0.0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") || bytes[index] == UInt8(ascii: ",") {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39, index - start < 12 {
                fraction += Double(bytes[index] - 0x30) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
        }
        var offset = 0
        guard index < bytes.count else { return nil }
        if expect("Zz") {
            offset = 0
        } else if bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let hours = digits(2), hours <= 23 else { return nil }
            _ = expect(":")
            guard let minutes = digits(2), minutes <= 59 else { return nil }
            offset = sign * (hours * 3_600 + minutes * 60)
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        let date = CivilDate(year: year, month: month, day: day)
        let days = date.daysSince1970
        guard CivilDate(daysSince1970: days) == date else { return nil }  // 30 February
        return Double(days * 86_400 + hour * 3_600 + minute * 60 + second - offset) + fraction
    }
}
