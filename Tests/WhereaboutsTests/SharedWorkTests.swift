import Foundation
import Testing
@testable import Whereabouts

/// Work shared between solvers, and the search order of the fingerprints, against the plain
/// definitions: the same answers to the bit.
@Suite struct SharedWorkTests {
    /// Forwards to a solver, so that the fusion cannot see what it is.
    struct Opaque: PositionSolver {
        var solver: any PositionSolver
        var name: String { solver.name }
        func locate(_ observation: Observation) -> PositionEstimate? { solver.locate(observation) }
    }

    /// A 20 m × 12 m venue of ten beacons and the observations of a simulated walk through it.
    static func walk(seed: UInt64) -> (venue: PositioningVenue, observations: [Observation]) {
        var beacons: [Venue.Beacon] = []
        for index in 0..<10 {
            beacons.append(Venue.Beacon(id: "b\(index)", x: Double(index % 5) * 5, y: Double(index / 5) * 12,
                                        z: index % 3 == 0 ? 2.8 : 2.2))
        }
        let venue = Venue(beacons: beacons)
        let positioning = PositioningVenue(venue)
        var random = SeededRandom(seed: seed)
        var route: [Walk.Waypoint] = []
        for _ in 0..<12 {
            route.append(Walk.Waypoint(x: 20 * random.nextUniform(), y: 12 * random.nextUniform(), dwell: 2))
        }
        let scans = Array(Simulator(venue: venue, walk: Walk(waypoints: route), radio: RadioModel(shadowing: 5, packetLoss: 0.3),
                                    seed: seed))
        var locator = Locator(venue: positioning, solver: WeightedCentroid(venue: positioning))
        return (positioning, scans.map { locator.selectFloor(locator.observe($0)) })
    }

    @Test func theCentroidsPlanPositionIsItsAnswers() {
        let (venue, observations) = Self.walk(seed: 3)
        let centroid = WeightedCentroid(venue: venue)
        #expect(observations.count > 20)
        for observation in observations {
            let answer = centroid.locate(observation)
            let center = centroid.center(of: observation)
            #expect(answer.map { [$0.point.x.bitPattern, $0.point.y.bitPattern] } == center.map { [$0.x.bitPattern, $0.y.bitPattern] })
        }
    }

    @Test func multilaterationStartingFromTheFusionsCentroidGivesTheSameFixes() throws {
        let (venue, observations) = Self.walk(seed: 4)
        let centroid = WeightedCentroid(venue: venue), multilateration = Multilateration(venue: venue)
        #expect(multilateration.startsLike(centroid))
        #expect(!multilateration.startsLike(WeightedCentroid(venue: venue, count: 3)))
        let shared = TrustFusion([(centroid, 1), (multilateration, 2)])
        let separate = TrustFusion([(Opaque(solver: centroid), 1), (Opaque(solver: multilateration), 2)])
        // A centroid with no trust is not asked: the multilateration works out its own start.
        let unasked = TrustFusion([(centroid, 0), (multilateration, 2)])
        var located = 0
        for observation in observations {
            let expected = separate.locate(observation)
            #expect(Self.bits(shared.locate(observation)) == Self.bits(expected))
            #expect(Self.bits(unasked.locate(observation)) == Self.bits(multilateration.locate(observation)))
            if expected != nil { located += 1 }
        }
        #expect(located > 20)
    }

    static func bits(_ estimate: PositionEstimate?) -> [UInt64]? {
        estimate.map { estimate in
            [estimate.point.x, estimate.point.y, estimate.point.z, estimate.accuracy].map { $0.bitPattern } + [UInt64(estimate.beaconCount)]
        }
    }

    /// Rows repeated across blocks, so that equal distances turn up before and after the blocks
    /// measured first: ties must still go to the earlier row.
    @Test(arguments: [FingerprintSolver.Metric.euclidean, .manhattan, .sharedWithPenalty(20)])
    func seededSearchKeepsTheRowOrderOfTies(metric: FingerprintSolver.Metric) {
        var random = SeededRandom(seed: 21)
        let width = 9
        var distinct: [[Double]] = []
        for _ in 0..<7 {
            distinct.append((0..<width).map { _ in random.nextUniform() < 0.6 ? (-90 + (40 * random.nextUniform()).rounded()) : .nan })
        }
        var samples: [FingerprintSample] = []
        for row in 0..<90 {
            samples.append(FingerprintSample(point: PlanarPoint(x: Double(row), y: 0), floor: nil, device: nil,
                                             values: distinct[(row * 5) % distinct.count]))
        }
        let beacons = (0..<width).map { Venue.Beacon(id: "b\($0)", x: Double($0), y: 0) }
        let fill = -100.0
        let table = FingerprintTable(samples, width: width, venue: PositioningVenue(Venue(beacons: beacons)),
                                     fill: FingerprintSolver.usesFill(metric) ? fill : nil)
        for query in distinct + [(0..<width).map { _ in -60.0 }] {
            for k in [1, 5, 13, 40] {
                var fast = [FingerprintTable.Neighbour](repeating: .init(distance: -1, row: -1), count: k)
                var plain = fast
                let found = query.withUnsafeBufferPointer { query in
                    fast.withUnsafeMutableBufferPointer {
                        table.nearest(to: query, beacons: table.allBeacons, floor: nil, metric: metric, fill: fill, into: $0)
                    }
                }
                let expected = query.withUnsafeBufferPointer { query in
                    plain.withUnsafeMutableBufferPointer {
                        table.nearestRowByRow(to: query, beacons: table.allBeacons, floor: nil, metric: metric, fill: fill, into: $0)
                    }
                }
                #expect(found == expected)
                #expect(fast.prefix(found).map(\.row) == plain.prefix(expected).map(\.row))
                #expect(fast.prefix(found).map(\.distance.bitPattern) == plain.prefix(expected).map(\.distance.bitPattern))
            }
        }
    }

    @Test(arguments: [RSSIFilterKind.average, .median])
    func filtersChangedInPlaceKeepTheirValueSemantics(kind: RSSIFilterKind) {
        var filter = BuiltInRSSIFilter(kind: kind)
        for (time, rssi) in [(0.0, -60.0), (1, -70), (2, -65)] { filter.add(rssi: rssi, at: time) }
        let copy = filter
        filter.add(rssi: -90, at: 3)
        filter.add(rssi: -91, at: 4)
        // The copy still holds the first three samples: mean −65 (average), median −65.
        #expect(copy.value(at: 2) == -65)
        #expect(filter.value(at: 4) != copy.value(at: 2))
        var reset = copy
        reset.reset()
        #expect(reset.value == nil && copy.value(at: 2) == -65)
    }

    @Test func theSeedsAreTheBlocksThatHeardABeaconLoudest() {
        // Column 0: rows 3 (−50), 20 (−40), 9 (−45), 30 (−70); column 1 never heard.
        var values = ContiguousArray<Double>(repeating: .nan, count: 40 * 2)
        for (row, rssi) in [(3, -50.0), (20, -40), (9, -45), (30, -70)] { values[row * 2] = rssi }
        let seeds = FingerprintTable.seeds(of: values, width: 2)
        // Blocks 2 (row 20), 1 (row 9), 0 (row 3), 3 (row 30); then none for column 1.
        #expect(Array(seeds) == [2, 1, 0, 3, -1, -1, -1, -1])
    }
}
