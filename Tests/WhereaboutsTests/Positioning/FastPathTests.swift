import Foundation
import Testing
@testable import Whereabouts

/// The fast paths of the pipeline against the plain definitions they replace: same neighbours and
/// distances, same observations, same fixes.
@Suite struct FastPathTests {
    /// Random fingerprints: `rows` rows of `width` beacons, each heard with probability 0.5 at
    /// −95…−45 dBm (whole dB, so that equal distances and ties happen), on floors 0 and 1 or unknown.
    static func table(rows: Int, width: Int, fill: Double?, seed: UInt64) -> FingerprintTable {
        var random = SeededRandom(seed: seed)
        var samples: [FingerprintSample] = []
        for row in 0..<rows {
            let values = (0..<width).map { _ in random.nextUniform() < 0.5 ? (-95 + (50 * random.nextUniform()).rounded()) : .nan }
            let floor: Int? = row % 5 == 0 ? nil : row % 2
            samples.append(FingerprintSample(point: PlanarPoint(x: Double(row), y: 0), floor: floor, device: nil, values: values))
        }
        let beacons = (0..<width).map { Venue.Beacon(id: "b\($0)", x: Double($0), y: 0, floor: $0 % 2) }
        return FingerprintTable(samples, width: width, venue: PositioningVenue(Venue(beacons: beacons)), fill: fill)
    }

    @Test(arguments: [FingerprintSolver.Metric.euclidean, .manhattan, .sharedWithPenalty(10), .sharedWithPenalty(30)])
    func blockedSearchMatchesRowByRow(metric: FingerprintSolver.Metric) {
        var random = SeededRandom(seed: 5)
        for (rows, width) in [(1, 1), (7, 3), (8, 24), (61, 24), (203, 13)] {
            let fill = -100.0
            let table = Self.table(rows: rows, width: width, fill: FingerprintSolver.usesFill(metric) ? fill : nil,
                                   seed: UInt64(rows * 100 + width))
            for trial in 0..<40 {
                let query = (0..<width).map { _ in random.nextUniform() < 0.4 ? (-95 + (50 * random.nextUniform()).rounded()) : .nan }
                let floor: Int? = trial % 3 == 0 ? nil : trial % 2
                let beacons = floor.flatMap { table.floorBeacons[$0] } ?? table.allBeacons
                for k in [1, 3, 20] {
                    table.expectSameNeighbours(of: query, beacons: beacons, floor: floor, metric: metric, fill: fill, k: k)
                }
            }
        }
    }

    @Test func blockedSearchWithAnotherFillFallsBack() {
        let table = Self.table(rows: 30, width: 6, fill: -100, seed: 9)
        let query: [Double] = [-60, .nan, -70, .nan, .nan, -90]
        var fast = [FingerprintTable.Neighbour](repeating: .init(distance: 0, row: 0), count: 5)
        var plain = fast
        let found = query.withUnsafeBufferPointer { query in
            fast.withUnsafeMutableBufferPointer {
                table.nearest(to: query, beacons: table.allBeacons, floor: nil, metric: .euclidean, fill: -90, into: $0)
            }
        }
        let expected = query.withUnsafeBufferPointer { query in
            plain.withUnsafeMutableBufferPointer {
                table.nearestRowByRow(to: query, beacons: table.allBeacons, floor: nil, metric: .euclidean, fill: -90, into: $0)
            }
        }
        #expect(found == expected && found == 5)
        #expect(fast.map(\.row) == plain.map(\.row))
        #expect(fast.map(\.distance) == plain.map(\.distance))
    }

    /// The observations of the dictionary-and-filter-bank pipeline the locator used to run.
    struct ReferenceObserver {
        let venue: PositioningVenue
        let configuration: LocatorConfiguration
        var filters: RSSIFilterBank<Int, BuiltInRSSIFilter>?
        var latest: [Int: (rssi: Double, time: Double)] = [:]

        init(venue: PositioningVenue, configuration: LocatorConfiguration) {
            self.venue = venue
            self.configuration = configuration
            filters = configuration.filter.map { RSSIFilterBank(prototype: $0, timeout: configuration.beaconTimeout) }
        }

        mutating func observe(_ scan: Scan, locator: Locator) -> Observation {
            let time = scan.time
            for reading in scan.readings where reading.isValid {
                guard let index = venue.directory.index(for: reading.beacon) else { continue }
                latest[index] = (reading.rssi, time)
                filters?.add(rssi: reading.rssi, for: index, at: time)
            }
            var signals: [BeaconSignal] = []
            var ranges: [BeaconRange] = []
            for (index, last) in latest.sorted(by: { $0.key < $1.key }) {
                guard !(time - last.time > configuration.beaconTimeout) else {
                    latest[index] = nil
                    continue
                }
                let rssi = filters?.value(for: index, at: time) ?? last.rssi
                signals.append(BeaconSignal(beaconIndex: index, rssi: rssi, rawRSSI: last.rssi))
                if let range = locator.range(of: index, rssi: rssi) { ranges.append(range) }
            }
            filters?.removeExpired(at: time)
            return Observation(time: time, device: scan.device, signals: signals, ranges: ranges)
        }
    }

    /// A random stream over 12 beacons (one without a position, one unknown id), with gaps longer
    /// than the timeouts, repeated beacons within a scan, whole-dB RSSI (ties) and the odd invalid reading.
    static func stream(seed: UInt64, count: Int) -> [Scan] {
        var random = SeededRandom(seed: seed)
        var time = 0.0
        var scans: [Scan] = []
        for _ in 0..<count {
            time += random.nextUniform() < 0.05 ? 4 + 10 * random.nextUniform() : 0.3 + random.nextUniform()
            var readings: [Reading] = []
            for _ in 0..<Int(random.nextUniform() * 8) {
                let beacon = Int(random.nextUniform() * 13)
                let rssi = random.nextUniform() < 0.03 ? 5 : -40 - (50 * random.nextUniform()).rounded()
                readings.append(Reading(beacon: .id(beacon == 12 ? "unknown" : "b\(beacon)"), rssi: rssi))
            }
            scans.append(Scan(time: time, device: "d", readings: readings))
        }
        return scans
    }

    static let twelveBeacons: PositioningVenue = {
        var beacons = (0..<11).map { Venue.Beacon(id: "b\($0)", x: Double($0 % 4) * 5, y: Double($0 / 4) * 5, floor: $0 % 2) }
        beacons.append(Venue.Beacon(id: "b11"))
        return PositioningVenue(Venue(floors: [Venue.Floor(level: 0), Venue.Floor(level: 1)], beacons: beacons))
    }()

    @Test(arguments: [LocatorConfiguration(),
                      LocatorConfiguration(filter: nil),
                      LocatorConfiguration(filter: BuiltInRSSIFilter(kind: .median), beaconTimeout: 2),
                      LocatorConfiguration(filter: BuiltInRSSIFilter(kind: .arma), beaconTimeout: 0),
                      LocatorConfiguration(filter: BuiltInRSSIFilter(kind: .average), beaconTimeout: 30)])
    func observationsMatchTheDictionaryPipeline(configuration: LocatorConfiguration) {
        let venue = Self.twelveBeacons
        var locator = Locator(venue: venue, solver: WeightedCentroid(venue: venue), configuration: configuration)
        var reference = ReferenceObserver(venue: venue, configuration: configuration)
        for (number, scan) in Self.stream(seed: 3, count: 400).enumerated() {
            if number == 250 {
                locator.reset()
                reference = ReferenceObserver(venue: venue, configuration: configuration)
            }
            let expected = reference.observe(scan, locator: locator)
            let observation = locator.observe(scan)
            #expect(observation.signals == expected.signals)
            #expect(observation.ranges == expected.ranges)
            #expect(observation.time == expected.time && observation.device == expected.device)
        }
    }

    @Test func locateMatchesObserveSelectAndSolve() {
        let venue = Self.twelveBeacons
        let solver = TrustFusion([(WeightedCentroid(venue: venue), 1), (Multilateration(venue: venue), 1)])
        var fast = Locator(venue: venue, solver: solver)
        var stepwise = Locator(venue: venue, solver: solver)
        var fixes = 0
        for scan in Self.stream(seed: 4, count: 300) {
            let fix = fast.locate(scan)
            let selected = stepwise.selectFloor(stepwise.observe(scan))
            let expected = solver.locate(selected).flatMap { $0.isFinite ? stepwise.fix(for: $0, observation: selected) : nil }
            #expect(fix == expected)
            if fix != nil { fixes += 1 }
        }
        #expect(fixes > 100)
    }

    @Test func sortsMatchTheObservationOrder() {
        var random = SeededRandom(seed: 8)
        for count in [0, 1, 2, 5, 30, 48, 49, 120] {
            let signals = (0..<count).map { BeaconSignal(beaconIndex: $0, rssi: -40 - (10 * random.nextUniform()).rounded()) }.shuffled(using: &random)
            let ranges = (0..<count).map {
                BeaconRange(beaconIndex: $0, position: SpatialPoint(x: 0, y: 0, z: 0), distance: (4 * random.nextUniform()).rounded(),
                            standardDeviation: 1, rssi: -60)
            }.shuffled(using: &random)
            let expected = Observation(time: 0, signals: signals, ranges: ranges)
            var sortedSignals = signals, sortedRanges = ranges
            Observation.sortSignals(&sortedSignals)
            Observation.sortRanges(&sortedRanges)
            #expect(sortedSignals == expected.signals)
            #expect(sortedRanges == expected.ranges)
        }
    }
}
