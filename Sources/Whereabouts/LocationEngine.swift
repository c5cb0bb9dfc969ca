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
    public nonisolated func fixes<Scans: AsyncSequence>(from scans: Scans) -> FixSequence<Scans> where Scans.Element == Scan {
        FixSequence(scans: scans, locators: empty)
    }
}

/// The fixes of a sequence of scans (see ``LocationEngine/fixes(from:)``): scans that give no
/// fix are skipped.
public struct FixSequence<Scans: AsyncSequence>: AsyncSequence where Scans.Element == Scan {
    /// Fixes.
    public typealias Element = Fix
    /// The scans' failure.
    public typealias Failure = Scans.Failure

    let scans: Scans
    let locators: TrackLocators

    /// Makes an iterator that locates scans as they come.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: scans.makeAsyncIterator(), locators: locators)
    }

    /// Locates the scans of the base iterator one by one.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: Scans.AsyncIterator
        var locators: TrackLocators

        /// The next fix, or `nil` when the scans end.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(Scans.Failure) -> Fix? {
            while let scan = try await base.next(isolation: actor) {
                if let fix = locators.locate(scan) { return fix }
            }
            return nil
        }

        /// The next fix, or `nil` when the scans end.
        public mutating func next() async throws(Scans.Failure) -> Fix? {
            try await next(isolation: nil)
        }
    }
}

extension FixSequence: Sendable where Scans: Sendable {}
