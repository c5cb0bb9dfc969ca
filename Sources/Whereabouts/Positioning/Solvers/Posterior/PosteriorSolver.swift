import Foundation

/// A probabilistic tracker: the evidence of every scan weighed over the venue's positions and
/// filtered over time, rather than the members' answers averaged (issue 53's foundation).
///
/// **Radio map** (``RadioMap``): each beacon's expected RSSI and spread at every cell of a grid
/// over the venue's bounds, from the calibrated path-loss model, corrected by the survey's
/// residuals where the training recording has true positions.
///
/// **Likelihood** (``ScanLikelihood``): each heard beacon's RSSI against the map (a Gaussian with
/// a uniform tail), each unheard beacon of the floor against the detection floor.
///
/// **Filter** (``GridFilter``): a grid of cells, each scan's likelihood (tempered) multiplying the
/// probability carried over from the previous scan by a walking motion model (stops, a bounded
/// speed, rare jumps anywhere). One filter per device and track, kept by the ``Locator`` that
/// holds the solver (``update(_:)``); ``locate(_:)`` weighs one observation alone.
///
/// **Fix**: the posterior's mean or its most probable cell (``Options/estimate``), with an
/// accuracy radius of 1.51 times the posterior's per-axis standard deviation (a circular
/// Gaussian's 68 % radius) times a factor measured on the training data
/// (``accuracyScale``).
///
/// ```swift
/// let setup = PositioningAlgorithm.posterior.setup(venue: venue, training: survey)
/// var locators = setup.makeLocators()
/// ```
public struct PosteriorSolver: PositionSolver {
    /// Settings; those left `nil` are measured on the training data (see
    /// ``init(venue:training:configuration:options:)``).
    public struct Options: Hashable, Sendable {
        /// The side of a cell, metres (made larger when the venue would need more than
        /// ``maximumCells``).
        public var cellSize = 0.5
        /// The most cells a grid has: the filter keeps 4 bytes a cell per device.
        public var maximumCells = 8192
        /// ε of the likelihood's uniform tail.
        public var outlierWeight = 0.1
        /// m, the probability that a beacon within reach goes unheard; `nil`: measured on the
        /// training data, else ``defaultMissProbability``.
        public var missProbability: Double?
        /// The detection floor, dBm; `nil`: the training devices' weakest readings (their
        /// median), else ``defaultDetectionFloor``.
        public var detectionFloor: Double?
        /// The power each scan's likelihood is raised to; `nil`: chosen by the validation.
        public var temper: Double?
        /// The σ of a walking device's displacement per second, m/s; `nil`: chosen by the validation.
        public var speed: Double?
        /// The probability that the device did not move between two scans.
        public var stayProbability = 0.5
        /// The rate per second of a jump anywhere.
        public var jumpRate = 0.02
        /// The survey correction's kernel bandwidth (metres; 0 for none); `nil`: chosen by the validation.
        public var bandwidth: Double?
        /// Whether the fix is the posterior's mean or its mode; `nil`: chosen by the validation.
        public var estimate: Estimate?
        /// A gap in a track longer than this (seconds) starts the filter afresh.
        public var maximumGap = 60.0

        /// Creates options with the defaults.
        public init() {}
    }

    /// Which point of the posterior is the fix.
    public enum Estimate: String, Hashable, Sendable {
        /// The probability-weighted mean of the cells.
        case mean
        /// The centre of the most probable cell.
        case mode
    }

    /// m without training data.
    public static let defaultMissProbability = 0.3
    /// The detection floor without training data, dBm.
    public static let defaultDetectionFloor = -100.0

    /// The venue.
    public let venue: PositioningVenue
    /// The radio map; `nil` when the venue has no placed beacon to span a grid.
    public let map: RadioMap?
    /// The likelihood of a scan.
    public let likelihood: ScanLikelihood
    /// The motion model, in venue units.
    public let motion: GridFilter.Motion
    /// Which point is the fix.
    public let estimate: Estimate
    /// The survey correction's bandwidth used (metres), `nil` for none.
    public let bandwidth: Double?
    /// The factor applied to the posterior's 68 % radius so that it holds the truth 68 % of the
    /// time in the validation.
    public let accuracyScale: Double
    /// The gap that restarts a track, seconds.
    public let maximumGap: Double
    /// The validation's mean error (venue units), `nil` when nothing was scored.
    public let validationError: Double?
    /// Per beacon and cell, the log-probability of not hearing it (precomputed).
    let logUnheard: [[Float]]

    /// The filter of the current track, `nil` before its first observation.
    private var filter: GridFilter?
    /// The time of the track's latest observation.
    private var lastTime: Double?
    /// The posterior of the latest observation: mean, mode, and the untouched 68 % radius.
    private(set) var lastPosterior: (mean: PlanarPoint, mode: PlanarPoint, radius: Double)?

    /// A solver of given parts.
    init(venue: PositioningVenue, map: RadioMap?, likelihood: ScanLikelihood, motion: GridFilter.Motion, estimate: Estimate,
         bandwidth: Double?, accuracyScale: Double, maximumGap: Double, validationError: Double?) {
        self.venue = venue
        self.map = map
        self.likelihood = likelihood
        self.motion = motion
        self.estimate = estimate
        self.bandwidth = bandwidth
        self.accuracyScale = accuracyScale
        self.maximumGap = maximumGap
        self.validationError = validationError
        if let map {
            logUnheard = map.floors.indices.map { beacon in
                guard map.hasMap(beacon: beacon) else { return [] }
                return (0..<map.grid.count).map { cell in
                    Float(likelihood.logUnheard(mean: Double(map.means[beacon][cell]), spread: Double(map.spreads[beacon][cell])))
                }
            }
        } else {
            logUnheard = []
        }
    }

    /// The same solver with another accuracy factor, estimate and no track.
    func with(accuracyScale: Double, estimate: Estimate, validationError: Double?) -> PosteriorSolver {
        PosteriorSolver(venue: venue, map: map, likelihood: likelihood, motion: motion, estimate: estimate,
                        bandwidth: bandwidth, accuracyScale: accuracyScale, maximumGap: maximumGap,
                        validationError: validationError)
    }

    /// `"posterior"`.
    public var name: String { "posterior" }

    /// Raw RSSI, one scan's readings at a time (a beacon timeout of 0), no tracker: the filter
    /// is the tracker, and a reading repeated from an earlier scan would be counted twice.
    public var validatedSettings: ValidatedSettings? {
        ValidatedSettings(filter: nil, tracking: nil, validationError: validationError, beaconTimeout: 0)
    }

    /// The bytes of state kept per device and track: the filter's weights.
    public var stateBytes: Int { filter?.stateBytes ?? (map.map { $0.grid.count * MemoryLayout<Float>.stride } ?? 0) }

    /// The posterior of one observation alone (every cell equally likely before it).
    public func locate(_ observation: Observation) -> PositionEstimate? {
        var single = self
        single.resetTrack()
        return single.update(observation)
    }

    /// The next observation of the track: the filter moved by the time since the previous one
    /// and weighed by this one's likelihood; `nil` (the filter untouched) when no heard beacon
    /// has a map.
    public mutating func update(_ observation: Observation) -> PositionEstimate? {
        guard let map, let (logs, used) = logLikelihood(of: observation, map: map) else { return nil }
        if var current = filter, let lastTime, observation.time - lastTime <= maximumGap {
            current.predict(seconds: observation.time - lastTime, motion: motion)
            filter = current
        } else {
            filter = GridFilter(grid: map.grid)
        }
        filter?.update(logLikelihood: logs, temper: likelihood.temper)
        lastTime = observation.time
        guard let summary = filter?.summary() else { return nil }
        let radius = PositionEstimate.radiusPerStandardDeviation * ((summary.variance.x + summary.variance.y) / 2).squareRoot()
        lastPosterior = (summary.mean, summary.mode, radius)
        let point = estimate == .mean ? summary.mean : summary.mode
        return PositionEstimate(point: SpatialPoint(x: point.x, y: point.y, z: venue.receiverHeight),
                                accuracy: radius * accuracyScale, beaconCount: used)
    }

    /// Forgets the track.
    public mutating func resetTrack() {
        filter = nil
        lastTime = nil
        lastPosterior = nil
    }

    /// The log-likelihood of the observation at each cell and the number of heard beacons it
    /// used, over the beacons of its floor (the observation's, else the strongest mapped
    /// beacon's); `nil` when no heard beacon has a map.
    func logLikelihood(of observation: Observation, map: RadioMap) -> ([Float], Int)? {
        guard let strongest = observation.signals.first(where: { map.hasMap(beacon: $0.beaconIndex) }) else { return nil }
        let floor = observation.floor ?? map.floors[strongest.beaconIndex]
        let count = map.grid.count
        var logs = [Float](repeating: 0, count: count)
        var heard = [Bool](repeating: false, count: map.floors.count)
        var used = 0
        for signal in observation.signals {
            let beacon = signal.beaconIndex
            guard map.hasMap(beacon: beacon), map.floors[beacon] == floor, !heard[beacon], signal.rssi.isFinite else { continue }
            heard[beacon] = true
            used += 1
            let means = map.means[beacon], spreads = map.spreads[beacon]
            for cell in 0..<count {
                logs[cell] += Float(likelihood.logHeard(rssi: signal.rssi, mean: Double(means[cell]),
                                                        spread: Double(spreads[cell])))
            }
        }
        guard used > 0 else { return nil }
        for beacon in map.floors.indices where !heard[beacon] && map.floors[beacon] == floor && beacon < logUnheard.count {
            let table = logUnheard[beacon]
            guard table.count == count else { continue }
            for cell in 0..<count { logs[cell] += table[cell] }
        }
        return (logs, used)
    }
}
