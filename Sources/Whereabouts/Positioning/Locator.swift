import Foundation

/// How a ``Locator`` turns readings into observations.
public struct LocatorConfiguration: Sendable {
    /// The RSSI filter applied per beacon, or `nil` to use each beacon's latest reading as is.
    public var filter: BuiltInRSSIFilter?

    /// The default filter: a scalar Kalman filter that lets RSSI drift by 1 dB² a sample and takes
    /// readings to scatter by 3 dB (measurement noise 9 dB²). Its gain settles near 0.28, so it
    /// follows a walking person within a few seconds; room-assistant's slower default (0.008 and 4,
    /// gain 0.04) suits a device that stays put but lags a walk by 20 s and more.
    public static let defaultFilter = BuiltInRSSIFilter.kalman(KalmanRSSIFilter(processNoise: 1, measurementNoise: 9)
        ?? KalmanRSSIFilter())
    /// A beacon not heard for this many seconds drops out of the observations.
    public var beaconTimeout: Double
    /// Standard deviation of RSSI around the path-loss model, dB; it sets the ranges' uncertainty.
    public var rssiStandardDeviation: Double
    /// Ranges shorter than this are raised to it, venue units.
    public var minimumRange: Double
    /// How the floor of each observation is chosen before the solver, or `nil` to leave the
    /// observation's floor unset and give the solver every floor's beacons.
    public var floorSelection: FloorSelector.Configuration?
    /// How the solver's estimates are tracked over time, or `nil` (the default) to report them as
    /// they are. Off by default: the per-beacon RSSI filters already average over several
    /// seconds, and on the UJI training recordings (stop-and-go walks) a tracker on top added
    /// lag (mean error 2–8 % higher). Turn it on for outlier gating and a speed limit on live
    /// streams; for recordings, ``Locator/smoothedFixes(for:)`` smooths offline instead.
    public var tracking: MotionTracker.Configuration?
    /// Each device's RSSI offset (dB, by ``Scan/device``), subtracted from its readings before
    /// filtering so that every phone reads like the calibration's average one
    /// (``CalibrationResult/offsetsByDevice``). Devices not listed, and scans without a device, get 0.
    public var deviceOffsets: [String: Double] = [:]

    /// Creates a configuration. The defaults: ``defaultFilter`` per beacon, beacons kept 5 s after
    /// they were last heard, 4 dB of RSSI noise, ranges of at least 0.1 units, floor selection
    /// on with its own defaults, motion tracking off.
    public init(filter: BuiltInRSSIFilter? = LocatorConfiguration.defaultFilter, beaconTimeout: Double = 5,
                rssiStandardDeviation: Double = 4, minimumRange: Double = 0.1,
                floorSelection: FloorSelector.Configuration? = FloorSelector.Configuration(),
                tracking: MotionTracker.Configuration? = nil) {
        self.filter = filter
        self.beaconTimeout = beaconTimeout
        self.rssiStandardDeviation = rssiStandardDeviation
        self.minimumRange = minimumRange
        self.floorSelection = floorSelection
        self.tracking = tracking
    }
}

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

    private var filters: RSSIFilterBank<Int, BuiltInRSSIFilter>?
    private var latest: [Int: (rssi: Double, time: Double)] = [:]
    private var floorSelector: FloorSelector?
    private var tracker: MotionTracker?
    private var source: (device: String?, track: String?)?

    /// Creates a locator for one device.
    public init(venue: PositioningVenue, solver: any PositionSolver, configuration: LocatorConfiguration = LocatorConfiguration()) {
        self.venue = venue
        self.solver = solver
        self.configuration = configuration
        filters = configuration.filter.map { RSSIFilterBank(prototype: $0, timeout: configuration.beaconTimeout) }
        floorSelector = configuration.floorSelection.map { FloorSelector(venue: venue, configuration: $0) }
        tracker = configuration.tracking.map { MotionTracker(configuration: $0, metresPerUnit: venue.venue.units.metres ?? 1) }
    }

    /// Forgets every beacon heard, the floor and the motion track (a new track starts).
    public mutating func reset() {
        filters?.removeAll()
        latest.removeAll()
        floorSelector?.reset()
        tracker?.reset()
        source = nil
    }

    /// The floor chosen by the latest scan, when floor selection is on and a floor was chosen.
    public var currentFloor: Int? { floorSelector?.floor }

    /// Takes in a scan and returns the observation at its time: every venue beacon heard within
    /// ``LocatorConfiguration/beaconTimeout``, with its filtered RSSI and, when it has a position,
    /// its range.
    public mutating func observe(_ scan: Scan) -> Observation {
        let time = scan.time
        let offset = scan.device.flatMap { configuration.deviceOffsets[$0] } ?? 0
        for reading in scan.readings where reading.isValid {
            guard let index = venue.directory.index(for: reading.beacon) else { continue }
            let rssi = offset == 0 ? reading.rssi : Scan.corrected(reading.rssi, offset: offset)
            latest[index] = (rssi, time)
            filters?.add(rssi: rssi, for: index, at: time)
        }
        var signals: [BeaconSignal] = []
        var ranges: [BeaconRange] = []
        signals.reserveCapacity(latest.count)
        // In beacon order, so that equal RSSIs always sort the same way (dictionary order varies
        // from run to run).
        for (index, last) in latest.sorted(by: { $0.key < $1.key }) {
            guard !(time - last.time > configuration.beaconTimeout) else {
                latest[index] = nil
                continue
            }
            let rssi = filters?.value(for: index, at: time) ?? last.rssi
            signals.append(BeaconSignal(beaconIndex: index, rssi: rssi, rawRSSI: last.rssi))
            if let range = range(of: index, rssi: rssi) { ranges.append(range) }
        }
        if filters != nil { filters?.removeExpired(at: time) }
        return Observation(time: time, device: scan.device, signals: signals, ranges: ranges)
    }

    /// The range to beacon `index` implied by `rssi` under the beacon's log-distance calibration,
    /// with its uncertainty, or `nil` when the beacon has no position.
    public func range(of index: Int, rssi: Double) -> BeaconRange? {
        guard let position = venue.positions[index],
              let model = LogDistancePathLossModel(exponent: venue.pathLossExponents[index]),
              let estimate = model.range(rssi: rssi, txPower: venue.txPowers[index],
                                         rssiStandardDeviation: configuration.rssiStandardDeviation)
        else { return nil }
        let metresPerUnit = venue.venue.units.metres ?? 1
        let distance = max(estimate.distance / metresPerUnit, configuration.minimumRange)
        return BeaconRange(beaconIndex: index, position: position, floor: venue.floors[index], distance: distance,
                           standardDeviation: estimate.standardDeviation / metresPerUnit, rssi: rssi)
    }

    /// Takes in a scan and returns the fix at its time, or `nil` when the solver gives none.
    ///
    /// With floor selection on, the observation gets the chosen floor and keeps only that floor's
    /// beacons; with tracking on, the fix is the tracked position and its accuracy.
    public mutating func locate(_ scan: Scan) -> Fix? {
        if let source, source.device != scan.device || source.track != scan.track {
            floorSelector?.reset()
            tracker?.reset()
        }
        source = (scan.device, scan.track)
        let observation = observe(scan)
        let selected = selectFloor(observation)
        guard let estimate = solver.locate(selected), estimate.isFinite else { return nil }
        guard tracker != nil else { return fix(for: estimate, observation: selected) }
        guard let tracked = tracker?.update(estimate, at: selected.time) else { return nil }
        return fix(for: bounded(tracked), observation: selected)
    }

    /// The observation with its floor chosen and only that floor's beacons, when floor selection
    /// is on (unchanged otherwise). It moves the floor selector on: call it once per observation.
    public mutating func selectFloor(_ observation: Observation) -> Observation {
        guard floorSelector != nil, let floor = floorSelector?.select(observation) else { return observation }
        var selected = observation
        selected.floor = floor
        selected.signals.removeAll { venue.floors.indices.contains($0.beaconIndex) && venue.floors[$0.beaconIndex] != floor }
        selected.ranges.removeAll { $0.floor != floor }
        return selected
    }

    /// Locates every scan of one device and track and smooths the fixes with a
    /// Rauch–Tung–Striebel smoother (``TrackSmoother``) instead of the online tracker: each fix
    /// also learns from the scans after it. One fix (or `nil`) per scan, in order. Resets the
    /// locator before and after.
    public mutating func smoothedFixes(for scans: [Scan]) -> [Fix?] {
        reset()
        let online = tracker
        tracker = nil
        defer {
            tracker = online
            reset()
        }
        let raw = scans.map { locate($0) }
        let smoother = TrackSmoother(configuration: configuration.tracking ?? MotionTracker.Configuration(),
                                     metresPerUnit: venue.venue.units.metres ?? 1)
        let located = raw.compactMap { $0 }
        var smoothed = smoother.smooth(located.map { TimedEstimate(time: $0.time, estimate: PositionEstimate(
            point: $0.point, accuracy: $0.accuracy, beaconCount: $0.beacons.count)) })[...]
        return raw.map { fix in
            guard var fix, let estimate = smoothed.popFirst() else { return fix }
            guard let estimate else { return fix }
            fix.point = bounded(estimate.point)
            fix.accuracy = estimate.accuracy
            fix.coordinate = venue.venue.localFrame?.coordinate(for: fix.point.planar)
            return fix
        }
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
        let floor = observation.floor ?? observation.signals.first.map { venue.floors[$0.beaconIndex] }
        let coordinate = venue.venue.localFrame?.coordinate(for: estimate.point.planar)
        return Fix(time: observation.time, device: observation.device, point: estimate.point, floor: floor,
                   accuracy: estimate.accuracy, coordinate: coordinate,
                   beacons: observation.signals.prefix(estimate.beaconCount).map { venue.venue.beacons[$0.beaconIndex].id },
                   method: solver.name)
    }
}
