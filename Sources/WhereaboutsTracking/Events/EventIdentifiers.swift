/// Makes the ids of the events a client creates: unique without asking the server, so that an
/// event written to the outbox keeps its id through every resend.
///
/// Random ids look like the server's own (`c`, then the creation time in milliseconds as 8
/// base-36 digits, then 16 random base-36 characters), so they sort by creation time.
/// Sequential ids (`prefix-1`, `prefix-2`, …) are for tests and reproducible runs.
public struct EventIdentifiers: Sendable {
    private enum Mode: Sendable {
        case random
        case sequential(prefix: String, next: Int)
    }

    private var mode: Mode

    /// Random, time-ordered ids (the default).
    public static var random: EventIdentifiers { EventIdentifiers(mode: .random) }

    /// `prefix-1`, `prefix-2`, … in order.
    public static func sequential(prefix: String) -> EventIdentifiers {
        EventIdentifiers(mode: .sequential(prefix: prefix, next: 1))
    }

    private init(mode: Mode) { self.mode = mode }

    /// The next id; `now` (seconds since 1970) is the creation time random ids begin with.
    public mutating func next(now: Double) -> String {
        switch mode {
        case .random:
            let digits = Array("0123456789abcdefghijklmnopqrstuvwxyz")
            var milliseconds = UInt64(max(0, min(now, 1e11)) * 1000)
            var time = [Character](repeating: "0", count: 8)
            for index in stride(from: 7, through: 0, by: -1) {
                time[index] = digits[Int(milliseconds % 36)]
                milliseconds /= 36
            }
            // Two draws of eight base-36 digits each (36⁸ < 2⁶⁴): two calls to the system's
            // generator rather than one per character.
            var generator = SystemRandomNumberGenerator()
            var random = [Character](repeating: "0", count: 16)
            for half in 0..<2 {
                var value = generator.next(upperBound: UInt64(2_821_109_907_456))  // 36⁸
                for index in stride(from: half * 8 + 7, through: half * 8, by: -1) {
                    random[index] = digits[Int(value % 36)]
                    value /= 36
                }
            }
            return "c" + String(time) + String(random)
        case .sequential(let prefix, let next):
            mode = .sequential(prefix: prefix, next: next + 1)
            return "\(prefix)-\(next)"
        }
    }
}
