/// Which clock a ``TrackingRun``'s events are dated by: a fix's time plus the run's time shift
/// is its event's time on the server.
///
/// ```swift
/// let replay: TimeBase = .recorded                    // a recording of last week, as it was
/// let demo: TimeBase = .now                           // the same walk, as if it began now
/// let gateway: TimeBase = .live(refresh: .seconds(60))   // scans on this machine's clock
/// ```
public enum TimeBase: Hashable, Sendable {
    /// The fixes' own times (a replay of a dated recording): no shift.
    case recorded
    /// Moved so that the first fix is the server's present (a recording that counts seconds
    /// from 0, or a demonstration): the shift is fixed at the first fix.
    case now
    /// `recorded` when the first fix's time lies after 2001 (a real clock's), `now` otherwise.
    case automatic
    /// This machine's clock (live scans): shifted by the client's measured offset to the
    /// server's clock, read again every `refresh` (each answer of the server measures it anew).
    case live(refresh: Duration)

    /// The first time, seconds since 1970, that ``automatic`` takes for a real clock's (2001-09-09).
    public static let datedFrom = 1e9
}
