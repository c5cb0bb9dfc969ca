/// The whole chain from scans to events, per device: each scan is located (``FixPipeline``,
/// at once), its place estimated (``PlaceSource``) and both go through the device's event hub
/// (``MonitorPipeline``), which gives out region and place events. What `whereabouts watch` runs,
/// with a recording, a capture or a live scanner as the source and a writer at the end.
///
/// ```swift
/// var pipeline = ScanPipeline(setup: PositioningAlgorithm.default.setup(venue: venue),
///                             places: .containment(PlaceContainment(venue: venue)),
///                             monitor: MonitorPipeline(venue: venue))
/// for try await scan in reader {
///     for event in await pipeline.process(scan) { print(event.device ?? "-", event.event.topic) }
/// }
/// for event in await pipeline.finish() { print(event.device ?? "-", event.event.topic) }
/// ```
public struct ScanPipeline: Sendable {
    /// The fixes (located only when the places need them).
    public private(set) var fixes: FixPipeline
    /// Where each scan's place estimate comes from.
    public private(set) var places: PlaceSource
    /// The per-device event hubs.
    public private(set) var monitor: MonitorPipeline

    /// A chain locating with `setup` (each fix at once: the hubs see every scan with its fix).
    public init(setup: PositioningSetup, places: PlaceSource, monitor: MonitorPipeline) {
        fixes = FixPipeline(setup: setup, timing: .immediate)
        self.places = places
        self.monitor = monitor
    }

    /// Takes in one scan and returns the events it raised, in order: its region and
    /// advertisement events, then its place events.
    public mutating func process(_ scan: Scan) async -> [DeviceEvent] {
        var fix: Fix?
        if places.needsFixes { fixes.add(scan) { fix = $0 } }
        let estimate = places.estimate(for: scan, fix: fix)
        return await monitor.process(scan, estimate: estimate, fix: fix)
    }

    /// Lets the clock run on to `time` without a scan (a live source's silence): the exits and
    /// advertisement batches of every device that fell due by then.
    public mutating func advance(to time: Double) async -> [DeviceEvent] {
        await monitor.advance(to: time)
    }

    /// When the next exit or advertisement batch of any device falls due, or `nil` when none is
    /// pending.
    public func nextDeadline() async -> Double? {
        await monitor.nextDeadline()
    }

    /// The end of the input: the exits still pending, and the advertisement batches gathered.
    public mutating func finish() async -> [DeviceEvent] {
        await monitor.finish()
    }
}
