/// A live ``ScanTimeline``'s decisions about time, as data: when to wake for a stage's deadline,
/// what a scan's arrival does to the timeline's time, and what time to give when the wake-up
/// comes. The timeline does what it says (sleeps, reads, hands out); the decisions are tested
/// here with exact numbers, no clock and no task.
///
/// Live time is the latest scan's time (its ``Scan/arrival`` when it has one) plus the clock's
/// time since that scan came in. A wake-up is the deadline's distance from the latest scan's
/// time, after that scan's arrival, in whole microseconds rounded down (never later than the
/// deadline by a rounding), at most 10⁷ s ahead.
///
/// ```swift
/// var schedule = LiveSchedule()
/// schedule.scanArrived(time: 100, at: .seconds(2))           // a scan stamped 100 came 2 s in
/// schedule.wakeUp(for: 104)                                   // .seconds(6): 4 s after it came
/// schedule.timeToGive(for: 104, at: .seconds(6))              // 104, and 104 is given
/// schedule.wakeUp(for: 104)                                   // nil: given already, no timer
/// ```
public struct LiveSchedule: Hashable, Sendable {
    /// The latest finite scan time the timeline took in.
    public private(set) var latestTime: Double?
    /// When that scan came in, on the timeline's clock (time since the clock was made).
    public private(set) var latestArrival: Duration?
    /// The latest time given out as ``PipelineInput/time(_:)``.
    public private(set) var lastGivenTime = -Double.infinity

    /// The longest wait a wake-up is set for, seconds (about 115 days).
    public static let longestWait = 1e7

    /// A schedule before any scan.
    public init() {}

    /// Takes in a scan of `time` (its arrival stamp, if it has one, else its time) that came in
    /// at `arrival`: a later (or equal) finite time moves the timeline's time on; an earlier or
    /// non-finite one does not.
    public mutating func scanArrived(time: Double, at arrival: Duration) {
        guard time.isFinite, time >= (latestTime ?? -.infinity) else { return }
        latestTime = time
        latestArrival = arrival
    }

    /// When to wake for a stage's `deadline` (seconds on the scans' clock), as time since the
    /// clock was made; `nil` when no timer is wanted: no deadline, a non-finite one, one no later
    /// than the last time given (the stage had nothing due after all: the timeline cannot spin),
    /// or no scan yet to measure from.
    public func wakeUp(for deadline: Double?) -> Duration? {
        guard let deadline, deadline.isFinite, deadline > lastGivenTime, let latestTime, let latestArrival else { return nil }
        let wait = min(max(0, deadline - latestTime), Self.longestWait)
        return latestArrival + .microseconds(Int64((wait * 1e6).rounded(.down)))
    }

    /// The time to give when the wake-up for `deadline` came at `elapsed` on the clock: the later
    /// of the deadline and the timeline's time then; it becomes ``lastGivenTime``. `nil` before
    /// any scan (there is no time to give).
    public mutating func timeToGive(for deadline: Double, at elapsed: Duration) -> Double? {
        guard let latestTime, let latestArrival else { return nil }
        let now = latestTime + (elapsed - latestArrival).inSeconds
        lastGivenTime = max(deadline, now)
        return lastGivenTime
    }
}
