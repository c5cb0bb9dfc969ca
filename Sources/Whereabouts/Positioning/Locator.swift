import Foundation

/// How a ``Locator`` turns readings into observations.
public struct LocatorConfiguration: Sendable {
    /// The RSSI filter applied per beacon, or `nil` to use each beacon's latest reading as is.
    public var filter: BuiltInRSSIFilter?
    /// A beacon not heard for this many seconds drops out of the observations.
    public var beaconTimeout: Double
    /// Standard deviation of RSSI around the path-loss model, dB; it sets the ranges' uncertainty.
    public var rssiStandardDeviation: Double
    /// Ranges shorter than this are raised to it, venue units.
    public var minimumRange: Double

    /// Creates a configuration. The defaults: a Kalman filter per beacon, beacons kept 5 s after
    /// they were last heard, 4 dB of RSSI noise, ranges of at least 0.1 units.
    public init(filter: BuiltInRSSIFilter? = BuiltInRSSIFilter(kind: .kalman), beaconTimeout: Double = 5,
                rssiStandardDeviation: Double = 4, minimumRange: Double = 0.1) {
        self.filter = filter
        self.beaconTimeout = beaconTimeout
        self.rssiStandardDeviation = rssiStandardDeviation
        self.minimumRange = minimumRange
    }
}

/// The positioning pipeline of one device: scans → per-beacon filters → observation (signals and
/// ranges) → solver → fix. Keep one per device and track (``LocationEngine`` does).
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

    /// Creates a locator for one device.
    public init(venue: PositioningVenue, solver: any PositionSolver, configuration: LocatorConfiguration = LocatorConfiguration()) {
        self.venue = venue
        self.solver = solver
        self.configuration = configuration
        filters = configuration.filter.map { RSSIFilterBank(prototype: $0, timeout: configuration.beaconTimeout) }
    }

    /// Forgets every beacon heard (a new track starts).
    public mutating func reset() {
        filters?.removeAll()
        latest.removeAll()
    }

    /// Takes in a scan and returns the observation at its time: every venue beacon heard within
    /// ``LocatorConfiguration/beaconTimeout``, with its filtered RSSI and, when it has a position,
    /// its range.
    public mutating func observe(_ scan: Scan) -> Observation {
        let time = scan.time
        for reading in scan.readings where reading.isValid {
            guard let index = venue.directory.index(for: reading.beacon) else { continue }
            latest[index] = (reading.rssi, time)
            filters?.add(rssi: reading.rssi, for: index, at: time)
        }
        var signals: [BeaconSignal] = []
        var ranges: [BeaconRange] = []
        signals.reserveCapacity(latest.count)
        for (index, last) in latest {
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
    public mutating func locate(_ scan: Scan) -> Fix? {
        let observation = observe(scan)
        guard let estimate = solver.locate(observation), estimate.isFinite else { return nil }
        return fix(for: estimate, observation: observation)
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
