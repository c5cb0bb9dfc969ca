import Foundation

/// A probabilistic tracker: the evidence of every scan weighed over the venue's positions and
/// filtered over time, rather than the members' answers averaged (issue 53's foundation).
///
/// **Radio map** (``RadioMap``): each beacon's expected RSSI and spread at every cell of a grid
/// over the venue's bounds, from the calibrated path-loss model, corrected by the survey's
/// residuals where the training recording has true positions.
///
/// **Likelihood** (``ScanLikelihood``): each heard beacon's RSSI against the map (a Gaussian with
/// a uniform tail), each unheard beacon of the floor against the detection floor. A track's scan
/// is weighed exactly where the posterior holds its mass — where the prediction times the
/// scan's likelihood at the centres of blocks of 5 × 5 cells holds at least 1 % of its largest —
/// and at its block's centre elsewhere: the same mean errors within 2 cm on the datasets
/// measured, for a 25th of the cells and a few hundred more.
///
/// **Filter** (``GridFilter``): a grid of cells, each scan's likelihood (tempered) multiplying the
/// probability carried over from the previous scan by a walking motion model (stops, a bounded
/// speed, rare jumps anywhere; a track walks only the cells within reach of those holding 1 % of
/// its largest weight, ``GridFilter/predict(seconds:motion:walkingShare:)``). One filter per
/// device and track, kept by the ``Locator`` that holds the solver (``update(_:)``);
/// ``locate(_:)`` weighs one observation alone.
///
/// **Floors**: in a venue with beacons on several floors, the filter holds a layer of cells per
/// floor, each scan weighed on every floor with every floor's beacons (a beacon through the
/// floors between at ``RadioMap``'s loss per slab, measured on the survey), and the motion moves
/// a little mass between floors at each step (``Options/floorChangeRate``). The fix is on the
/// most probable floor, with that floor's probability (``PositionEstimate/floorProbability``);
/// the locator's floor selection, which would keep one floor's beacons only, is off.
///
/// **Fix**: the posterior's mean or its most probable cell (``Options/estimate``) on its most
/// probable floor, with an accuracy radius of 1.51 times the posterior's per-axis standard
/// deviation there (a circular Gaussian's 68 % radius) times a factor measured on the training
/// data (``accuracyScale``; ``unknownDeviceAccuracyScale`` for a phone the training never saw).
///
/// **Smoothing** with the same model: ``startSmoothing()`` keeps a whole track for
/// ``finishSmoothing()`` (`--smooth`), ``startLagSmoothing()`` keeps the steps a pipeline that
/// reports a fixed time late still waits on, each smoothed by ``lagSmoothedEstimate(at:)`` with
/// those after it (`--lag`): the filter's posterior times the backward message of
/// ``GridFilter``'s smoother. Either keeps at most 90 steps of two `Float`s a cell.
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
        /// ``maximumCells``). Measured before the likelihood was weighed on the posterior's support
        /// alone: cells of 1 m located three times faster, from 5 % better to
        /// 0.7 % worse on the shared datasets and the family's tuning seeds, but 1.4 % worse in a
        /// room, 5 % on a sparse venue of the family and 32 % on one whose fixes err by 0.9 m.
        public var cellSize = 0.5
        /// The most cells a grid has on a floor: the filter keeps 4 bytes a cell per device.
        /// In a venue with beacons on several floors (a layer of the grid's cells each), the
        /// layers together hold at most ``PosteriorSolver/maximumStateCells``.
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
        /// The probability that the device did not move between two scans; `nil`: chosen by the
        /// validation, 0.5 without training data.
        public var stayProbability: Double?
        /// The rate per second of a jump anywhere.
        public var jumpRate = 0.02
        /// The rate per second of a change of floor, in a venue whose beacons are on several.
        public var floorChangeRate = 0.01
        /// The loss per floor crossed between a beacon and a receiver (dB); `nil`: measured on
        /// the training data (the candidate from 5 to 30 dB under which the survey's beacons of
        /// other floors, heard or not, are most likely), else
        /// ``RadioMap/defaultFloorAttenuation``.
        public var floorAttenuation: Double?
        /// The survey correction's kernel bandwidth (metres; 0 for none); `nil`: chosen by the validation.
        public var bandwidth: Double?
        /// Whether the fix is the posterior's mean or its mode; `nil`: chosen by the validation.
        public var estimate: Estimate?
        /// The σ of a device's RSSI offset before its first scan (dB); `nil`: the calibration's
        /// prior spread of phones with training data, 10 dB without.
        public var offsetPriorSigma: Double?
        /// A gap in a track longer than this (seconds) starts the filter afresh.
        public var maximumGap = 60.0
        /// How long after its last evidence (seconds) the filter still answers a scan that heard
        /// no mapped beacon, with its prediction: the motion model's widened posterior, on the
        /// floor it was on. As long as the members hold a silent beacon's reading
        /// (``LocatorConfiguration/beaconTimeout``'s default).
        public var maximumCoast = 5.0
        /// Whether cells outside the ``WalkableArea`` (the places that tile a floor, the
        /// survey's neighbourhood) are less likely at each scan.
        public var weighsWalkableArea = true

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
    /// The most cells the layers of a grid hold together (64 KiB of a device's state).
    public static let maximumStateCells = 16_384
    /// The detection floor without training data, dBm.
    public static let defaultDetectionFloor = -100.0

    /// The venue.
    public let venue: PositioningVenue
    /// The radio map; `nil` when the venue has no placed beacon to span a grid.
    public let map: RadioMap?
    /// Where a person may stand, per floor; `nil` when nothing says.
    public let area: WalkableArea?
    /// The walkable area's log-prior of each cell of each of the map's layers (0 on a floor
    /// without an area); `nil` when no floor has one.
    let areaPrior: [Float]?
    /// The grid's cells in each of the venue's places, whose weights are each fix's
    /// ``PositionEstimate/placeProbabilities``; `nil` without a grid or places with an area.
    public let placeCells: PlaceCells?
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
    /// The factor for a device not among ``knownDevices``, measured in the same validation with
    /// its scans read as a phone the training never saw (``DefaultSolver/unknownDeviceOffset`` dB
    /// off, learning its offset as it goes); `nil` when not measured (``accuracyScale`` then
    /// serves every device).
    public let unknownDeviceAccuracyScale: Double?
    /// The gap that restarts a track, seconds.
    public let maximumGap: Double
    /// How long after its last evidence the filter answers with its prediction alone, seconds.
    public let maximumCoast: Double
    /// The validation's mean error (venue units), `nil` when nothing was scored.
    public let validationError: Double?
    /// The log-probability of not hearing a beacon, tabulated.
    let unheardTable: UnheardTable
    /// The map at the centres of blocks of cells, weighed where a track holds little mass
    /// (``blockMap(of:)``); `nil` for a small grid.
    let blockMap: RadioMap?
    /// The σ of a device's RSSI offset before its first scan, dB.
    public let offsetPriorSigma: Double
    /// The devices whose offsets the setup knows (the training's, the venue's list): their
    /// readings arrive corrected, so their offset starts at 0 within ``knownDeviceOffsetSigma``.
    public let knownDevices: Set<String>
    /// The σ of a known device's remaining offset, dB (0: none, its offset is taken as known).
    public let knownDeviceOffsetSigma: Double
    /// How much a device's offset may drift, dB² a second.
    public static let offsetDrift = 0.01
    /// The largest correction the unheard beacons make to a scan's offset at a cell, dB.
    static let maximumOffsetStep: Float = 10

    /// The filter of the current track, `nil` before its first observation.
    private var filter: GridFilter?
    /// The time of the track's latest observation.
    private var lastTime: Double?
    /// The radius factor of the track's device: ``accuracyScale`` for a known one, else
    /// ``unknownDeviceAccuracyScale`` when measured.
    private var radiusScale: Double?
    /// The time of the track's latest observation with evidence.
    private var lastEvidence: Double?
    /// The track's RSSI offset (dB, what its readings have on top of the map) and its variance.
    private var offset: (mean: Double, variance: Double)?
    /// The posterior of the latest observation: mean, mode, and the untouched 68 % radius.
    private(set) var lastPosterior: (mean: PlanarPoint, mode: PlanarPoint, radius: Double)?
    /// One observation of a track kept for smoothing: its time, the filter's step and the
    /// estimate the filter gave.
    private struct KeptStep: Sendable {
        var time: Double
        var step: GridFilter.SmoothingStep
        var estimate: PositionEstimate
    }
    /// While a track is smoothed (``startSmoothing()``): its steps not yet smoothed and the
    /// estimates smoothed so far; `nil` otherwise.
    private var smoothing: (steps: [KeptStep], done: [(filtered: PositionEstimate, smoothed: PositionEstimate)])?
    /// While a track is smoothed with a lag (``startLagSmoothing()``): its steps not yet let go,
    /// oldest first; `nil` otherwise. At most ``smoothingBlock`` + ``smoothingLookahead`` are
    /// kept (the oldest go first).
    private var lagged: [KeptStep]?
    /// The steps smoothed at once: when ``smoothingBlock`` + ``smoothingLookahead`` are held,
    /// the first ``smoothingBlock`` are smoothed with the evidence of all, and let go. The state
    /// of a smoothed track is so bounded: at most 2 × 90 × the cells' `Float`s (5.6 MiB at
    /// ``Options/maximumCells``), each step smoothed with at least 30 steps after it.
    static let smoothingBlock = 60
    /// The steps after a block that smooth it and are kept for the next.
    static let smoothingLookahead = 30

    /// A solver of given parts.
    init(venue: PositioningVenue, map: RadioMap?, likelihood: ScanLikelihood, motion: GridFilter.Motion, estimate: Estimate,
         bandwidth: Double?, accuracyScale: Double, unknownDeviceAccuracyScale: Double? = nil, maximumGap: Double,
         validationError: Double?, offsetPriorSigma: Double, knownDevices: Set<String> = [], knownDeviceOffsetSigma: Double = 0,
         maximumCoast: Double = Options().maximumCoast, area: WalkableArea? = nil, placeCells: PlaceCells?? = nil) {
        self.venue = venue
        self.area = area
        areaPrior = map.flatMap { map -> [Float]? in
            let priors = map.levels.map { area?.logPrior(floor: $0) }
            guard priors.contains(where: { $0 != nil }) else { return nil }
            return priors.flatMap { $0 ?? [Float](repeating: 0, count: map.grid.count) }
        }
        self.placeCells = placeCells ?? map.flatMap { map in
            let cells = PlaceCells(places: venue.venue.places, grid: map.grid)
            return cells.isEmpty ? nil : cells
        }
        self.maximumCoast = maximumCoast
        self.map = map
        self.likelihood = likelihood
        self.motion = motion
        self.estimate = estimate
        self.bandwidth = bandwidth
        self.accuracyScale = accuracyScale
        self.unknownDeviceAccuracyScale = unknownDeviceAccuracyScale
        self.maximumGap = maximumGap
        self.validationError = validationError
        self.offsetPriorSigma = offsetPriorSigma
        self.knownDevices = knownDevices
        self.knownDeviceOffsetSigma = knownDeviceOffsetSigma
        unheardTable = UnheardTable(likelihood: likelihood)
        blockMap = Self.blockMap(of: map)
    }

    /// The same solver with other accuracy factors, estimate and no track.
    func with(accuracyScale: Double, unknownDeviceAccuracyScale: Double? = nil, estimate: Estimate,
              validationError: Double?) -> PosteriorSolver {
        PosteriorSolver(venue: venue, map: map, likelihood: likelihood, motion: motion, estimate: estimate,
                        bandwidth: bandwidth, accuracyScale: accuracyScale, unknownDeviceAccuracyScale: unknownDeviceAccuracyScale,
                        maximumGap: maximumGap,
                        validationError: validationError, offsetPriorSigma: offsetPriorSigma,
                        knownDevices: knownDevices, knownDeviceOffsetSigma: knownDeviceOffsetSigma, maximumCoast: maximumCoast,
                        area: area, placeCells: .some(placeCells))
    }

    /// The settings in use, for people: cells, survey bandwidth, likelihood, motion, estimate
    /// and radius factor.
    public var settingsDescription: String {
        let metres = venue.venue.units.metres ?? 1
        let cells = map.map { "\($0.grid.columns)×\($0.grid.rows) cells of \(String(format: "%.2f", $0.grid.cellSize * metres)) m" }
            ?? "no grid"
        let walls = (map?.wallAttenuation.map { String(format: ", walls %.1f dB", $0) } ?? "")
            + (map?.floorAttenuation.map { String(format: ", %d floors %.0f dB apart", map?.levels.count ?? 0, $0) } ?? "")
        let floorsWithArea = area?.floors.count ?? 0
        let walkable = floorsWithArea == 0 ? "" : ", walkable area on \(floorsWithArea) floor" + (floorsWithArea == 1 ? "" : "s")
        return cells + walls + walkable + ", survey bandwidth " + (bandwidth.map { String(format: "%.1f m", $0) } ?? "none")
            + String(format: ", detection floor %.0f dBm, m %.2f, ε %.2f, temper %.2f, speed %.2f m/s, stay %.2f, jumps %.3f/s",
                     likelihood.detectionFloor, likelihood.missProbability, likelihood.outlierWeight, likelihood.temper,
                     motion.speed * metres, motion.stayProbability, motion.jumpRate)
            + String(format: ", offset prior σ %.1f dB (known devices %.1f)", offsetPriorSigma, knownDeviceOffsetSigma)
            + ", the \(estimate.rawValue), radius ×" + String(format: "%.2f", accuracyScale)
            + (unknownDeviceAccuracyScale.map { String(format: " (×%.2f for a phone it never saw)", $0) } ?? "")
    }

    /// The map's typical RSSI spread, dB: its first mapped beacon's first cell (4 without one).
    func configurationSpread(map: RadioMap) -> Double {
        guard let beacon = map.floors.indices.first(where: { map.hasMap(beacon: $0) }) else { return 4 }
        return Double(map.spreads[beacon][0])
    }

    /// The device's RSSI offset learnt so far on the track (dB) and its σ; `nil` before its first scan.
    public var learntOffset: (mean: Double, sigma: Double)? {
        offset.map { ($0.mean, $0.variance.squareRoot()) }
    }

    /// `"posterior"`.
    public var name: String { "posterior" }

    /// Raw RSSI, one scan's readings at a time (a beacon timeout of 0), no tracker: the filter
    /// is the tracker, and a reading repeated from an earlier scan would be counted twice. In a
    /// venue with beacons on several floors, the floor is the filter's too (every floor's
    /// beacons weighed on every floor), so the locator's floor selection is off.
    public var validatedSettings: ValidatedSettings? {
        ValidatedSettings(filter: nil, tracking: nil, validationError: validationError, beaconTimeout: 0,
                          choosesFloor: (map?.levels.count ?? 1) > 1)
    }

    /// The bytes of state kept per device and track: the filter's weights.
    public var stateBytes: Int {
        filter?.stateBytes ?? (map.map { $0.grid.count * $0.levels.count * MemoryLayout<Float>.stride } ?? 0)
    }

    /// The posterior of one observation alone (every cell equally likely before it).
    public func locate(_ observation: Observation) -> PositionEstimate? {
        var single = self
        single.resetTrack()
        return single.update(observation)
    }

    /// The next observation of the track: the filter moved by the time since the previous one
    /// and weighed by this one's likelihood. When no heard beacon has a map, the filter's
    /// prediction alone (no beacon used, on its most probable floor) for up to
    /// ``maximumCoast`` seconds after the last evidence; after that, or before any, `nil`.
    public mutating func update(_ observation: Observation) -> PositionEstimate? {
        guard let map else { return nil }
        let continues = filter != nil && lastTime.map { observation.time - $0 <= maximumGap } == true
        let elapsed = continues ? max(observation.time - (lastTime ?? observation.time), 0) : 0
        let isKnown = knownDevices.contains(observation.device ?? "")
        let sigma = isKnown ? knownDeviceOffsetSigma : offsetPriorSigma
        radiusScale = isKnown ? accuracyScale : unknownDeviceAccuracyScale ?? accuracyScale
        let start: (mean: Double, variance: Double) = (0, sigma * sigma)
        var prior = continues ? offset ?? start : start
        prior.variance += Self.offsetDrift * elapsed
        var predicted: GridFilter?
        if continues, var current = filter {
            current.predict(seconds: elapsed, motion: motion, walkingShare: Self.supportShare, normalising: false)
            predicted = current
        }
        guard let (logs, offsets, used) = logLikelihood(of: observation, map: map, offset: prior.mean,
                                                        offsetVariance: prior.variance,
                                                        predicted: predicted?.weights) else {
            return coast(to: observation.time, continues: continues, elapsed: elapsed)
        }
        lastEvidence = observation.time
        // Taken, not copied: the update then weighs the only reference to the weights.
        filter = predicted.take() ?? GridFilter(grid: map.grid, layers: map.levels.count)
        filter?.update(logLikelihood: logs, temper: likelihood.temper, logPrior: areaPrior)
        lastTime = observation.time
        // The offset's posterior: its mean over the cells' weights (of every floor: one offset
        // per device, measured: one per floor let a floor's offset run away while the device was
        // elsewhere, 3.09 m against 1.98 on a two-floor venue), its variance what is left of the
        // prior's after the scan's (tempered) readings, plus how much the cells disagree.
        if let weights = filter?.weights {
            let (mean, square) = Self.weightedMoments(of: offsets, weights: weights)
            let sigma = likelihood.detectionFloor.isFinite ? configurationSpread(map: map) : 4
            let information = 1 / prior.variance + likelihood.temper * Double(used) / (sigma * sigma)
            let variance = 1 / information + max(square - mean * mean, 0)
            offset = mean.isFinite && variance.isFinite ? (mean, min(max(variance, 0.01), prior.variance)) : prior
        }
        guard let current = filter else { return nil }
        let estimate = report(current, beaconCount: used)
        if smoothing != nil || lagged != nil {
            let alpha = Float(min(max(likelihood.temper, 0), 1))
            let prior = areaPrior
            var evidence = logs
            for cell in evidence.indices { evidence[cell] = alpha * logs[cell] + (prior?[cell] ?? 0) }
            record(KeptStep(time: observation.time,
                            step: GridFilter.SmoothingStep(filtered: current.weights, evidence: evidence, seconds: elapsed,
                                                           continues: continues),
                            estimate: estimate))
        }
        return estimate
    }

    /// The fix of the filter's posterior (its mean or mode, the radius from its spread, the mass
    /// in each place of the floor), kept as ``lastPosterior``.
    private mutating func report(_ filter: GridFilter, beaconCount: Int) -> PositionEstimate {
        let (estimate, posterior) = estimate(of: filter, beaconCount: beaconCount)
        lastPosterior = posterior
        return estimate
    }

    /// `Σ w·x` and `Σ w·x²` over the cells (as many `values` as `weights`, else 0), in `Double`
    /// with four sums side by side rather than one waiting on each addition.
    static func weightedMoments(of values: [Float], weights: [Float]) -> (mean: Double, square: Double) {
        guard values.count == weights.count else { return (0, 0) }
        var means = SIMD4<Double>(), squares = SIMD4<Double>()
        let count = weights.count, whole = count & ~3
        weights.withUnsafeBufferPointer { weights in
            values.withUnsafeBufferPointer { values in
                var cell = 0
                while cell < whole {
                    let w = SIMD4<Double>(Double(weights[cell]), Double(weights[cell + 1]), Double(weights[cell + 2]),
                                          Double(weights[cell + 3]))
                    let x = SIMD4<Double>(Double(values[cell]), Double(values[cell + 1]), Double(values[cell + 2]),
                                          Double(values[cell + 3]))
                    means += w * x
                    squares += w * x * x
                    cell += 4
                }
                while cell < count {
                    let w = Double(weights[cell]), x = Double(values[cell])
                    means[0] += w * x
                    squares[0] += w * x * x
                    cell += 1
                }
            }
        }
        return (means.sum(), squares.sum())
    }

    /// The fix of a posterior, and its mean, mode and untouched 68 % radius, on its most probable
    /// floor (the lowest of equals).
    private func estimate(of filter: GridFilter, beaconCount: Int)
        -> (PositionEstimate, (mean: PlanarPoint, mode: PlanarPoint, radius: Double)) {
        var layer = 0, probability = 1.0
        if filter.layers > 1 {
            let probabilities = filter.layerProbabilities
            for index in probabilities.indices where probabilities[index] > probabilities[layer] { layer = index }
            probability = min(max(probabilities[layer], 0), 1)
        }
        let floor = map.flatMap { layer < $0.levels.count ? $0.levels[layer] : nil } ?? 0
        let summary = filter.summary(layer: layer)
        let radius = PositionEstimate.radiusPerStandardDeviation * ((summary.variance.x + summary.variance.y) / 2).squareRoot()
        let point = estimate == .mean ? summary.mean : summary.mode
        let weights = filter.weights[(layer * filter.grid.count)..<((layer + 1) * filter.grid.count)]
        let fix = PositionEstimate(point: SpatialPoint(x: point.x, y: point.y, z: venue.receiverHeight),
                                   accuracy: radius * (radiusScale ?? accuracyScale), beaconCount: beaconCount, floor: floor,
                                   placeProbabilities: placeCells?.probabilities(of: weights, floor: floor),
                                   floorProbability: filter.layers > 1 ? probability : nil)
        return (fix, (summary.mean, summary.mode, radius))
    }

    /// Starts keeping the track's steps, so that ``finishSmoothing()`` can smooth them: the
    /// whole-track smoother of the same model (each fix weighed also by the evidence of the
    /// scans after it). Forgets the track. `false` (and nothing kept) without a grid.
    @discardableResult
    public mutating func startSmoothing() -> Bool {
        resetTrack()
        guard map != nil else { return false }
        smoothing = ([], [])
        return true
    }

    /// The estimates of the track since ``startSmoothing()``, one per estimate ``update(_:)``
    /// returned, in order: each as the filter gave it and smoothed; stops keeping the steps.
    /// Empty when not started.
    public mutating func finishSmoothing() -> [(filtered: PositionEstimate, smoothed: PositionEstimate)] {
        smoothSteps(count: smoothing?.steps.count ?? 0)
        defer { smoothing = nil }
        return smoothing?.done ?? []
    }

    /// Keeps a step of the smoothed track; smooths a block once enough steps follow it (or,
    /// smoothed with a lag, lets the oldest go beyond the bound).
    private mutating func record(_ kept: KeptStep) {
        if lagged != nil {
            lagged?.append(kept)
            let excess = (lagged?.count ?? 0) - Self.smoothingBlock - Self.smoothingLookahead
            if excess > 0 { lagged?.removeFirst(excess) }
            return
        }
        smoothing?.steps.append(kept)
        if (smoothing?.steps.count ?? 0) >= Self.smoothingBlock + Self.smoothingLookahead {
            smoothSteps(count: Self.smoothingBlock)
        }
    }

    /// Starts keeping the track's steps for the fixed-lag smoother of the same model: each
    /// estimate, once ``lagSmoothedEstimate(at:)`` asks for it, is its posterior given the
    /// observations before it and those after it kept so far (at most 90 are kept, the oldest
    /// let go first). Forgets the track; `false` (and nothing kept) without a grid.
    @discardableResult
    public mutating func startLagSmoothing() -> Bool {
        resetTrack()
        guard map != nil else { return false }
        lagged = []
        return true
    }

    /// The estimate of the observation at `time`, as the filter gave it and smoothed with the
    /// observations kept after it (the whole-track smoother's backward message, over them
    /// alone); it and the steps before it are let go. `nil` when no step of that time
    /// is kept (not started, let go already, or pushed out by the bound).
    public mutating func lagSmoothedEstimate(at time: Double) -> (filtered: PositionEstimate, smoothed: PositionEstimate)? {
        guard let kept = lagged else { return nil }
        guard let index = kept.firstIndex(where: { $0.time >= time }) else {
            lagged = []
            return nil
        }
        lagged = Array(kept[(kept[index].time == time ? index + 1 : index)...])
        guard kept[index].time == time else { return nil }
        return smoothed(kept[index...], count: 1).first
    }

    /// Smooths the kept steps with the evidence of all of them and lets the first `count` go.
    private mutating func smoothSteps(count: Int) {
        guard let kept = smoothing?.steps, !kept.isEmpty, count > 0 else { return }
        let done = smoothed(kept[...], count: count)
        smoothing?.done += done
        smoothing?.steps.removeFirst(min(count, kept.count))
    }

    /// The first `count` of `steps` as the filter gave them and smoothed with the evidence of
    /// all of them.
    private func smoothed(_ steps: ArraySlice<KeptStep>, count: Int) -> [(filtered: PositionEstimate, smoothed: PositionEstimate)] {
        guard let map else { return [] }
        let posteriors = GridFilter.smoothed(steps.map(\.step), motion: motion, grid: map.grid, layers: map.levels.count,
                                             count: count)
        return zip(steps, posteriors).map { kept, posterior in
            (kept.estimate, estimate(of: posterior, beaconCount: kept.estimate.beaconCount).0)
        }
    }

    /// The filter's prediction at `time` with no evidence, while within ``maximumCoast`` of the
    /// last evidence; `nil` otherwise.
    private mutating func coast(to time: Double, continues: Bool, elapsed: Double) -> PositionEstimate? {
        guard continues, var current = filter, let evidence = lastEvidence, time - evidence <= maximumCoast else { return nil }
        current.predict(seconds: elapsed, motion: motion)
        if let prior = areaPrior { current.weigh(logPrior: prior) }
        filter = current
        lastTime = time
        offset?.variance += Self.offsetDrift * elapsed
        let estimate = report(current, beaconCount: 0)
        if smoothing != nil || lagged != nil {
            record(KeptStep(time: time,
                            step: GridFilter.SmoothingStep(filtered: current.weights, evidence: areaPrior,
                                                           seconds: elapsed, continues: true),
                            estimate: estimate))
        }
        return estimate
    }

    /// Forgets the track (and stops keeping it for smoothing, whole or with a lag).
    public mutating func resetTrack() {
        smoothing = nil
        lagged = nil
        filter = nil
        offset = nil
        lastTime = nil
        lastEvidence = nil
        lastPosterior = nil
        radiusScale = nil
    }

    /// The log-likelihood of the observation at each cell of each layer (``RadioMap/levels``,
    /// layer after layer), the offset that fits it best there, and the number of heard beacons
    /// it used; `nil` when no heard beacon has a map. Every mapped beacon counts on every layer,
    /// with its map of that floor (its own, or through the floors between); one that cannot
    /// reach a floor counts there as an outlier when heard and not at all when unheard. When the
    /// observation names its floor, the other layers are ruled out (−∞).
    ///
    /// The device's RSSI offset o is part of the state: a Gaussian (`offset`, its variance
    /// `offsetVariance`) carried from scan to scan, one for every floor. At each cell the scan's own offset starts as
    /// the precision-weighted mean of its heard residuals and that prior,
    /// `ô₀ = (Σ (rᵢ − μᵢ)/σᵢ² + o/v) / (Σ 1/σᵢ² + 1/v)`, then takes one Newton step on the whole
    /// log-likelihood, the unheard beacons included: the heard readings alone are censored (only
    /// those above the detection floor arrive), so their mean residual is biased upward, and an
    /// offset learnt from them alone runs away scan after scan (measured: 8–11 dB on phones
    /// offset by a few, the error tripled). The readings are weighed less ô, the unheard beacons
    /// against the floor less it, and the prior adds `−(ô − o)²/2v`. The unheard beacons at ô are
    /// taken to second order about ô₀, from the same pass that sums the step's gradient and
    /// curvature (within 0.003 where the step is under 1 dB, 0.03 at 2 dB; a second pass over
    /// them cost 8 % of the fixes a second).
    ///
    /// With `runs` (per layer, ranges of its cells), only those cells are weighed; the others
    /// keep 0 (−∞ on a layer ruled out).
    func logLikelihood(of observation: Observation, map: RadioMap, offset: Double, offsetVariance: Double,
                       runs: [[Range<Int>]]? = nil) -> (logs: [Float], offsets: [Float], used: Int)? {
        let count = map.grid.count * map.levels.count
        let ruledOut: Float = map.levels.count > 1 && observation.floor != nil ? -.infinity : 0
        var logs = [Float](repeating: ruledOut, count: count), offsets = [Float](repeating: 0, count: count)
        guard let used = weigh(observation, map: map, offset: offset, offsetVariance: offsetVariance, runs: runs,
                               logs: &logs, offsets: &offsets) else { return nil }
        return (logs, offsets, used)
    }

    /// ``logLikelihood(of:map:offset:offsetVariance:runs:)`` written into `logs` and `offsets`
    /// (a value for every cell of every layer): the cells weighed get theirs, the others
    /// (outside `runs`, on a layer ruled out) keep what they hold. The number of heard beacons
    /// used; `nil` (nothing written) when no heard beacon has a map or the arrays are not as
    /// many as the cells.
    func weigh(_ observation: Observation, map: RadioMap, offset: Double, offsetVariance: Double,
               runs: [[Range<Int>]]?, logs: inout [Float], offsets: inout [Float]) -> Int? {
        let count = map.grid.count, layers = map.levels.count
        guard logs.count == count * layers, offsets.count == count * layers else { return nil }
        let named = observation.floor.map { map.layer(of: $0) }
        if case .some(.none) = named { return nil }
        var heardFlags = [Bool](repeating: false, count: map.floors.count)
        var heard: [(beacon: Int, rssi: Float)] = []
        for signal in observation.signals {
            let beacon = signal.beaconIndex
            guard map.hasMap(beacon: beacon), !heardFlags[beacon], signal.rssi.isFinite else { continue }
            guard observation.floor == nil || map.floors[beacon] == observation.floor else { continue }
            heardFlags[beacon] = true
            heard.append((beacon, Float(signal.rssi)))
        }
        guard !heard.isEmpty else { return nil }
        let unheard = map.floors.indices.filter { !heardFlags[$0] && map.hasMap(beacon: $0) }
        for layer in 0..<layers where named == nil || named == layer {
            // Within the layer: the loops read the maps unchecked.
            let layerRuns = runs.map { layer < $0.count ? $0[layer].map { $0.clamped(to: 0..<count) } : [] } ?? [0..<count]
            guard !layerRuns.isEmpty else { continue }
            let level = map.levels[layer]
            // Each beacon's map on this floor: its own, the floors between, or none; and the cells
            // where not hearing it says something.
            func maps(_ beacon: Int) -> (map: LayerMap, reach: Range<Int>)? {
                if map.floors[beacon] == level {
                    return (LayerMap(means: map.means[beacon], inverseSpreads: map.inverseSpreads[beacon],
                                     logInverseSpreads: map.logInverseSpreads[beacon]), 0..<count)
                }
                guard observation.floor == nil, beacon < map.crossMeans.count, layer < map.crossMeans[beacon].count,
                      !map.crossMeans[beacon][layer].isEmpty else { return nil }
                return (LayerMap(means: map.crossMeans[beacon][layer], inverseSpreads: map.crossInverseSpreads,
                                 logInverseSpreads: map.crossLogInverseSpreads), map.crossReach[beacon][layer])
            }
            var heardMaps: [(map: LayerMap, rssi: Float)] = []
            var outliers = 0
            for reading in heard {
                if let found = maps(reading.beacon) { heardMaps.append((found.map, reading.rssi)) } else { outliers += 1 }
            }
            let unheardMaps = unheard.compactMap(maps).filter { !$0.reach.isEmpty }
            let range = (layer * count)..<((layer + 1) * count)
            logs.withUnsafeMutableBufferPointer { logs in
                offsets.withUnsafeMutableBufferPointer { offsets in
                    layerLogLikelihood(heard: heardMaps, outliers: outliers, unheard: unheardMaps, count: count,
                                       runs: layerRuns, offset: offset, offsetVariance: offsetVariance,
                                       logs: UnsafeMutableBufferPointer(rebasing: logs[range]),
                                       offsets: UnsafeMutableBufferPointer(rebasing: offsets[range]))
                }
            }
        }
        return heard.count
    }

    /// One beacon's map on one layer as the likelihood reads it: the mean at each cell, 1 / the
    /// spread and its log (``RadioMap/inverseSpreads``).
    struct LayerMap {
        var means: [Float], inverseSpreads: [Float], logInverseSpreads: [Float]
    }

    /// One layer's log-likelihood and offsets (see ``logLikelihood(of:map:offset:offsetVariance:)``):
    /// the heard readings with their maps, `outliers` heard beacons without one, the unheard
    /// beacons' maps and the cells where each is weighed; `logs` and `offsets` hold `count` cells.
    ///
    /// A heard beacon's density is taken as `log t + softplus(log(a/t) − log σ − z²/2)` (see
    /// ``VectorMath/softplus(_:)``), the same as `log(a·φ(z)·√(2π)/σ + t)` within 10⁻⁶, in
    /// arithmetic that runs several cells at once.
    private func layerLogLikelihood(heard: [(map: LayerMap, rssi: Float)], outliers: Int,
                                    unheard: [(map: LayerMap, reach: Range<Int>)], count: Int, runs: [Range<Int>],
                                    offset: Double, offsetVariance: Double, logs: UnsafeMutableBufferPointer<Float>,
                                    offsets: UnsafeMutableBufferPointer<Float>) {
        let variance = offsetVariance.isFinite ? max(offsetVariance, 1e-6) : 1e6
        let priorPrecision = Float(1 / variance), prior = Float(offset.isFinite ? offset : 0)
        let epsilon = Float(min(max(likelihood.outlierWeight, 0), 1)), miss = Float(min(max(likelihood.missProbability, 0), 1))
        let tail = epsilon / Float(max(likelihood.outlierRange, 1))
        let gaussianScale = (1 - epsilon) / Float((2 * Double.pi).squareRoot())
        let heardConstant = log(max(1 - miss, 1e-30))
        let detection = Float(likelihood.detectionFloor)
        // Beacon by beacon over every run of cells (each beacon's map is contiguous), each cell's
        // sums taken in the same order as cell by cell would; scratch space of the solver's own.
        // Five `Float`s a cell for the sums, and five a cell of the longest run for the unheard
        // beacons' table (``UnheardTable/accumulate(cells:floor:means:inverses:offsets:terms:logs:gradient:curvature:scratch:)``).
        let longestRun = runs.reduce(0) { max($0, $1.count) }
        let scratch = UnsafeMutableBufferPointer<Float>.allocate(capacity: 5 * count + 5 * longestRun)
        defer { scratch.deallocate() }
        let weighted = UnsafeMutableBufferPointer(rebasing: scratch[0..<count])
        let precision = UnsafeMutableBufferPointer(rebasing: scratch[count..<(2 * count)])
        let gradient = UnsafeMutableBufferPointer(rebasing: scratch[(2 * count)..<(3 * count)])
        let curvature = UnsafeMutableBufferPointer(rebasing: scratch[(3 * count)..<(4 * count)])
        let unheardLogs = UnsafeMutableBufferPointer(rebasing: scratch[(4 * count)..<(5 * count)])
        let tableScratch = UnsafeMutableBufferPointer(rebasing: scratch[(5 * count)...])
        // Only the runs' cells are read: only they are set (`Float`s need no other initialising).
        for run in runs {
            for cell in run {
                weighted[cell] = prior * priorPrecision
                precision[cell] = priorPrecision
            }
        }
        for reading in heard {
            reading.map.means.withUnsafeBufferPointer { means in
                reading.map.inverseSpreads.withUnsafeBufferPointer { inverses in
                    for run in runs {
                        for cell in run {
                            let inverse = inverses[cell]
                            let squared = inverse * inverse
                            weighted[cell] += (reading.rssi - means[cell]) * squared
                            precision[cell] += squared
                        }
                    }
                }
            }
        }
        let maximumStep = Self.maximumOffsetStep
        let table = unheardTable
        for run in runs {
            for cell in run { offsets[cell] = weighted[cell] / precision[cell] }
        }
        if !unheard.isEmpty {
            // One Newton step with the unheard beacons: d/dô log P = −g(z)/σ, d²/dô² = h(z)/σ².
            for run in runs {
                for cell in run {
                    gradient[cell] = weighted[cell] - offsets[cell] * precision[cell]
                    curvature[cell] = -precision[cell]
                }
            }
            for run in runs {
                for cell in run { unheardLogs[cell] = 0 }
            }
            for beacon in unheard {
                beacon.map.means.withUnsafeBufferPointer { means in
                    beacon.map.inverseSpreads.withUnsafeBufferPointer { inverses in
                        table.terms.withUnsafeBufferPointer { terms in
                            for run in runs {
                                UnheardTable.accumulate(cells: run.clamped(to: beacon.reach), floor: detection, means: means,
                                                        inverses: inverses, offsets: offsets, terms: terms, logs: unheardLogs,
                                                        gradient: gradient, curvature: curvature, scratch: tableScratch)
                            }
                        }
                    }
                }
            }
            for run in runs {
                for cell in run {
                    let step = min(max(-gradient[cell] / min(curvature[cell], -precision[cell] * 0.5), -maximumStep),
                                   maximumStep)
                    offsets[cell] += step
                    // The unheard beacons at the stepped offset, to second order about the first (the
                    // heard readings' Gaussian gradient is 0 there, the curvature theirs and the prior's).
                    unheardLogs[cell] += gradient[cell] * step + 0.5 * (curvature[cell] + precision[cell]) * step * step
                }
            }
        }
        // Every heard beacon's constant part once: log(1 − m) each, and log t each with a tail
        // (the outliers' density is t alone).
        let tailLog = tail > 0 ? log(tail) : 0
        var constant = Float(heard.count) * (heardConstant + tailLog)
        if outliers > 0 { constant += Float(outliers) * (heardConstant + log(tail)) }
        for run in runs {
            for cell in run {
                let shift = offsets[cell]
                logs[cell] = constant - 0.5 * (shift - prior) * (shift - prior) * priorPrecision
            }
        }
        let scale = tail > 0 ? log(gaussianScale / tail) : log(gaussianScale)
        for reading in heard {
            reading.map.means.withUnsafeBufferPointer { means in
                reading.map.inverseSpreads.withUnsafeBufferPointer { inverses in
                    reading.map.logInverseSpreads.withUnsafeBufferPointer { logInverses in
                        for run in runs {
                            if tail > 0 {
                                for cell in run {
                                    let z = (reading.rssi - means[cell] - offsets[cell]) * inverses[cell]
                                    logs[cell] += VectorMath.softplus(scale + logInverses[cell] - 0.5 * z * z)
                                }
                            } else {
                                // No tail: the Gaussian alone.
                                for cell in run {
                                    let z = (reading.rssi - means[cell] - offsets[cell]) * inverses[cell]
                                    logs[cell] += scale + logInverses[cell] - 0.5 * z * z
                                }
                            }
                        }
                    }
                }
            }
        }
        if !unheard.isEmpty {
            for run in runs {
                for cell in run { logs[cell] += unheardLogs[cell] }
            }
        }
    }
}
