/// What a pipeline of fixes has done so far: scans taken in, fixes given out, devices and tracks
/// seen, and the time spent locating (filters, observation, solver and smoothing; nothing spent
/// reading or writing), for throughput figures.
///
/// ```swift
/// var pipeline = FixPipeline(setup: setup)
/// for scan in scans { pipeline.add(scan) { fix in print(fix) } }
/// print(pipeline.statistics.scansPerSecond ?? 0)
/// ```
public struct PipelineStatistics: Hashable, Sendable {
    /// Scans taken in (whether they got a fix or not).
    public var scans = 0
    /// Fixes given out.
    public var fixes = 0
    /// Devices seen.
    public var devices = 0
    /// How many times a device's state was started: a device first seen, or a new track of one.
    public var trackStarts = 0
    /// Time spent locating.
    public var elapsed: Duration = .zero

    /// No work done yet.
    public init() {}

    /// Scans taken in per second of time spent locating, or `nil` before any time was measured.
    public var scansPerSecond: Double? {
        let seconds = elapsed.inSeconds
        guard scans > 0, seconds > 0 else { return nil }
        return Double(scans) / seconds
    }

    /// Scans that got no fix (yet: a delayed pipeline gives its fixes out late).
    public var unlocated: Int { max(0, scans - fixes) }
}
