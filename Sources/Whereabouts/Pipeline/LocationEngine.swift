/// Whereabouts' positioning engine: scans in, fixes out, for any number of devices.
///
/// The engine is a thin actor over a ``FixPipeline``: per device (afresh for each new track),
/// readings → RSSI filters → ranges → solver → tracking → fix, given out at once, a fixed time
/// late, or a track at a time (``FixPipeline/Timing``). It keeps that state for as long as it
/// lives, so that several sources (a live scanner, a replayed recording) can feed it
/// concurrently; `fixes(from:)` runs a stream through a pipeline of its own, without the
/// actor's hops — what `whereabouts locate` does.
///
/// ```swift
/// let engine = LocationEngine(configuration: .init(venue: venue))
/// for try await fix in engine.fixes(from: RecordingReader(url: url)) {
///     print(fix.time, fix.point, fix.accuracy)
/// }
/// ```
public actor LocationEngine {
    /// What the engine runs, before its setup is built.
    public struct Configuration: Sendable {
        /// The venue.
        public var venue: Venue
        /// How positions are computed: a named algorithm, a solver of the caller's, or a fusion.
        public var method: PositioningMethod
        /// The named algorithm, when ``method`` is one (`nil` for a custom solver or a fusion).
        public var algorithm: PositioningAlgorithm? {
            if case .algorithm(let algorithm) = method { algorithm } else { nil }
        }
        /// Scans with truth for the algorithms that learn.
        public var training: [Scan]
        /// Filters, ranges and the rest of the per-device pipeline.
        public var locator: LocatorConfiguration
        /// When the fixes come out.
        public var timing: FixPipeline.Timing

        /// Creates a configuration; by default the first algorithm of ``PositioningAlgorithm``,
        /// its fixes given out at once.
        public init(venue: Venue, algorithm: PositioningAlgorithm = PositioningAlgorithm.allCases[0],
                    training: [Scan] = [], locator: LocatorConfiguration = LocatorConfiguration(),
                    timing: FixPipeline.Timing = .immediate) {
            self.init(venue: venue, method: .algorithm(algorithm), training: training, locator: locator, timing: timing)
        }

        /// Creates a configuration that positions by `method`: a solver of the caller's or a
        /// trust fusion of several (IBeaconLocation's `customAlgorithm` and
        /// `setAlgorithmsAndTrusts`).
        public init(venue: Venue, method: PositioningMethod, training: [Scan] = [],
                    locator: LocatorConfiguration = LocatorConfiguration(), timing: FixPipeline.Timing = .immediate) {
            self.venue = venue
            self.method = method
            self.training = training
            self.locator = locator
            self.timing = timing
        }

        /// The setup this configuration builds (training the solver once, if it learns).
        public func makeSetup() -> PositioningSetup {
            method.setup(venue: venue, training: training, configuration: locator)
        }
    }

    /// The venue, solver and per-device configuration located with (the latest, after
    /// ``reconfigure(with:)``).
    public nonisolated var setup: PositioningSetup { currentSetup.value }
    /// When the fixes come out.
    public nonisolated let timing: FixPipeline.Timing
    private nonisolated let currentSetup: LockedValue<PositioningSetup>
    private var pipeline: FixPipeline

    /// Builds the pipeline of a configuration (training the solver once, if it learns).
    public init(configuration: Configuration) {
        self.init(setup: configuration.makeSetup(), timing: configuration.timing)
    }

    /// An engine over a setup built beforehand (``PositioningAlgorithm/setup(venue:training:configuration:)``).
    public init(setup: PositioningSetup, timing: FixPipeline.Timing = .immediate) {
        currentSetup = LockedValue(setup)
        self.timing = timing
        pipeline = FixPipeline(setup: setup, timing: timing)
    }

    /// Locates from now on with another venue or method — a beacon added, moved or removed while
    /// running, another algorithm chosen — and returns the fixes the old pipeline still held
    /// back. Every device starts afresh (its filters and track were the old venue's).
    ///
    /// ```swift
    /// configuration.venue.beacons.append(Venue.Beacon(id: "b4", iBeacon: identity, x: 4, y: 7))
    /// _ = await engine.reconfigure(with: configuration)
    /// ```
    @discardableResult
    public func reconfigure(with configuration: Configuration) -> [Fix] {
        let held = pipeline.finish()
        let setup = configuration.makeSetup()
        currentSetup.value = setup
        pipeline = FixPipeline(setup: setup, timing: timing)
        return held
    }

    /// Takes in one scan (of any device) and returns the fixes now due: with the immediate
    /// timing, the scan's own fix if it got one.
    public func add(_ scan: Scan) -> [Fix] {
        pipeline.add(scan)
    }

    /// Takes in one scan and returns its fix, if any: the immediate timing's answer. With a
    /// delayed timing, the latest fix now due (``add(_:)`` gives them all).
    public func process(_ scan: Scan) -> Fix? {
        var latest: Fix?
        pipeline.add(scan) { latest = $0 }
        return latest
    }

    /// Lets the clock run on to `time` without a scan; returns the fixes now due (a fixed lag's).
    public func advance(to time: Double) -> [Fix] {
        var fixes: [Fix] = []
        pipeline.advance(to: time) { fixes.append($0) }
        return fixes
    }

    /// The end of the input: every fix still held back (see ``FixPipeline/finish(_:)``).
    public func finish() -> [Fix] {
        pipeline.finish()
    }

    /// Scans taken in, fixes given out, devices and tracks seen, time spent locating.
    public var statistics: PipelineStatistics { pipeline.statistics }

    /// Forgets every device's state, and the statistics.
    public func reset() {
        pipeline = FixPipeline(setup: setup, timing: timing)
    }

    /// The fixes of a stream of scans, in order, located with a pipeline of their own (the
    /// engine's shared state is not touched) with the engine's timing, ending when the scans end
    /// (after the fixes still held back) and failing when they fail.
    public nonisolated func fixes<Scans: AsyncSequence>(from scans: Scans) -> FixSequence<Scans> where Scans.Element == Scan {
        FixSequence(scans: scans, pipeline: FixPipeline(setup: setup, timing: timing))
    }

    /// The fixes of a stream of scans with a timing of their own (see `fixes(from:)`).
    public nonisolated func fixes<Scans: AsyncSequence>(from scans: Scans, timing: FixPipeline.Timing) -> FixSequence<Scans>
    where Scans.Element == Scan {
        FixSequence(scans: scans, pipeline: FixPipeline(setup: setup, timing: timing))
    }

    /// The fixes of a stream of scans, each `lag` seconds of scans late when a lag is given (see
    /// ``FixPipeline/Timing/fixedLag(seconds:)``: the configuration's tracking model,
    /// constant-velocity when it has none, run forwards and back over those seconds), else with
    /// the engine's timing. One second is enough to take the lag out of a walk's track:
    ///
    /// ```swift
    /// var locator = LocatorConfiguration(filter: nil, tracking: .stopAndGo)
    /// let engine = LocationEngine(configuration: .init(venue: venue, locator: locator))
    /// for try await fix in engine.fixes(from: scanner, lag: 1) { print(fix.time, fix.point) }
    /// ```
    public nonisolated func fixes<Scans: AsyncSequence>(from scans: Scans, lag: Double?) -> FixSequence<Scans>
    where Scans.Element == Scan {
        fixes(from: scans, timing: lag.map { .fixedLag(seconds: $0) } ?? timing)
    }

    /// The fixes of a stream of scans at `pace` (see `fixes(from:)`). Live, time also passes
    /// between scans (a ``ScanTimeline`` reads them), so a fixed lag's fix comes out on time even
    /// when no later scan comes; a replay gives the same fixes every time.
    ///
    /// ```swift
    /// let engine = LocationEngine(configuration: .init(venue: venue, timing: .fixedLag(seconds: 1)))
    /// for try await fix in engine.fixes(from: scans, pace: .live(ContinuousClock())) {
    ///     print(fix.time, fix.point)   // one second after its scan, whatever comes next
    /// }
    /// ```
    public nonisolated func fixes<Scans: AsyncSequence & Sendable>(from scans: Scans, pace: ScanPace) -> FixSequence<Scans>
    where Scans.Element == Scan {
        FixSequence(scans: scans, pipeline: FixPipeline(setup: setup, timing: timing), pace: pace)
    }

    /// The fixes of a stream of scans at `pace`, each `lag` seconds of scans late when a lag is
    /// given (see `fixes(from:lag:)` and ``fixes(from:pace:)``).
    public nonisolated func fixes<Scans: AsyncSequence & Sendable>(from scans: Scans, lag: Double?, pace: ScanPace) -> FixSequence<Scans>
    where Scans.Element == Scan {
        FixSequence(scans: scans, pipeline: FixPipeline(setup: setup, timing: lag.map { .fixedLag(seconds: $0) } ?? timing),
                    pace: pace)
    }

    /// The fixes of a source that knows its pace (a live adapter, a pipe, a capture at its
    /// recorded pace, a file), at that pace (see ``fixes(from:pace:)``).
    public nonisolated func fixes<Scans: PacedScans>(from scans: Scans) -> FixSequence<Scans> {
        fixes(from: scans, pace: scans.pace)
    }

    /// The fixes of a source that knows its pace, with a timing of their own (see
    /// `fixes(from:timing:)`).
    public nonisolated func fixes<Scans: PacedScans>(from scans: Scans, timing: FixPipeline.Timing) -> FixSequence<Scans> {
        FixSequence(scans: scans, pipeline: FixPipeline(setup: setup, timing: timing), pace: scans.pace)
    }

    /// The fixes of a source that knows its pace, each `lag` seconds of scans late when a lag is
    /// given (see `fixes(from:lag:)`): from a live adapter, each on time.
    public nonisolated func fixes<Scans: PacedScans>(from scans: Scans, lag: Double?) -> FixSequence<Scans> {
        fixes(from: scans, lag: lag, pace: scans.pace)
    }
}
