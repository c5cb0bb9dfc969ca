import Whereabouts

/// Makes the ids of the events a client creates: unique without asking the server, so that an
/// event written to the outbox keeps its id through every resend.
///
/// Random ids are the server's own kind (Whereabouts' `IdentifierGenerator`: `c`, then the
/// creation time in milliseconds as 8 base-36 digits, then 16 random base-36 characters), so
/// they sort by creation time.
/// Sequential ids (`prefix-1`, `prefix-2`, …) are for tests and reproducible runs.
public struct EventIdentifiers: Sendable {
    private enum Mode: Sendable {
        case random(IdentifierGenerator)
        case sequential(prefix: String, next: Int)
    }

    private var mode: Mode

    /// Random, time-ordered ids (the default).
    public static var random: EventIdentifiers { EventIdentifiers(mode: .random(IdentifierGenerator())) }

    /// `prefix-1`, `prefix-2`, … in order.
    public static func sequential(prefix: String) -> EventIdentifiers {
        EventIdentifiers(mode: .sequential(prefix: prefix, next: 1))
    }

    private init(mode: Mode) { self.mode = mode }

    /// The next id; `now` (seconds since 1970) is the creation time random ids begin with.
    public mutating func next(now: Double) -> String {
        switch mode {
        case .random(var generator):
            let id = generator.next(createdAt: now)
            mode = .random(generator)
            return id
        case .sequential(let prefix, let next):
            mode = .sequential(prefix: prefix, next: next + 1)
            return "\(prefix)-\(next)"
        }
    }
}
