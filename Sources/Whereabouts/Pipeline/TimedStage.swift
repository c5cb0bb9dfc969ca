/// What a ``ScanTimeline`` gives a pipeline: the next scan, or time passing without one.
public enum PipelineInput: Hashable, Sendable {
    /// A scan came in.
    case scan(Scan)
    /// No scan came, but the pipeline's clock reached this time (seconds on the scans' clock):
    /// a deadline of the pipeline fell due.
    case time(Double)
}

/// A stage of the pipeline that holds things back until time passes — a region's exit, a ranging
/// round, a fixed-lag fix, an advertisement batch — so that a live source must also move it on
/// when no scan comes (``ScanTimeline/run(_:emit:)``).
///
/// A stage takes scans (``process(_:)``), lets its clock run on to a time without one
/// (``advance(to:)``), tells when it next has something due (``nextDeadline()``) and gives out
/// what it still holds at the end of the input (``finish()``). Times are seconds on the scans'
/// clock; a replay never calls ``advance(to:)``, so that it gives the same output every time.
///
/// ```swift
/// var pipeline = ScanPipeline(setup: setup, places: places, monitor: MonitorPipeline(venue: venue))
/// var timeline = ScanTimeline(scans: source, pace: .live(ContinuousClock()))
/// try await timeline.run(&pipeline) { events in for event in events { print(event.event.topic) } }
/// ```
public protocol TimedStage {
    /// What the stage gives out.
    associatedtype Output

    /// Takes in one scan; returns what is now due.
    mutating func process(_ scan: Scan) async -> [Output]

    /// Lets the clock run on to `time` without a scan; returns what fell due by then.
    mutating func advance(to time: Double) async -> [Output]

    /// The earliest time at which something the stage holds falls due without another scan, or
    /// `nil` when nothing does.
    func nextDeadline() async -> Double?

    /// The end of the input: what the stage still holds.
    mutating func finish() async -> [Output]
}

extension FixPipeline: TimedStage {
    /// Takes in one scan and returns the fixes now due (``add(_:)``).
    public mutating func process(_ scan: Scan) -> [Fix] {
        add(scan)
    }

    /// Lets the clock run on to `time` and returns the fixes now due (a fixed lag's).
    public mutating func advance(to time: Double) -> [Fix] {
        var fixes: [Fix] = []
        advance(to: time) { fixes.append($0) }
        return fixes
    }

    /// When a fixed lag next may have a fix due (the other timings hold nothing back on time).
    public func nextDeadline() -> Double? {
        nextDueTime
    }
}

extension ScanPipeline: TimedStage {}

extension AnchorPipeline: TimedStage {
    /// When the next device's ranging round ends.
    public func nextDeadline() -> Double? {
        nextRoundEnd
    }
}
