import Foundation

/// The positioning pipeline of one device: scans → per-beacon filters → observation (signals and
/// ranges) → floor selection → solver → motion tracking → fix. Keep one per device and track
/// (``LocationEngine`` does); when the scans' device or track changes, the floor and the motion
/// track start afresh.
///
/// ```swift
/// let venue = PositioningVenue(try VenueFile.read(from: url))
/// var locator = Locator(venue: venue, solver: WeightedCentroid(venue: venue))
/// while let scan = try reader.next() {
///     if let fix = locator.locate(scan) { print(fix.point, fix.accuracy) }
/// }
/// ```
public struct Locator: Sendable {
    /// The venue.
    public let venue: PositioningVenue
    /// The solver.
    public var solver: any PositionSolver
    /// The configuration.
    public let configuration: LocatorConfiguration

    private var beacons: BeaconStates
    private var floorSelector: FloorSelector?
    private var tracker: MotionTracker?
    private var source: (device: String?, track: String?)?
    /// Per beacon, what turns its RSSI into a range (`nil` without a position or a usable exponent).
    private let rangeModels: [RangeModel?]
    private let metresPerUnit: Double
    private let frame: LocalFrame?
    /// The observation arrays of the previous scan, kept for their capacity.
    private var signalBuffer: [BeaconSignal] = []
    private var rangeBuffer: [BeaconRange] = []
    /// Per beacon, its latest range (its ``BeaconRange/rssi`` the RSSI it came from), reused while
    /// that RSSI stays the same.
    private var rangeCache: [BeaconRange?] = []
    /// Per beacon, the distance (metres) its latest reading reported itself (``Reading/distance``),
    /// taken as its range while no later reading without one replaces it.
    private var reportedDistances: [Double?] = []
    /// The beacon ids of the previous fix, shared with the next one when it used the same beacons.
    private var lastFixBeacons: (indices: [Int], ids: [String]) = ([], [])
    /// The device's offset learnt from its scans, when the configuration estimates offsets.
    private var offsetEstimator: DeviceOffsetEstimator?
    /// The offset subtracted from the latest scan's readings, and whether it was learnt (not configured).
    private var appliedOffset: (value: Double, isEstimated: Bool) = (0, false)

    /// A beacon's position and log-distance calibration, computed once.
    private struct RangeModel: Sendable {
        var position: SpatialPoint
        var floor: Int
        var exponent: Double
        var txPower: Double
    }

    /// Creates a locator for one device.
    public init(venue: PositioningVenue, solver: any PositionSolver, configuration: LocatorConfiguration = LocatorConfiguration()) {
        self.venue = venue
        self.solver = solver
        self.configuration = configuration
        beacons = BeaconStates(count: venue.positions.count, beaconTimeout: configuration.beaconTimeout,
                               filter: configuration.filter)
        floorSelector = configuration.floorSelection.map { FloorSelector(venue: venue, configuration: $0) }
        offsetEstimator = configuration.deviceOffsetEstimation.map { DeviceOffsetEstimator(configuration: $0) }
        tracker = configuration.tracking.map { MotionTracker(configuration: $0, metresPerUnit: venue.venue.units.metres ?? 1) }
        rangeModels = venue.positions.indices.map { index in
            guard let position = venue.positions[index], LogDistancePathLossModel(exponent: venue.pathLossExponents[index]) != nil
            else { return nil }
            return RangeModel(position: position, floor: venue.floors[index], exponent: venue.pathLossExponents[index],
                              txPower: venue.txPowers[index])
        }
        metresPerUnit = venue.venue.units.metres ?? 1
        frame = venue.venue.localFrame
    }

    /// Forgets every beacon heard, the floor, the motion track and the learnt device offset (a
    /// new track starts).
    public mutating func reset() {
        beacons.removeAll()
        reportedDistances = []
        floorSelector?.reset()
        tracker?.reset()
        offsetEstimator?.reset()
        solver.resetTrack()
        source = nil
    }

    /// Sets where the device is, known from elsewhere (NaviBeacon's beacon at a spot, a tap on the
    /// map): the floor (with floor selection on) and the motion track restart there, so that the
    /// fixes that follow start from it. `accuracy` is the position's 68 % radius, venue units.
    /// Without motion tracking only the floor is set.
    ///
    /// ```swift
    /// locator.setPosition(SpatialPoint(x: 12, y: 4, z: 0), floor: 1, accuracy: 0.5, at: scan.time)
    /// ```
    public mutating func setPosition(_ point: SpatialPoint, floor: Int?, accuracy: Double, at time: Double) {
        if let floor { floorSelector?.settle(on: floor) }
        tracker?.restart(at: PositionEstimate(point: point, accuracy: max(accuracy, 0), beaconCount: 0), time: time)
    }

    /// The RSSI offset learnt from the device's scans so far (``LocatorConfiguration/deviceOffsetEstimation``),
    /// dB; `nil` when the locator does not learn one.
    public var estimatedDeviceOffset: Double? { offsetEstimator?.offset }

    /// The offset estimator itself, for measuring its zero point.
    var offsetEstimatorState: DeviceOffsetEstimator? { offsetEstimator }

    /// The floor chosen by the latest scan, when floor selection is on and a floor was chosen.
    public var currentFloor: Int? { floorSelector?.floor }

    /// Takes in a scan and returns the observation at its time: every venue beacon heard within
    /// ``LocatorConfiguration/beaconTimeout``, with its filtered RSSI and, when it has a position,
    /// its range.
    public mutating func observe(_ scan: Scan) -> Observation {
        var signals: [BeaconSignal] = []
        var ranges: [BeaconRange] = []
        return observe(scan, signals: &signals, ranges: &ranges)
    }

    /// The observation of `scan`, built in `signals` and `ranges` (emptied first, capacity kept)
    /// and moved into it.
    private mutating func observe(_ scan: Scan, signals: inout [BeaconSignal], ranges: inout [BeaconRange]) -> Observation {
        let time = scan.time
        let configured = configuration.deviceOffsets[scan.device ?? ""]
        let offset = configured ?? offsetEstimator?.offset ?? 0
        appliedOffset = (offset, configured == nil && offsetEstimator != nil)
        for reading in scan.readings where reading.isValid {
            guard let index = venue.directory.index(for: reading.beacon) else { continue }
            let rssi = offset == 0 ? reading.rssi : Scan.corrected(reading.rssi, offset: offset)
            beacons.add(index: index, rssi: rssi, time: time)
            let reported = reading.reportedDistance
            if reported != nil || !reportedDistances.isEmpty {
                if reportedDistances.count != rangeModels.count {
                    reportedDistances = Array(repeating: nil, count: rangeModels.count)
                }
                if index < reportedDistances.count { reportedDistances[index] = reported }
            }
        }
        signals.removeAll(keepingCapacity: true)
        ranges.removeAll(keepingCapacity: true)
        signals.reserveCapacity(beacons.tracked.count)
        ranges.reserveCapacity(beacons.tracked.count)
        // In beacon order, so that equal RSSIs always sort the same way.
        beacons.collect(at: time) { index, rssi, raw in
            signals.append(BeaconSignal(beaconIndex: index, rssi: rssi, rawRSSI: raw))
        }
        Observation.sortSignals(&signals)
        // The ranges in the order of the signals, strongest first: the order of distance when the
        // beacons share a calibration, so that sorting them has little left to do.
        if rangeCache.count != rangeModels.count { rangeCache = Array(repeating: nil, count: rangeModels.count) }
        let deviation = configuration.rssiStandardDeviation, minimumRange = configuration.minimumRange
        for signal in signals {
            let index = signal.beaconIndex, rssi = signal.rssi
            guard index < rangeModels.count, let model = rangeModels[index] else { continue }
            if index < reportedDistances.count, let reported = reportedDistances[index] {
                ranges.append(Self.range(of: index, model: model, reportedDistance: reported, rssi: rssi,
                                         rssiStandardDeviation: deviation, minimumRange: minimumRange,
                                         metresPerUnit: metresPerUnit))
                continue
            }
            // A beacon whose RSSI has not changed since the last scan (its filter took no new
            // reading) keeps its range.
            if let cached = rangeCache[index], cached.rssi.bitPattern == rssi.bitPattern {
                ranges.append(cached)
            } else if let range = Self.range(of: index, model: model, rssi: rssi, rssiStandardDeviation: deviation,
                                             minimumRange: minimumRange, metresPerUnit: metresPerUnit) {
                rangeCache[index] = range
                ranges.append(range)
            }
        }
        Observation.sortRanges(&ranges)
        return Observation(time: time, device: scan.device, sortedSignals: signals, sortedRanges: ranges)
    }

    /// The range to beacon `index` implied by `rssi` under the beacon's log-distance calibration,
    /// with its uncertainty, or `nil` when the beacon has no position.
    public func range(of index: Int, rssi: Double) -> BeaconRange? {
        guard rangeModels.indices.contains(index), let model = rangeModels[index] else { return nil }
        return Self.range(of: index, model: model, rssi: rssi, rssiStandardDeviation: configuration.rssiStandardDeviation,
                          minimumRange: configuration.minimumRange, metresPerUnit: metresPerUnit)
    }

    /// The range from a precomputed model: the arithmetic of
    /// ``LogDistancePathLossModel/range(rssi:txPower:rssiStandardDeviation:)``, with one `pow`.
    @inline(__always)
    private static func range(of index: Int, model: RangeModel, rssi: Double, rssiStandardDeviation: Double,
                              minimumRange: Double, metresPerUnit: Double) -> BeaconRange? {
        guard rssiStandardDeviation >= 0, rssiStandardDeviation.isFinite,
              rssi < 0, rssi.isFinite, model.txPower < 0, model.txPower.isFinite else { return nil }
        let estimate = pow(10, (model.txPower - rssi) / (10 * model.exponent))
        guard estimate > 0, estimate.isFinite else { return nil }
        let slope = -estimate * M_LN10 / (10 * model.exponent)
        guard slope.isFinite else { return nil }
        let standardDeviation = abs(slope) * rssiStandardDeviation
        guard standardDeviation.isFinite else { return nil }
        let distance = max(estimate / metresPerUnit, minimumRange)
        return BeaconRange(beaconIndex: index, position: model.position, floor: model.floor, distance: distance,
                           standardDeviation: standardDeviation / metresPerUnit, rssi: rssi)
    }

    /// The range of a distance the source reported (metres), with the uncertainty the RSSI model
    /// gives a range of that length: d·ln 10/(10·n)·σ.
    private static func range(of index: Int, model: RangeModel, reportedDistance: Double, rssi: Double,
                              rssiStandardDeviation: Double, minimumRange: Double, metresPerUnit: Double) -> BeaconRange {
        let deviation = rssiStandardDeviation.isFinite && rssiStandardDeviation >= 0 ? rssiStandardDeviation : 4
        let standardDeviation = reportedDistance * M_LN10 / (10 * model.exponent) * deviation
        return BeaconRange(beaconIndex: index, position: model.position, floor: model.floor,
                           distance: max(reportedDistance / metresPerUnit, minimumRange),
                           standardDeviation: standardDeviation / metresPerUnit, rssi: rssi)
    }

    /// Takes in a scan and returns the fix at its time, or `nil` when the solver gives none.
    ///
    /// With floor selection on, the observation gets the chosen floor and keeps only that floor's
    /// beacons; with tracking on, the fix is the tracked position and its accuracy.
    public mutating func locate(_ scan: Scan) -> Fix? {
        if let source, source.device != scan.device || source.track != scan.track {
            floorSelector?.reset()
            tracker?.reset()
            solver.resetTrack()
            if source.device != scan.device { offsetEstimator?.reset() }
        }
        source = (scan.device, scan.track)
        // The buffers of the previous scan, taken so that they are not shared while being filled.
        var signals: [BeaconSignal] = []
        var ranges: [BeaconRange] = []
        swap(&signals, &signalBuffer)
        swap(&ranges, &rangeBuffer)
        var observation = observe(scan, signals: &signals, ranges: &ranges)
        signals = []
        ranges = []
        selectFloor(in: &observation)
        let fix = locate(observation)
        swap(&observation.signals, &signalBuffer)
        swap(&observation.ranges, &rangeBuffer)
        return fix
    }

    /// The fix of an observation with its floor chosen.
    private mutating func locate(_ observation: Observation) -> Fix? {
        guard var estimate = solver.update(observation), estimate.isFinite else { return nil }
        if appliedOffset.isEstimated {
            learnOffset(from: observation, at: estimate.point)
            let scale = configuration.unknownDeviceAccuracyScale
            if scale.isFinite, scale > 0 { estimate.accuracy *= scale }
        }
        guard tracker != nil else { return makeFix(for: estimate, observation: observation) }
        guard let tracked = tracker?.update(estimate, at: observation.time) else { return nil }
        var kept = bounded(tracked)
        kept.floor = estimate.floor
        return makeFix(for: kept, observation: observation)
    }

    /// Adds to the offset estimator what this scan implies: the mean of its ranges' RSSI (before
    /// the correction) less what their calibrations predict at `point`, over the ranges on the
    /// observation's floor, when there are enough of them.
    private mutating func learnOffset(from observation: Observation, at point: SpatialPoint) {
        guard let minimum = offsetEstimator?.configuration.minimumRanges else { return }
        let receiverHeight = venue.receiverHeight
        var sum = 0.0, count = 0
        for range in observation.ranges where observation.floor == nil || range.floor == observation.floor {
            guard range.beaconIndex < rangeModels.count, let model = rangeModels[range.beaconIndex] else { continue }
            let dx = point.x - model.position.x, dy = point.y - model.position.y, dz = model.position.z - receiverHeight
            let metres = max((dx * dx + dy * dy + dz * dz).squareRoot() * metresPerUnit, 0.1)
            let predicted = model.txPower - 10 * model.exponent * log10(metres)
            let residual = range.rssi + appliedOffset.value - predicted
            guard residual.isFinite else { continue }
            sum += residual
            count += 1
        }
        guard count >= max(minimum, 1) else { return }
        offsetEstimator?.add(scanOffset: sum / Double(count))
    }

    /// The observation with its floor chosen and only that floor's beacons, when floor selection
    /// is on (unchanged otherwise). It moves the floor selector on: call it once per observation.
    public mutating func selectFloor(_ observation: Observation) -> Observation {
        var selected = observation
        selectFloor(in: &selected)
        return selected
    }

    /// ``selectFloor(_:)`` in place; the arrays are only touched when a beacon goes.
    private mutating func selectFloor(in observation: inout Observation) {
        guard floorSelector != nil, let floor = floorSelector?.select(observation) else { return }
        observation.floor = floor
        let floors = venue.floors
        func otherFloor(_ signal: BeaconSignal) -> Bool {
            floors.indices.contains(signal.beaconIndex) && floors[signal.beaconIndex] != floor
        }
        if observation.signals.contains(where: otherFloor) { observation.signals.removeAll(where: otherFloor) }
        if observation.ranges.contains(where: { $0.floor != floor }) { observation.ranges.removeAll { $0.floor != floor } }
    }

    /// Locates every scan of one device and track and smooths the fixes offline
    /// (``TrackSmoother``, with the configuration's tracking model, constant-velocity when it has
    /// none) instead of tracking them online: each fix also learns from the scans after it. One
    /// fix (or `nil`) per scan, in order. Resets the locator before and after.
    ///
    /// With a `lag` (seconds), each fix learns only from the scans of the `lag` seconds after it,
    /// as a live pipeline delayed by that much does (`FixedLagLocators`, whose fixes these are).
    ///
    /// A solver that smooths its tracks itself (``PositionSolver/startSmoothing()`` and
    /// ``PositionSolver/startLagSmoothing()``: a posterior over positions, ``PosteriorSolver``)
    /// smooths with its own model: each fix is then its posterior given the scans before it and
    /// those after it (all of them, or those of the lag).
    public mutating func smoothedFixes(for scans: [Scan], lag: Double? = nil) -> [Fix?] {
        reset()
        let online = tracker
        tracker = nil
        defer {
            tracker = online
            reset()
        }
        if lag == nil, solver.startSmoothing() {
            let raw = scans.map { locate($0) }
            let steps = solver.finishSmoothing()
            if let fixes = fixes(raw, smoothedBy: steps) { return fixes }
            return smoothedByTracker(raw)
        }
        if let lag {
            // Each fix let go as soon as it is due, so that the solver keeps only the lag's steps.
            _ = solver.startLagSmoothing()
            var delay = DelayedTrack(smoother: Self.smoother(lag: lag, venue: venue, configuration: configuration))
            var raw: [Fix?] = [], reports: [Fix] = []
            raw.reserveCapacity(scans.count)
            for scan in scans {
                let fix = locate(scan)
                raw.append(fix)
                reports += delay.add(fix, at: scan.time, locator: &self)
            }
            reports += delay.finish(locator: &self)
            return Self.placing(reports, as: raw)
        }
        return smoothedByTracker(scans.map { locate($0) })
    }

    /// `raw` (one fix or `nil` per scan) with each fix moved to its smoothed posterior; `nil`
    /// when the steps are not one per fix.
    private func fixes(_ raw: [Fix?], smoothedBy steps: [(filtered: PositionEstimate, smoothed: PositionEstimate)]) -> [Fix?]? {
        guard steps.count == raw.lazy.compactMap({ $0 }).count else { return nil }
        var next = steps[...]
        return raw.map { fix in
            guard let fix, let step = next.popFirst() else { return nil }
            return moved(fix, to: step)
        }
    }

    /// `fix` moved to the solver's smoothed posterior of it: its point, its places, and its
    /// accuracy widened as the smoothed radius is to the filtered one when wider, never
    /// narrowed: the solver's radius factor was measured on filtered posteriors, and on real
    /// recordings the smoothed posterior narrows more than its error drops.
    private func moved(_ fix: Fix, to step: (filtered: PositionEstimate, smoothed: PositionEstimate)) -> Fix {
        var fix = fix
        let ratio = step.filtered.accuracy > 0 ? step.smoothed.accuracy / step.filtered.accuracy : 1
        fix.point = bounded(step.smoothed.point)
        fix.accuracy *= ratio.isFinite ? max(ratio, 1) : 1
        fix.coordinate = frame?.coordinate(for: fix.point.planar)
        fix.placeProbabilities = step.smoothed.placeProbabilities
        if step.smoothed.floorProbability != nil {
            fix.floor = step.smoothed.floor ?? fix.floor
            fix.floorProbability = step.smoothed.floorProbability
        }
        return fix
    }

    /// `fix`, reported a lag late, smoothed: by the solver's own model when it keeps the fix's
    /// step (``PositionSolver/lagSmoothedEstimate(at:)``), else moved to `report`, the tracking
    /// model's fixed-lag estimate.
    mutating func lagSmoothed(_ fix: Fix, by report: PositionEstimate?) -> Fix {
        if let step = solver.lagSmoothedEstimate(at: fix.time) { return moved(fix, to: step) }
        return smoothed(fix, by: report)
    }

    /// One report per fix of `raw`, in order, `nil` where `raw` has none.
    private static func placing(_ reports: [Fix], as raw: [Fix?]) -> [Fix?] {
        var next = reports[...]
        return raw.map { fix in fix == nil ? nil : next.popFirst() }
    }

    /// `raw` (one fix or `nil` per scan) smoothed over the whole track by the configuration's
    /// tracking model.
    private func smoothedByTracker(_ raw: [Fix?]) -> [Fix?] {
        let located = raw.compactMap { $0 }
        let estimates = TrackSmoother(configuration: configuration.tracking ?? MotionTracker.Configuration(),
                                      metresPerUnit: metresPerUnit).smooth(located.map(Self.timedEstimate))
        return Self.placing(zip(located, estimates).map { smoothed($0, by: $1) }, as: raw)
    }

    /// A fixed-lag smoother for the fixes of a venue: `configuration`'s tracking model
    /// (constant-velocity when it has none), in the venue's units.
    static func smoother(lag: Double, venue: PositioningVenue, configuration: LocatorConfiguration) -> FixedLagSmoother {
        FixedLagSmoother(configuration: configuration.tracking ?? MotionTracker.Configuration(), lag: lag,
                         metresPerUnit: venue.venue.units.metres ?? 1)
    }

    /// What a smoother takes in of a fix.
    static func timedEstimate(of fix: Fix) -> TimedEstimate {
        TimedEstimate(time: fix.time, estimate: PositionEstimate(point: fix.point, accuracy: fix.accuracy,
                                                                 beaconCount: fix.beacons.count))
    }

    /// `fix` moved to a smoothed estimate of its position (kept inside the venue's bounds), or as it
    /// is when there is none.
    func smoothed(_ fix: Fix, by estimate: PositionEstimate?) -> Fix {
        guard let estimate else { return fix }
        var fix = fix
        fix.point = bounded(estimate.point)
        fix.accuracy = estimate.accuracy
        fix.coordinate = frame?.coordinate(for: fix.point.planar)
        // The posterior's places were of the point before smoothing.
        fix.placeProbabilities = nil
        return fix
    }

    /// A point kept inside the venue's bounds (tracking may extrapolate past them).
    private func bounded(_ point: SpatialPoint) -> SpatialPoint {
        guard let bounds = venue.bounds else { return point }
        let planar = bounds.clamped(point.planar)
        return SpatialPoint(x: planar.x, y: planar.y, z: point.z)
    }

    private func bounded(_ estimate: PositionEstimate) -> PositionEstimate {
        var result = estimate
        result.point = bounded(estimate.point)
        return result
    }

    /// The fix of an estimate: coordinates, floor and the ids of the beacons heard.
    public func fix(for estimate: PositionEstimate, observation: Observation) -> Fix {
        let floor = observation.floor ?? estimate.floor ?? observation.signals.first.map { venue.floors[$0.beaconIndex] }
        let coordinate = frame?.coordinate(for: estimate.point.planar)
        return Fix(time: observation.time, device: observation.device, point: estimate.point, floor: floor,
                   accuracy: estimate.accuracy, coordinate: coordinate,
                   beacons: observation.signals.prefix(estimate.beaconCount).map { venue.venue.beacons[$0.beaconIndex].id },
                   method: solver.name, placeProbabilities: estimate.placeProbabilities,
                   floorProbability: estimate.floorProbability)
    }

    /// ``fix(for:observation:)``, sharing the previous fix's beacon ids when they are the same.
    private mutating func makeFix(for estimate: PositionEstimate, observation: Observation) -> Fix {
        let floor = observation.floor ?? estimate.floor ?? observation.signals.first.map { venue.floors[$0.beaconIndex] }
        let coordinate = frame?.coordinate(for: estimate.point.planar)
        let used = observation.signals.prefix(max(estimate.beaconCount, 0))
        if !used.elementsEqual(lastFixBeacons.indices, by: { $0.beaconIndex == $1 }) {
            lastFixBeacons.indices.removeAll(keepingCapacity: true)
            lastFixBeacons.indices.append(contentsOf: used.lazy.map(\.beaconIndex))
            lastFixBeacons.ids = used.map { venue.venue.beacons[$0.beaconIndex].id }
        }
        return Fix(time: observation.time, device: observation.device, point: estimate.point, floor: floor,
                   accuracy: estimate.accuracy, coordinate: coordinate, beacons: lastFixBeacons.ids, method: solver.name,
                   placeProbabilities: estimate.placeProbabilities, floorProbability: estimate.floorProbability)
    }
}
