/// A stage fed with fixed receivers' reports: ``ReceiverFusion`` turns them into one scan per tag
/// as they fall due, and the next stage takes those as it would a phone's scans — a
/// ``FixPipeline`` locates each tag, a ``ScanPipeline`` raises each tag's events. Driven by a
/// ``ScanTimeline`` like any stage, so that live, a tag's scans and then its exits fall due on time
/// while the receivers are silent.
///
/// ```swift
/// let setup = PositioningAlgorithm.default.setup(venue: venue.receiversAsBeacons())
/// var pipeline = FusedPipeline(fusion: ReceiverFusion(venue: venue), then: FixPipeline(setup: setup))
/// var timeline = ScanTimeline(scans: reports, pace: .replay)
/// try await timeline.run(&pipeline) { fixes in for fix in fixes { print(fix.device ?? "-", fix.x, fix.y) } }
/// ```
public struct FusedPipeline<Next: TimedStage>: TimedStage {
    /// The fusion of the receivers' reports.
    public private(set) var fusion: ReceiverFusion
    /// The stage the tag scans go to.
    public private(set) var next: Next

    /// A fusion whose tag scans go to `next`.
    public init(fusion: ReceiverFusion, then next: Next) {
        self.fusion = fusion
        self.next = next
    }

    /// Takes in one receiver's report: the next stage's output for the tag scans due by its arrival.
    public mutating func process(_ report: Scan) async -> [Next.Output] {
        await pass(fusion.process(report))
    }

    /// Lets time run on to `time`: the tag scans due by then, then what the next stage has due.
    public mutating func advance(to time: Double) async -> [Next.Output] {
        var outputs = await pass(fusion.advance(to: time))
        outputs += await next.advance(to: time)
        return outputs
    }

    /// The earlier of the fusion's next tag scan and the next stage's own deadline.
    public func nextDeadline() async -> Double? {
        let own = fusion.nextDeadline()
        guard let theirs = await next.nextDeadline() else { return own }
        return min(own ?? theirs, theirs)
    }

    /// The end of the input: the tag scans still held, then what the next stage still holds.
    public mutating func finish() async -> [Next.Output] {
        var outputs = await pass(fusion.finish())
        outputs += await next.finish()
        return outputs
    }

    private mutating func pass(_ scans: [Scan]) async -> [Next.Output] {
        var outputs: [Next.Output] = []
        for scan in scans { outputs += await next.process(scan) }
        return outputs
    }
}

extension FusedPipeline: Sendable where Next: Sendable {}
