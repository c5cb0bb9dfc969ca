/// One pass over a test recording that scores several algorithms side by side: each scan goes
/// to every algorithm's ``FixPipeline`` and each scan's fix into that algorithm's ``Evaluation``.
///
/// With a delayed timing the fixes are scored when they come out: a track at a time
/// (``FixPipeline/Timing/wholeTrack(lookahead:)``). A fixed lag is scored offline the same way,
/// each fix smoothed with the scans of the lag after it: what the live pipeline delayed by that
/// much gives, with each fix paired with its scan's truth. Call ``finish()`` at the end of the
/// recording.
///
/// When the venue has circle or polygon places, the predicted place of a fix is the place holding
/// the most of it (``PlaceContainment``, ``PlaceContainment/Rule/mostProbable``), so place
/// accuracy is measured too; for comparison, so is the place of the fix's point alone (the
/// smallest place of its floor containing it, ``PlaceLocator``), and ``roomsReport(dataset:)``
/// gives both for the default algorithm.
/// For a map of truth against estimates, the run keeps a bounded, evenly thinned sample of the
/// first algorithm's truth/estimate pairs (see ``samples``).
///
/// ```swift
/// var run = EvaluationRun(venue: venue, algorithms: PositioningAlgorithm.allCases, training: training)
/// while let scan = try reader.next() { run.add(scan) }
/// run.finish()
/// for report in run.reports(dataset: "uji-lib") { print(report.summary) }
/// ```
public struct EvaluationRun: Sendable {
    /// One algorithm's state: its pipeline and its scores so far.
    public struct Entry: Sendable {
        /// The algorithm's name, as reports show it.
        public var algorithm: String
        /// The algorithm's pipeline (its setup, and its measured throughput).
        public var pipeline: FixPipeline
        /// The algorithm's scores.
        public var evaluation = Evaluation()
        /// A place monitor per device and track, fed with the fixes' places (venues with rooms).
        var monitors = DeviceSlots<MonitoredTrack>()

        /// Scans located, fixes, devices and the time spent locating.
        public var statistics: PipelineStatistics { pipeline.statistics }
    }

    /// The algorithms, in the order given.
    public private(set) var entries: [Entry]
    /// When the pipelines give their fixes out (a fixed lag is scored as a whole track with that lookahead).
    public let timing: FixPipeline.Timing
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

    /// The hysteresis of the place monitors the rooms record scores (``EvaluationReport/monitoredPlaceAccuracy``):
    /// one per device and track, fed with the fixes' places; set it before the first scan.
    public var placeMonitor = PlaceMonitor.Configuration()
    /// When set, each device's monitor is fed the room a ``PlaceBelief`` with these settings
    /// holds most probable (fed with the fixes' containment), rather than each fix's own place;
    /// set it before the first scan.
    public var placeBelief: PlaceBelief.Configuration?

    private let containment: PlaceContainment?
    private let placeLocator: PlaceLocator?
    /// The venue, for the room beliefs.
    private let venue: Venue
    /// The venue's neighbouring places, worked out for the first belief.
    private var beliefNeighbours: [String: Set<String>]?
    private var sampleStride = 1

    /// Creates a run of named solvers over a venue.
    public init(venue: PositioningVenue, solvers: [(name: String, solver: any PositionSolver)],
                configuration: LocatorConfiguration = LocatorConfiguration(), timing: FixPipeline.Timing = .immediate,
                sampleLimit: Int = 2000) {
        self.init(setups: solvers.map { ($0.name, PositioningSetup(venue: venue, solver: $0.solver, configuration: configuration)) },
                  timing: timing, sampleLimit: sampleLimit)
    }

    /// Creates a run of named setups (each with its own venue calibration and configuration).
    public init(setups: [(name: String, setup: PositioningSetup)], timing: FixPipeline.Timing = .immediate, sampleLimit: Int = 2000) {
        let scored = Self.scoredTiming(timing)
        entries = setups.map { Entry(algorithm: $0.name, pipeline: FixPipeline(setup: $0.setup, timing: scored)) }
        self.timing = scored
        self.sampleLimit = max(1, sampleLimit)
        let venue = setups.first?.setup.venue.venue
        self.venue = venue ?? Venue(beacons: [])
        let hasGeometry = venue?.places.contains { $0.shape.area != nil } ?? false
        placeLocator = hasGeometry ? venue.map(PlaceLocator.init) : nil
        containment = hasGeometry ? venue.map { PlaceContainment(venue: $0) } : nil
    }

    /// Creates a run of built-in algorithms, each set up once with the same training scans
    /// (see ``PositioningAlgorithm/setup(venue:training:configuration:)``).
    public init(venue: Venue, algorithms: [PositioningAlgorithm], training: [Scan] = [],
                configuration: LocatorConfiguration = LocatorConfiguration(), timing: FixPipeline.Timing = .immediate,
                sampleLimit: Int = 2000) {
        self.init(setups: algorithms.map { ($0.rawValue, $0.setup(venue: venue, training: training, configuration: configuration)) },
                  timing: timing, sampleLimit: sampleLimit)
    }

    /// The timing the run scores with: a fixed lag becomes a whole track with that lookahead,
    /// so that every fix is paired with its scan.
    private static func scoredTiming(_ timing: FixPipeline.Timing) -> FixPipeline.Timing {
        if case .fixedLag(let seconds) = timing { return .wholeTrack(lookahead: seconds) }
        return timing
    }

    /// Takes in a scan: every algorithm locates it and scores the fixes that come out.
    public mutating func add(_ scan: Scan) {
        count(scan)
        for slot in entries.indices {
            var located: [(Scan, Fix?)] = []
            entries[slot].pipeline.add(scan, located: { scan, fix in if let scan { located.append((scan, fix)) } })
            for (scan, fix) in located { score(fix, of: scan, slot: slot) }
        }
    }

    /// The end of the recording: scores the fixes still held back (the open tracks').
    public mutating func finish() {
        for slot in entries.indices {
            var located: [(Scan, Fix?)] = []
            entries[slot].pipeline.finish(located: { scan, fix in if let scan { located.append((scan, fix)) } })
            for (scan, fix) in located { score(fix, of: scan, slot: slot) }
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
        if let containment, let placeLocator {
            let pointPlace = fix.flatMap { fix in placeLocator.place(containing: fix.point.planar, floor: fix.floor ?? 0)?.id }
            let placement = fix.map(containment.placement(of:))
            entries[slot].evaluation.add(truth: truth, fix: fix, placement: placement, pointPlace: pointPlace)
            if let placeBelief, beliefNeighbours == nil {
                beliefNeighbours = PlaceBelief.neighbours(of: venue.places, within: placeBelief.adjacency)
            }
            let device = entries[slot].monitors.slot(device: scan.device, track: scan.track) { [placeMonitor, placeBelief, beliefNeighbours] in
                MonitoredTrack(monitor: PlaceMonitor(configuration: placeMonitor),
                               belief: placeBelief.map { PlaceBelief(neighbours: beliefNeighbours ?? [:], configuration: $0) })
            }
            let (monitored, changes) = entries[slot].monitors.update(device) { track in
                if let placement {
                    let estimate = track.belief == nil ? placement.estimate
                        : track.belief?.update(with: placement.distribution, at: scan.time) ?? placement.estimate
                    _ = track.monitor.observe(estimate, at: scan.time)
                } else {
                    track.belief?.advance(to: scan.time)
                    _ = track.monitor.advance(to: scan.time)
                }
                return (track.monitor.currentPlace, track.changes(monitored: track.monitor.currentPlace, truth: truth?.place))
            }
            entries[slot].evaluation.addMonitoredPlace(monitored, truth: truth)
            entries[slot].evaluation.addRoomChanges(monitor: changes.monitor, truth: changes.truth)
        } else {
            entries[slot].evaluation.add(truth: truth, fix: fix)
        }
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
                                    units: entry.pipeline.setup.venue.venue.units,
                                    fixesPerSecond: entry.statistics.scansPerSecond)
        }
    }
}

extension EvaluationRun {
    /// The room record (kind ``EvaluationReport/Kind/rooms``) of the default algorithm, or of the
    /// first one when the default did not run: the per-scan place accuracy of its fixes by the
    /// most probable place and by point containment; `nil` when the venue has no circle or
    /// polygon place or no scan had a true place.
    public func roomsReport(dataset: String) -> EvaluationReport? {
        guard containment != nil else { return nil }
        let reports = reports(dataset: dataset)
        let chosen = reports.first { $0.algorithm == PositioningAlgorithm.default.rawValue } ?? reports.first
        guard let chosen, let entry = entries.first(where: { $0.algorithm == chosen.algorithm }),
              entry.evaluation.scansWithPlace > 0 else { return nil }
        return chosen.roomsReport
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

/// A device's track as the rooms record follows it: its place monitor, and the last place the
/// monitor and the truth gave, to count their changes of room.
struct MonitoredTrack: Sendable {
    var monitor: PlaceMonitor
    /// The room belief feeding the monitor, when the run has one.
    var belief: PlaceBelief?
    /// The monitor's place at the previous scan, once it has reported one (`.some(nil)`: in none).
    var lastMonitored: String??
    /// The last true place of the track.
    var lastTruth: String?

    init(monitor: PlaceMonitor, belief: PlaceBelief? = nil) {
        self.monitor = monitor
        self.belief = belief
    }

    /// Whether the monitor's place (`monitored`) and the true place (`truth`, `nil` when the
    /// scan has none) changed since the previous scan; remembers them.
    mutating func changes(monitored: String?, truth: String?) -> (monitor: Bool, truth: Bool) {
        var monitorChanged = false
        if let last = lastMonitored {
            monitorChanged = last != monitored
            lastMonitored = .some(monitored)
        } else if monitored != nil {
            lastMonitored = .some(monitored)
        }
        var truthChanged = false
        if let truth {
            truthChanged = lastTruth.map { $0 != truth } ?? false
            lastTruth = truth
        }
        return (monitorChanged, truthChanged)
    }
}
