import Foundation
import Testing
@testable import Whereabouts

/// Every range solver on random venues and random, often absurd, observations: never a trap, never
/// a non-finite value, never a point outside the venue's bounds.
@Suite struct SolverPropertyTests {
    /// A random venue of 2…30 beacons: some coincident, some on a line, some without a position,
    /// random heights (known or not), up to three floors.
    static func randomVenue(_ random: inout SeededRandom) -> PositioningVenue {
        let count = 2 + random.below(29)
        let heightsKnown = random.below(2) == 0
        var beacons: [Venue.Beacon] = []
        for index in 0..<count {
            var x = -50 + 100 * random.nextUniform(), y = -50 + 100 * random.nextUniform()
            switch random.below(6) {
            case 0 where !beacons.isEmpty:  // coincident with an earlier beacon
                let other = beacons[random.below(beacons.count)]
                x = other.x ?? x
                y = other.y ?? y
            case 1:  // on the line y = x
                y = x
            default:
                break
            }
            let placed = random.below(10) != 0
            beacons.append(Venue.Beacon(id: "b\(index)", x: placed ? x : nil, y: placed ? y : nil,
                                        z: heightsKnown ? 5 * random.nextUniform() : nil, floor: random.below(3)))
        }
        return PositioningVenue(Venue(beacons: beacons))
    }

    /// A value from a list of awkward ones, or an ordinary one.
    static func awkward(_ random: inout SeededRandom, ordinary: Double) -> Double {
        let values: [Double] = [0, 1e-12, 1e-300, 1e9, 1e300, .infinity, -1, .nan, .greatestFiniteMagnitude]
        return random.below(4) == 0 ? values[random.below(values.count)] : ordinary
    }

    /// A random observation of `count` beacons of the venue (or of made-up positions).
    static func randomObservation(_ venue: PositioningVenue, count: Int, _ random: inout SeededRandom) -> Observation {
        var signals: [BeaconSignal] = [], ranges: [BeaconRange] = []
        for _ in 0..<count {
            let index = random.below(max(venue.positions.count, 1))
            let rssi = awkward(&random, ordinary: -100 + 70 * random.nextUniform())
            signals.append(BeaconSignal(beaconIndex: random.below(20) == 0 ? 1000 : index, rssi: rssi))
            let position = venue.positions[index]
                ?? SpatialPoint(x: 200 * random.nextUniform() - 100, y: 200 * random.nextUniform() - 100, z: 0)
            ranges.append(BeaconRange(beaconIndex: index, position: position, floor: venue.floors[index],
                                      distance: awkward(&random, ordinary: 40 * random.nextUniform()),
                                      standardDeviation: awkward(&random, ordinary: 10 * random.nextUniform()),
                                      rssi: rssi))
        }
        let floor: Int? = random.below(3) == 0 ? random.below(3) : nil
        return Observation(time: 0, floor: floor, signals: signals, ranges: ranges)
    }

    @Test func solversStayFiniteAndInsideTheVenue() {
        var random = SeededRandom(seed: 2024)
        var located = 0
        for _ in 0..<400 {
            let venue = Self.randomVenue(&random)
            let solvers = SolverFixture.solvers(venue)
            for count in [0, 1, 2, 3, 4, 6, 10, 30] {
                let observation = Self.randomObservation(venue, count: count, &random)
                for solver in solvers {
                    guard let estimate = solver.locate(observation) else { continue }
                    located += 1
                    #expect(estimate.isFinite, "\(solver.name): \(estimate)")
                    guard let bounds = venue.bounds else { continue }
                    let tolerance = 1e-9 * (1 + RangeGeometry.diagonal(bounds))
                    #expect(bounds.inset(by: tolerance).contains(estimate.point.planar), "\(solver.name): \(estimate.point)")
                }
            }
        }
        // The property must not hold vacuously.
        #expect(located > 1000)
    }

    @Test func exactRangesOnRandomVenuesGiveTheTruth() throws {
        // Noise-free ranges from a point inside the beacons' extent: multilateration and the
        // radical-centre solvers (when they find a well-shaped triple) return it to 1e-6.
        var random = SeededRandom(seed: 99)
        var checked = 0
        for _ in 0..<200 {
            let count = 3 + random.below(10)
            let points = (0..<count).map { _ in SpatialPoint(x: 30 * random.nextUniform(), y: 30 * random.nextUniform(), z: 0) }
            let venue = SolverFixture.venue(points)
            let truth = SpatialPoint(x: 5 + 20 * random.nextUniform(), y: 5 + 20 * random.nextUniform(), z: 0)
            guard let extent = venue.extent, extent.contains(truth.planar) else { continue }
            let distances = SolverFixture.exactDistances(venue, to: truth)
            let observation = SolverFixture.observation(venue, distances: distances,
                                                        sigmas: distances.map { 0.3 + 0.2 * $0 })
            let ml = try #require(Multilateration(venue: venue).locate(observation))
            #expect(ml.point.planar.distance(to: truth.planar) < 1e-6, "multilateration \(points) \(truth)")
            for solver in [PowerCenter(venue: venue) as any PositionSolver, SphereIntersection(venue: venue)] {
                guard let estimate = solver.locate(observation) else { continue }
                #expect(estimate.point.planar.distance(to: truth.planar) < 1e-6, "\(solver.name)")
            }
            checked += 1
        }
        #expect(checked > 50)
    }

    @Test func rangesFromBeaconsAtNoFinitePositionAreLeftOut() throws {
        // Three sound ranges and three whose beacon has a coordinate that is not finite (a NaN,
        // then infinities): every solver answers as it does to the three alone.
        let venue = SolverFixture.venue([(0, 0), (10, 0), (0, 10)])
        let truth = SpatialPoint(x: 3, y: 4, z: 0)
        let distances = SolverFixture.exactDistances(venue, to: truth)
        let sound = SolverFixture.observation(venue, distances: distances, sigmas: [0.5, 0.7, 0.9])
        var ranges = sound.ranges
        for position in [SpatialPoint(x: .nan, y: 2, z: 0), SpatialPoint(x: 2, y: -.infinity, z: 0),
                         SpatialPoint(x: 2, y: 2, z: .infinity)] {
            ranges.append(BeaconRange(beaconIndex: 0, position: position, floor: 0, distance: 3,
                                      standardDeviation: 0.5, rssi: -60))
        }
        let withBroken = Observation(time: 0, signals: sound.signals, ranges: ranges)
        for solver in SolverFixture.solvers(venue) {
            let expected = try #require(solver.locate(sound), "\(solver.name)")
            let answer = try #require(solver.locate(withBroken), "\(solver.name)")
            #expect(answer.point.distance(to: expected.point) < 1e-9, "\(solver.name)")
            #expect(answer.beaconCount == 3, "\(solver.name)")
        }
    }
}
