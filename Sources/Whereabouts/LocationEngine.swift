/// Whereabouts' positioning engine: scans in, fixes out, for any number of devices.
///
/// The engine wires a configuration into a running pipeline — per device (afresh for each new
/// track), readings →
/// RSSI filters → ranges → solver → fix — and keeps that state for as long as it lives, so that
/// several sources (a live scanner, a replayed recording) can feed it concurrently.
///
/// ```swift
/// let engine = LocationEngine(configuration: .init(venue: venue))
/// for try await fix in engine.fixes(from: RecordingReader(url: url)) {
///     print(fix.time, fix.point, fix.accuracy)
/// }
/// ```
public actor LocationEngine {
    /// What the engine runs.
    public struct Configuration: Sendable {
        /// The venue.
        public var venue: Venue
        /// The positioning algorithm.
        public var algorithm: PositioningAlgorithm
        /// Scans with truth for the algorithms that learn.
        public var training: [Scan]
        /// Filters, ranges and the rest of the per-device pipeline.
        public var locator: LocatorConfiguration

        /// Creates a configuration; by default the first algorithm of ``PositioningAlgorithm``.
        public init(venue: Venue, algorithm: PositioningAlgorithm = PositioningAlgorithm.allCases[0],
                    training: [Scan] = [], locator: LocatorConfiguration = LocatorConfiguration()) {
            self.venue = venue
            self.algorithm = algorithm
            self.training = training
            self.locator = locator
        }
    }

    /// The configuration the engine runs.
    public nonisolated let configuration: Configuration
    private let empty: TrackLocators
    private var locators: TrackLocators

    /// Builds the pipeline of a configuration (training the solver once, if it learns).
    public init(configuration: Configuration) {
        self.configuration = configuration
        empty = configuration.algorithm.setup(venue: configuration.venue, training: configuration.training,
                                              configuration: configuration.locator).makeLocators()
        locators = empty
    }

    /// Takes in one scan (of any device) and returns the fix it gives, if any.
    public func process(_ scan: Scan) -> Fix? {
        locators.locate(scan)
    }

    /// Forgets every device's state.
    public func reset() {
        locators = empty
    }

    /// The fixes of a stream of scans, in order, located with a pipeline of their own (the
    /// engine's shared state is not touched), ending when the scans end and failing when they fail.
    ///
    /// With a `lag` (seconds), each fix comes `lag` seconds of scans late, smoothed with them
    /// (``FixedLagLocators``: the configuration's tracking model, constant-velocity when it has
    /// none, run forwards and back over those seconds); when the scans end, the fixes still held
    /// back follow. One second is enough to take the lag out of a walk's track:
    ///
    /// ```swift
    /// var locator = LocatorConfiguration(filter: nil, tracking: .stopAndGo)
    /// let engine = LocationEngine(configuration: .init(venue: venue, locator: locator))
    /// for try await fix in engine.fixes(from: scanner, lag: 1) { print(fix.time, fix.point) }
    /// ```
    public nonisolated func fixes<Scans: AsyncSequence>(from scans: Scans, lag: Double? = nil) -> FixSequence<Scans>
    where Scans.Element == Scan {
        guard let lag else { return FixSequence(scans: scans, pipeline: .live(empty)) }
        return FixSequence(scans: scans, pipeline: .delayed(FixedLagLocators(
            venue: empty.venue, solver: empty.solver, configuration: empty.configuration, lag: lag)))
    }
}

/// The fixes of a sequence of scans (see ``LocationEngine/fixes(from:lag:)``): scans that give
/// no fix are skipped.
public struct FixSequence<Scans: AsyncSequence>: AsyncSequence where Scans.Element == Scan {
    /// Fixes.
    public typealias Element = Fix
    /// The scans' failure.
    public typealias Failure = Scans.Failure

    /// How the scans are located: at once, or a fixed time late.
    enum Pipeline: Sendable {
        case live(TrackLocators)
        case delayed(FixedLagLocators)
    }

    let scans: Scans
    let pipeline: Pipeline

    /// Makes an iterator that locates scans as they come.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: scans.makeAsyncIterator(), pipeline: pipeline)
    }

    /// Locates the scans of the base iterator one by one.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: Scans.AsyncIterator
        /// One of the two is set (optionals, so that they change in place).
        var live: TrackLocators?
        var delayed: FixedLagLocators?
        /// Fixes reported and not handed out yet, from `nextReady`.
        var ready: [Fix] = []
        var nextReady = 0
        var finished = false

        init(base: Scans.AsyncIterator, pipeline: Pipeline) {
            self.base = base
            switch pipeline {
            case .live(let locators): live = locators
            case .delayed(let locators): delayed = locators
            }
        }

        /// The next fix, or `nil` when the scans end.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(Scans.Failure) -> Fix? {
            while true {
                if nextReady < ready.count {
                    nextReady += 1
                    return ready[nextReady - 1]
                }
                if finished { return nil }
                guard let scan = try await base.next(isolation: actor) else {
                    finished = true
                    ready = delayed?.finish() ?? []
                    nextReady = 0
                    continue
                }
                if live != nil {
                    if let fix = live?.locate(scan) { return fix }
                } else {
                    ready = delayed?.locate(scan) ?? []
                    nextReady = 0
                }
            }
        }

        /// The next fix, or `nil` when the scans end.
        public mutating func next() async throws(Scans.Failure) -> Fix? {
            try await next(isolation: nil)
        }
    }
}

extension FixSequence: Sendable where Scans: Sendable {}
