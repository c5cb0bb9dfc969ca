import Foundation
import Testing
@testable import Whereabouts

@Suite struct SolverMultilaterationTests {
    let square = SolverFixture.venue([(0, 0), (10, 0), (0, 10), (10, 10), (5, 0), (0, 5), (10, 5), (5, 10)])

    @Test func exactRangesGiveTheTruth() throws {
        for truth in [SpatialPoint(x: 3, y: 4, z: 0), SpatialPoint(x: 9.5, y: 0.5, z: 0), SpatialPoint(x: 5, y: 5, z: 0)] {
            let distances = SolverFixture.exactDistances(square, to: truth)
            let observation = SolverFixture.observation(square, distances: distances, sigmas: distances.map { 0.2 + 0.3 * $0 })
            for loss in Multilateration.Loss.allCases {
                for residual in Multilateration.Residual.allCases {
                    let solver = Multilateration(venue: square, options: .init(loss: loss, residual: residual))
                    let estimate = try #require(solver.locate(observation))
                    #expect(estimate.point.planar.distance(to: truth.planar) < 1e-6, "\(loss) \(residual) at \(truth)")
                    #expect(estimate.beaconCount == 8)
                }
            }
        }
    }

    @Test func theOrderOfAnOddNumberOfRangesDoesNotMatter() throws {
        // Five disagreeing ranges are worked through two at a time, the last pair padded with a
        // copy of the fifth range that must weigh nothing: had it weight, whichever range comes
        // last would count twice and the answer would follow the order.
        let truth = SpatialPoint(x: 3, y: 6, z: 0)
        let noise = [0.9, -0.7, 1.3, -1.1, 0.6]
        let distances = zip(SolverFixture.exactDistances(square, to: truth).prefix(5), noise).map { $0 + $1 }
        let observation = SolverFixture.observation(square, distances: distances, sigmas: [0.5, 0.8, 1.1, 0.7, 0.9])
        for loss in Multilateration.Loss.allCases {
            let solver = Multilateration(venue: square, options: .init(loss: loss))
            var answers: [PositionEstimate] = []
            for order in [observation.ranges, observation.ranges.reversed(), Array(observation.ranges.dropFirst(2) + observation.ranges.prefix(2))] {
                let reordered = Observation(time: 0, device: nil, sortedSignals: observation.signals, sortedRanges: order)
                answers.append(try #require(solver.locate(reordered)))
            }
            for answer in answers.dropFirst() {
                #expect(answer.point.distance(to: answers[0].point) < 1e-9, "\(loss)")
                #expect(abs(answer.accuracy - answers[0].accuracy) < 1e-9, "\(loss)")
            }
            #expect(answers[0].point.distance(to: truth) > 1e-3)   // the ranges do disagree
        }
    }

    @Test func theStartIsWhicheverFitsTheRangesBetter() throws {
        // Four beacons along a corridor (y = 0) and one off its line whose range is uncertain
        // (σ 3 m), heard at (14, 5): the mirror point (14, −5) fits the corridor's ranges as well.
        // A sixth beacon, heard loudly but without a range, pulls the centroid to one side.
        let truth = PlanarPoint(x: 14, y: 5)
        func answer(offLine: Double, error: Double, pull: Double) throws -> PlanarPoint {
            let points: [(Double, Double)] = [(0, 0), (10, 0), (20, 0), (30, 0), (15, offLine), (14, pull)]
            let venue = SolverFixture.venue(points)
            var signals: [BeaconSignal] = [], ranges: [BeaconRange] = []
            for (index, point) in points.enumerated() {
                let distance = PlanarPoint(x: point.0, y: point.1).distance(to: truth)
                let rssi = index == 5 ? -40 : -59 - 20 * log10(distance)
                signals.append(BeaconSignal(beaconIndex: index, rssi: rssi))
                guard index < 5 else { continue }
                ranges.append(BeaconRange(beaconIndex: index, position: SpatialPoint(x: point.0, y: point.1, z: 0), floor: 0,
                                          distance: distance + (index == 4 ? error : 0),
                                          standardDeviation: index == 4 ? 3 : 0.5, rssi: rssi))
            }
            let observation = Observation(time: 0, signals: signals, ranges: ranges)
            return try #require(Multilateration(venue: venue).locate(observation)).point.planar
        }
        // The centroid lies near (14, −6), in the mirror's basin; the linear solution of exact
        // ranges is the receiver itself. From the centroid the answer would be (14.01, −4.91).
        #expect(try answer(offLine: 3, error: 0, pull: -6).distance(to: truth) < 0.05)
        // The centroid lies near (14, 6); the off-line range, 1 m short, takes the linear solution
        // across the corridor, whose basin is the mirror's (the answer from there: (13.99, −4.00)).
        #expect(try answer(offLine: -1, error: -1, pull: 6).distance(to: truth) < 0.05)
    }

    @Test func accuracyIsTheCovarianceCircle() throws {
        // Three exact ranges to (3, 4) from A (0, 0), B (10, 0), C (0, 10) with σ = 1: the residual
        // variance factor is 0/(3 − 2) → 1, so the radius is the geometry's 1.27820 (the arithmetic
        // is in SolverTriangleTests.powerCenterOfExactRanges); with σ = 2 it doubles.
        let triangle = SolverFixture.venue([(0, 0), (10, 0), (0, 10)])
        let distances = [5, 65.0.squareRoot(), 45.0.squareRoot()]
        let one = try #require(Multilateration(venue: triangle).locate(
            SolverFixture.observation(triangle, distances: distances, sigmas: [1, 1, 1])))
        #expect(abs(one.accuracy - 1.27820) < 1e-4)
        let two = try #require(Multilateration(venue: triangle).locate(
            SolverFixture.observation(triangle, distances: distances, sigmas: [2, 2, 2])))
        #expect(abs(two.accuracy - 2.55640) < 1e-4)
    }

    @Test func disagreeingRangesWidenTheRadius() throws {
        // The same eight beacons, ranges off by ±1.5 with σ = 0.1: the residual variance factor is
        // far above 1, so the radius must exceed the bare covariance circle, which for eight
        // beacons around the point and σ = 0.1 is below 0.2.
        let truth = SpatialPoint(x: 4, y: 6, z: 0)
        let exact = SolverFixture.exactDistances(square, to: truth)
        let noisy = exact.enumerated().map { $0.element + ($0.offset % 2 == 0 ? 1.5 : -1.5) }
        let tight = try #require(Multilateration(venue: square).locate(
            SolverFixture.observation(square, distances: exact, sigmas: Array(repeating: 0.1, count: 8))))
        let loose = try #require(Multilateration(venue: square).locate(
            SolverFixture.observation(square, distances: noisy, sigmas: Array(repeating: 0.1, count: 8))))
        #expect(tight.accuracy < 0.2)
        #expect(loose.accuracy > 1)
    }

    @Test func heightIsSolvedWhenTheBeaconsAllowIt() throws {
        // Beacons at heights 0.5…3 m (known), receiver truly at 1.0 m, not the assumed 1.2 m.
        let points = [SpatialPoint(x: 0, y: 0, z: 0.5), SpatialPoint(x: 10, y: 0, z: 3), SpatialPoint(x: 0, y: 10, z: 2.5),
                      SpatialPoint(x: 10, y: 10, z: 0.8), SpatialPoint(x: 5, y: 5, z: 3), SpatialPoint(x: 0, y: 5, z: 1.8)]
        let venue = SolverFixture.venue(points, heights: true)
        let truth = SpatialPoint(x: 4, y: 6, z: 1.0)
        let distances = SolverFixture.exactDistances(venue, to: truth)
        let observation = SolverFixture.observation(venue, distances: distances, sigmas: Array(repeating: 0.5, count: 6))
        let spatial = try #require(Multilateration(venue: venue).locate(observation))
        #expect(spatial.point.distance(to: truth) < 1e-6)
        // Held at 1.2 m the fit cannot be exact: the planar answer misses the truth.
        let planar = try #require(Multilateration(venue: venue, options: .init(dimensions: .planar)).locate(observation))
        #expect(planar.point.z == 1.2)
        #expect(planar.point.planar.distance(to: truth.planar) > 1e-3)
        // Beacons all at one height (coplanar): the height stays at the receiver height.
        let flat = SolverFixture.venue(points.map { SpatialPoint(x: $0.x, y: $0.y, z: 2.5) }, heights: true)
        let flatObservation = SolverFixture.observation(flat, distances: SolverFixture.exactDistances(flat, to: truth),
                                                        sigmas: Array(repeating: 0.5, count: 6))
        #expect(try #require(Multilateration(venue: flat).locate(flatObservation)).point.z == 1.2)
    }

    @Test func robustLossesResistAnOutlier() throws {
        // One range 6 m too long: the Huber and Cauchy fits stay nearer the truth than least squares.
        let truth = SpatialPoint(x: 3, y: 4, z: 0)
        var distances = SolverFixture.exactDistances(square, to: truth)
        distances[3] += 6
        let observation = SolverFixture.observation(square, distances: distances, sigmas: Array(repeating: 0.3, count: 8))
        func error(_ loss: Multilateration.Loss) throws -> Double {
            let estimate = try #require(Multilateration(venue: square, options: .init(loss: loss)).locate(observation))
            return estimate.point.planar.distance(to: truth.planar)
        }
        let squared = try error(.squared), huber = try error(.huber), cauchy = try error(.cauchy)
        #expect(huber < squared)
        #expect(cauchy < squared)
        #expect(cauchy < 0.2)
    }

    @Test func fewRangesDegradeGracefully() throws {
        let pair = SolverFixture.venue([(0, 0), (10, 0)])
        // One range: the beacon itself, radius = range + σ = 3 + 0.5.
        let one = try #require(Multilateration(venue: pair).locate(
            SolverFixture.observation(pair, distances: [3], sigmas: [0.5])))
        #expect(one.point.planar == PlanarPoint(x: 0, y: 0))
        #expect(one.accuracy == 3.5)
        #expect(one.beaconCount == 1)
        // Two ranges 2 and 8: t = 2/(2 + 8) = 0.2 of the way, (2, 0). The circles only touch there
        // (half chord √(4 − 4) = 0), so the radius is half the separation plus the larger σ: 5 + 0.7.
        let two = try #require(Multilateration(venue: pair).locate(
            SolverFixture.observation(pair, distances: [2, 8], sigmas: [0.5, 0.7])))
        #expect(abs(two.point.x - 2) < 1e-12 && two.point.y == 0)
        #expect(abs(two.accuracy - 5.7) < 1e-12)
        #expect(Multilateration(venue: pair).locate(Observation(time: 0, signals: [], ranges: [])) == nil)
    }

    @Test func beatsTheCentroidOnNoisyRanges() throws {
        // 9 beacons on a 20 m grid, RSSI = −59 − 20·log10(d) + N(0, 4 dB), ranges from the
        // Locator's log-distance model: over 300 random positions the multilateration's mean error
        // is below the weighted centroid's.
        var points: [(Double, Double)] = []
        for x in [0.0, 10, 20] { for y in [0.0, 10, 20] { points.append((x, y)) } }
        let venue = SolverFixture.venue(points)
        let locator = Locator(venue: venue, solver: WeightedCentroid(venue: venue))
        let multilateration = Multilateration(venue: venue), centroid = WeightedCentroid(venue: venue)
        var random = SeededRandom(seed: 7)
        var errorML = 0.0, errorCentroid = 0.0
        for _ in 0..<300 {
            let truth = SpatialPoint(x: 20 * random.nextUniform(), y: 20 * random.nextUniform(), z: 0)
            var signals: [BeaconSignal] = [], ranges: [BeaconRange] = []
            for (index, position) in venue.positions.enumerated() {
                guard let position else { continue }
                let d = max(position.distance(to: truth), 0.1)
                let rssi = -59 - 20 * log10(d) + 4 * random.nextGaussian()
                signals.append(BeaconSignal(beaconIndex: index, rssi: rssi))
                if let range = locator.range(of: index, rssi: rssi) { ranges.append(range) }
            }
            let observation = Observation(time: 0, signals: signals, ranges: ranges)
            let ml = try #require(multilateration.locate(observation))
            let wc = try #require(centroid.locate(observation))
            errorML += ml.point.planar.distance(to: truth.planar)
            errorCentroid += wc.point.planar.distance(to: truth.planar)
        }
        #expect(errorML < errorCentroid, "mean error \(errorML / 300) vs centroid \(errorCentroid / 300)")
    }
}
