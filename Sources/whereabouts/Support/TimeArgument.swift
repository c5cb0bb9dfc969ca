import ArgumentParser
import Foundation

/// Times given on the command line: seconds since 1970, or ISO 8601 (a full time, with or
/// without fractions, or a date alone for its midnight UTC).
enum TimeArgument {
    /// The seconds since 1970 that `text` names; a validation error naming `option` otherwise.
    static func seconds(_ text: String, option: String) throws -> Double {
        if let seconds = Double(text), seconds.isFinite { return seconds }
        let full = ISO8601DateFormatter()
        if let date = full.date(from: text) { return date.timeIntervalSince1970 }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = fractional.date(from: text) { return date.timeIntervalSince1970 }
        let day = ISO8601DateFormatter()
        day.formatOptions = [.withFullDate]
        if let date = day.date(from: text) { return date.timeIntervalSince1970 }
        throw ValidationError("\(option) must be seconds since 1970 or an ISO 8601 time such as 2026-11-21T08:00:00Z, found \"\(text)\".")
    }

    /// `seconds` as an ISO 8601 time (UTC, to the second).
    static func text(_ seconds: Double) -> String {
        ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: seconds))
    }

    /// What to say when a time range held nothing while the latest event is at `latest`: the
    /// range that holds that event's day, to give (`--from 2023-05-12 --to 2023-05-13`).
    static func hint(latest: Double?, defaultRange: Bool) -> String {
        let range = defaultRange ? "in the last 24 hours" : "in that range"
        guard let latest else { return "Nothing \(range), nor at any other time." }
        let day = (latest / 86_400).rounded(.down) * 86_400
        let date = { (seconds: Double) in String(text(seconds).prefix(10)) }
        return "Nothing \(range); the latest is from \(text(latest)): try --from \(date(day)) --to \(date(day + 86_400))."
    }
}
