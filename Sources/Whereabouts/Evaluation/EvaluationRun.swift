/// One pass over a test recording that scores several algorithms side by side: each scan goes
/// to every algorithm's ``TrackLocators`` and its fix into that algorithm's ``Evaluation``.
///
/// When the venue has circle or polygon places, the predicted place of a fix is the smallest of
/// them on the fix's floor that contains it (``PlaceLocator``), so place accuracy is measured too.
/// For a map of truth against estimates, the run keeps a bounded, evenly thinned sample of the
/// first algorithm's truth/estimate pairs (see ``samples``).
///
/// ```swift
/// let positioning = PositioningVenue(venue)
/// var run = EvaluationRun(venue: positioning, algorithms: PositioningAlgorithm.allCases, training: training)
/// while let scan = try reader.next() { run.add(scan) }
/// for report in run.reports(dataset: "uji-lib") { print(report.summary) }
/// ```
public struct EvaluationRun: Sendable {
    /// One algorithm's state: its locators and its scores so far.
    public struct Entry: Sendable {
        /// The algorithm's name, as reports show it.
        public var algorithm: String
        /// The algorithm's locators (and its measured throughput).
        public var locators: TrackLocators
        /// The algorithm's scores.
        public var evaluation = Evaluation()
    }

    /// The algorithms, in the order given.
    public private(set) var entries: [Entry]
    /// Scans seen.
    public private(set) var scans = 0
    /// Scans with any truth (a position, a floor or a place).
    public private(set) var scansWithTruth = 0
    /// Scans with a true position.
    public private(set) var scansWithPosition = 0
    /// Truth and the first algorithm's estimate for an evenly spread subset of the scans with a
    /// true position: all of them up to ``sampleLimit``, then every second, fourth, … so that
    /// between `sampleLimit` and twice as many are kept, in scan order.
    public private(set) var samples: [EvaluationSample] = []
    /// The number of samples above which ``samples`` is thinned.
    public let sampleLimit: Int

    private let placeLocator: PlaceLocator?
    private var sampleStride = 1

    /// Creates a run of named solvers over a venue.
    public init(venue: PositioningVenue, solvers: [(name: String, solver: any PositionSolver)],
                configuration: LocatorConfiguration = LocatorConfiguration(), sampleLimit: Int = 2000) {
        entries = solvers.map {
            Entry(algorithm: $0.name, locators: TrackLocators(venue: venue, solver: $0.solver, configuration: configuration))
        }
        self.sampleLimit = max(1, sampleLimit)
        let hasGeometry = venue.venue.places.contains { $0.shape.area != nil }
        placeLocator = hasGeometry ? PlaceLocator(venue.venue) : nil
    }

    /// Creates a run of named setups (each with its own venue calibration and configuration).
    public init(setups: [(name: String, setup: PositioningSetup)], sampleLimit: Int = 2000) {
        entries = setups.map { Entry(algorithm: $0.name, locators: $0.setup.makeLocators()) }
        self.sampleLimit = max(1, sampleLimit)
        let venue = setups.first?.setup.venue.venue
        let hasGeometry = venue?.places.contains { $0.shape.area != nil } ?? false
        placeLocator = hasGeometry ? venue.map(PlaceLocator.init) : nil
    }

    /// Creates a run of built-in algorithms, each set up once with the same training scans
    /// (see ``PositioningAlgorithm/setup(venue:training:configuration:)``).
    public init(venue: Venue, algorithms: [PositioningAlgorithm], training: [Scan] = [],
                configuration: LocatorConfiguration = LocatorConfiguration(), sampleLimit: Int = 2000) {
        self.init(setups: algorithms.map { ($0.rawValue, $0.setup(venue: venue, training: training, configuration: configuration)) },
                  sampleLimit: sampleLimit)
    }

    /// Locates a scan with every algorithm and scores the fixes.
    public mutating func add(_ scan: Scan) {
        count(scan)
        for slot in entries.indices {
            score(entries[slot].locators.locate(scan), of: scan, slot: slot)
        }
    }

    /// Locates one whole track of one device with every algorithm offline, smoothed with the scans
    /// after each one too (``TrackLocators/smoothedFixes(forTrack:)``), and scores the fixes. A
    /// ``TrackCollector`` gathers the tracks of a recording; feed a run either scans or tracks.
    /// With a `lag`, each fix learns only from the scans of the `lag` seconds after it: the score
    /// of a live pipeline delayed by that much.
    ///
    /// ```swift
    /// var collector = TrackCollector()
    /// while let scan = try reader.next() {
    ///     if let track = collector.add(scan) { run.addSmoothedTrack(track) }
    /// }
    /// for track in collector.finish() { run.addSmoothedTrack(track) }
    /// ```
    public mutating func addSmoothedTrack(_ track: [Scan], lag: Double? = nil) {
        for scan in track { count(scan) }
        for slot in entries.indices {
            let fixes = entries[slot].locators.smoothedFixes(forTrack: track, lag: lag)
            for (scan, fix) in zip(track, fixes) { score(fix, of: scan, slot: slot) }
        }
    }

    /// Counts a scan and what truth it has.
    private mutating func count(_ scan: Scan) {
        scans += 1
        guard let truth = scan.truth else { return }
        if truth.planarPoint != nil || truth.floor != nil || truth.place != nil { scansWithTruth += 1 }
        if truth.planarPoint != nil { scansWithPosition += 1 }
    }

    /// Scores one algorithm's fix of a scan (and keeps a sample of the first algorithm's).
    private mutating func score(_ fix: Fix?, of scan: Scan, slot: Int) {
        let truth = scan.truth
        let place = fix.flatMap { fix in placeLocator?.place(containing: fix.point.planar, floor: fix.floor ?? 0)?.id }
        entries[slot].evaluation.add(truth: truth, fix: fix, place: place)
        if slot == 0, let truePoint = truth?.planarPoint { keepSample(truth: truePoint, floor: truth?.floor, fix: fix) }
    }

    private mutating func keepSample(truth: PlanarPoint, floor: Int?, fix: Fix?) {
        defer { sampleCounter += 1 }
        guard sampleCounter % sampleStride == 0 else { return }
        samples.append(EvaluationSample(truth: truth, floor: floor, estimate: fix?.point.planar))
        if samples.count >= 2 * sampleLimit {
            samples = samples.enumerated().compactMap { $0.offset % 2 == 0 ? $0.element : nil }
            sampleStride *= 2
        }
    }

    private var sampleCounter = 0

    /// The report of every algorithm, in order, with its measured throughput.
    public func reports(dataset: String) -> [EvaluationReport] {
        entries.map { entry in
            entry.evaluation.report(dataset: dataset, algorithm: entry.algorithm,
                                    units: entry.locators.venue.venue.units,
                                    fixesPerSecond: entry.locators.callsPerSecond)
        }
    }
}

/// A true position and what an algorithm estimated there, for maps.
public struct EvaluationSample: Hashable, Sendable {
    /// The true position.
    public var truth: PlanarPoint
    /// The true floor, when known.
    public var floor: Int?
    /// The estimate, or `nil` when the scan was not located.
    public var estimate: PlanarPoint?

    /// Creates a sample.
    public init(truth: PlanarPoint, floor: Int? = nil, estimate: PlanarPoint?) {
        self.truth = truth
        self.floor = floor
        self.estimate = estimate
    }
}
