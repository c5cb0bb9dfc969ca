import Foundation
import Testing
@testable import Whereabouts

/// PowerCenter, SphereIntersection and EPTA against values worked out by hand.
///
/// The reference triangle: beacons A (0, 0), B (10, 0), C (0, 10). Its bounds are the extent
/// 0…10 grown by the margin max(2, 10 % of 10) = 2, so −2…12.
@Suite struct SolverTriangleTests {
    let triangle = SolverFixture.venue([(0, 0), (10, 0), (0, 10)])

    @Test func powerCenterOfExactRanges() throws {
        // Truth (3, 4): r = 5, √65, √45. k1 = (0 − 25)/2 = −12.5, k2 = (100 − 65)/2 = 17.5,
        // k3 = (100 − 45)/2 = 27.5, D = (0 − 10)(0 − 10) − (0 − 0)(10 − 0) = 100,
        // x = [(−30)(−10) − 0·(−10)]/100 = 3, y = [(−10)(−10) − (−30)(10)]/100 = 4.
        let observation = SolverFixture.observation(triangle, distances: [5, 65.0.squareRoot(), 45.0.squareRoot()],
                                                    sigmas: [1, 1, 1])
        let estimate = try #require(PowerCenter(venue: triangle).locate(observation))
        #expect(abs(estimate.point.x - 3) < 1e-12)
        #expect(abs(estimate.point.y - 4) < 1e-12)
        #expect(estimate.beaconCount == 3)
        // Accuracy with exact ranges is the geometry term alone. Unit vectors from the beacons:
        // (0.6, 0.8), (−7, 4)/√65, (1, −2)/√5. Σuuᵀ = [[0.36 + 49/65 + 0.2, 0.48 − 28/65 − 0.4],
        // [·, 0.64 + 16/65 + 0.8]] = [[1.313846, −0.350769], [·, 1.686154]], det = 2.092306,
        // trace of the inverse = 3/2.092306 = 1.433819; σ = 1: 1.5096·√(1.433819/2) = 1.27820.
        #expect(abs(estimate.accuracy - 1.27820) < 1e-4)
        let halfSigma = SolverFixture.observation(triangle, distances: [5, 65.0.squareRoot(), 45.0.squareRoot()],
                                                  sigmas: [0.5, 0.5, 0.5])
        #expect(abs((PowerCenter(venue: triangle).locate(halfSigma)?.accuracy ?? 0) - 0.63910) < 1e-4)
    }

    @Test func powerCenterAndSphereIntersectionOfInconsistentRanges() throws {
        // r = 5, 7, 6. PowerCenter: k1 = −12.5, k2 = (100 − 49)/2 = 25.5, k3 = (100 − 36)/2 = 32,
        // x = (−38)(−10)/100 = 3.8, y = [(−10)(25.5 − 32) − (−38)(10)]/100 = (65 + 380)/100 = 4.45.
        // SphereIntersection: d = 10, e_x = (1, 0), i = 0, e_y = (0, 1), j = 10,
        // x = (25 − 49 + 100)/20 = 3.8, y = (25 − 36 + 0 + 100)/20 − 0 = 4.45.
        let observation = SolverFixture.observation(triangle, distances: [5, 7, 6], sigmas: [1, 1, 1])
        for solver in [PowerCenter(venue: triangle) as any PositionSolver, SphereIntersection(venue: triangle)] {
            let estimate = try #require(solver.locate(observation))
            #expect(abs(estimate.point.x - 3.8) < 1e-12)
            #expect(abs(estimate.point.y - 4.45) < 1e-12)
            // The misfit adds to the geometry term: |(3.8, 4.45)| = 5.8517 vs 5, and so on.
            #expect(estimate.accuracy > 1.2)
        }
    }

    @Test func sphereIntersectionInARotatedFrame() throws {
        // A (2, 1), B (8, 9) (d = 10, e_x = (0.6, 0.8)), C (−2, 4); truth (3, 5):
        // r1 = √17, r2 = √41, r3 = √26. C − A = (−4, 3): i = −2.4 + 2.4 = 0, e_y = (−0.8, 0.6),
        // j = 3.2 + 1.8 = 5; x = (17 − 41 + 100)/20 = 3.8, y = (17 − 26 + 0 + 25)/10 = 1.6,
        // P = (2, 1) + 3.8·(0.6, 0.8) + 1.6·(−0.8, 0.6) = (2 + 2.28 − 1.28, 1 + 3.04 + 0.96) = (3, 5).
        let a = RangeCircle(x: 2, y: 1, radius: 17.0.squareRoot(), sigma: 1)
        let b = RangeCircle(x: 8, y: 9, radius: 41.0.squareRoot(), sigma: 1)
        let c = RangeCircle(x: -2, y: 4, radius: 26.0.squareRoot(), sigma: 1)
        let point = try #require(SphereIntersection.trilaterate(a, b, c))
        #expect(abs(point.x - 3) < 1e-12 && abs(point.y - 5) < 1e-12)
        let center = try #require(PowerCenter.radicalCenter(a, b, c))
        #expect(abs(center.x - 3) < 1e-12 && abs(center.y - 5) < 1e-12)
    }

    @Test func eptaOfExactRanges() throws {
        // Circle pairs meet at (3, 4) and at (3, −4) [A∩B], (−3, 4) [A∩C], (6, 7) [B∩C]; only
        // (3, 4) lies in all three circles (e.g. (6, 7) is √85 > 5 from A), found three times.
        let observation = SolverFixture.observation(triangle, distances: [5, 65.0.squareRoot(), 45.0.squareRoot()],
                                                    sigmas: [1, 1, 1])
        let estimate = try #require(EPTA(venue: triangle).locate(observation))
        #expect(abs(estimate.point.x - 3) < 1e-9)
        #expect(abs(estimate.point.y - 4) < 1e-9)
        let (p, q) = try #require(EPTA.intersections(RangeCircle(x: 0, y: 0, radius: 5, sigma: 1),
                                                     RangeCircle(x: 10, y: 0, radius: 65.0.squareRoot(), sigma: 1)))
        // along = (25 − 65 + 100)/20 = 3, half chord = √(25 − 9) = 4.
        #expect(abs(p.x - 3) < 1e-12 && abs(abs(p.y) - 4) < 1e-12 && abs(p.y + q.y) < 1e-12)
    }

    @Test func eptaGrowsRadiiUntilTheCirclesOverlap() throws {
        // Equilateral triangle of side 6: A (0, 0), B (6, 0), C (3, 3√3); circumcentre (3, √3) at
        // 2√3 = 3.464 from each. r = 3: A∩B touch at (3, 0), 5.196 from C: nothing kept.
        // r = 3.3: A∩B's inner point (3, √(3.3² − 9)) = (3, 1.375) is 3.821 > 3.3 from C.
        // r = 3.63: (3, √(13.177 − 9)) = (3, 2.044), 3.152 ≤ 3.63 from C: by symmetry three points,
        // centroid (3, √3), after two rounds (scale 1.21).
        let a = RangeCircle(x: 0, y: 0, radius: 3, sigma: 1)
        let b = RangeCircle(x: 6, y: 0, radius: 3, sigma: 1)
        let c = RangeCircle(x: 3, y: 27.0.squareRoot(), radius: 3, sigma: 1)
        let result = try #require(EPTA.centroid(a, b, c, tolerance: 0.01, growth: 1.1, maximumRounds: 100))
        #expect(abs(result.point.x - 3) < 1e-9)
        #expect(abs(result.point.y - 3.0.squareRoot()) < 1e-9)
        #expect(abs(result.scale - 1.21) < 1e-12)
        // No rounds allowed: nothing.
        #expect(EPTA.centroid(a, b, c, tolerance: 0.01, growth: 1.1, maximumRounds: 0) == nil)
    }

    @Test func degenerateTriplesGiveNothing() {
        let line = SolverFixture.venue([(0, 0), (5, 0), (10, 0), (20, 0)])
        let observation = SolverFixture.observation(line, distances: [3, 3, 7, 17], sigmas: [1, 1, 1, 1])
        let coincident = SolverFixture.venue([(1, 1), (1, 1), (1, 1)])
        let stacked = SolverFixture.observation(coincident, distances: [2, 2, 2], sigmas: [1, 1, 1])
        let two = SolverFixture.observation(triangle, distances: [5, 7], sigmas: [1, 1])
        let none = Observation(time: 0, signals: [], ranges: [])
        for solver in [PowerCenter(venue: line) as any PositionSolver, SphereIntersection(venue: line), EPTA(venue: line)] {
            #expect(solver.locate(observation) == nil, "\(solver.name) on collinear beacons")
        }
        for solver in [PowerCenter(venue: coincident) as any PositionSolver, SphereIntersection(venue: coincident), EPTA(venue: coincident)] {
            #expect(solver.locate(stacked) == nil, "\(solver.name) on coincident beacons")
        }
        for solver in [PowerCenter(venue: triangle) as any PositionSolver, SphereIntersection(venue: triangle), EPTA(venue: triangle)] {
            #expect(solver.locate(two) == nil, "\(solver.name) with two ranges")
            #expect(solver.locate(none) == nil, "\(solver.name) with none")
        }
    }

    @Test func theMostCertainWellShapedTripleIsUsed() throws {
        // Truth (3, 4). D (5, 0.5) is nearly on AB (height 0.5 over side 10 = 0.05 < 0.1), and E
        // (9, 9) carries a wrong range with a large σ: neither may be used, so the answer is exact.
        // Ranges: A 5, B √65, C √45, D √(4 + 12.25) = √16.25, E 20 (truth is √(36 + 25) = √61).
        let venue = SolverFixture.venue([(0, 0), (10, 0), (0, 10), (5, 0.5), (9, 9)])
        let observation = SolverFixture.observation(
            venue, distances: [5, 65.0.squareRoot(), 45.0.squareRoot(), (16.25).squareRoot(), 20],
            sigmas: [0.5, 0.4, 2, 0.3, 9])
        // The triple is B, C, D (σ sum 2.7). (EPTA is left out: D's small disc lies mostly inside
        // B's and C's, so the common region has a fourth vertex besides (3, 4) and EPTA's centroid
        // of the vertices is not the truth even with exact ranges.)
        for solver in [PowerCenter(venue: venue) as any PositionSolver, SphereIntersection(venue: venue)] {
            let estimate = try #require(solver.locate(observation))
            #expect(abs(estimate.point.x - 3) < 1e-9 && abs(estimate.point.y - 4) < 1e-9, "\(solver.name)")
        }
        // The triple A, B, D would be chosen were it well shaped (smallest σ sum 1.2): it is not.
        let a = RangeCircle(x: 0, y: 0, radius: 1, sigma: 1), b = RangeCircle(x: 10, y: 0, radius: 1, sigma: 1)
        #expect(!RangeGeometry.isWellShaped(a, b, RangeCircle(x: 5, y: 0.5, radius: 1, sigma: 1)))
        // Height 1.5 over longest side 10 is 0.15: well shaped.
        #expect(RangeGeometry.isWellShaped(a, b, RangeCircle(x: 5, y: 1.5, radius: 1, sigma: 1)))
    }

    @Test func onlyTheObservationsFloorCounts() throws {
        // A fourth, very certain beacon on floor 1 with a wrong range must be ignored on floor 0.
        let venue = SolverFixture.venue([SpatialPoint(x: 0, y: 0, z: 0), SpatialPoint(x: 10, y: 0, z: 0),
                                         SpatialPoint(x: 0, y: 10, z: 0), SpatialPoint(x: 10, y: 10, z: 0)],
                                        floors: [0, 0, 0, 1])
        let ranges = [5, 65.0.squareRoot(), 45.0.squareRoot(), 1]
        let onFloor = SolverFixture.observation(venue, distances: ranges, sigmas: [1, 1, 1, 0.01], floor: 0)
        let estimate = try #require(PowerCenter(venue: venue).locate(onFloor))
        #expect(abs(estimate.point.x - 3) < 1e-9 && abs(estimate.point.y - 4) < 1e-9)
        let upstairs = SolverFixture.observation(venue, distances: ranges, sigmas: [1, 1, 1, 0.01], floor: 1)
        #expect(PowerCenter(venue: venue).locate(upstairs) == nil)
    }

    @Test func farCentresAreRejectedAndNearOnesClamped() throws {
        // With these beacons x = (100 − r2² + r1²)/20 and y = (100 − r3² + r1²)/20.
        // r = 20, 1, 1: (24.95, 24.95), more than the margin 2 beyond the bounds −2…12: nil.
        let far = SolverFixture.observation(triangle, distances: [20, 1, 1], sigmas: [1, 1, 1])
        #expect(PowerCenter(venue: triangle).locate(far) == nil)
        #expect(SphereIntersection(venue: triangle).locate(far) == nil)
        // r = 12, 1, 12: x = (100 − 1 + 144)/20 = 12.15, y = (100 − 144 + 144)/20 = 5: clamped to (12, 5).
        let near = SolverFixture.observation(triangle, distances: [12, 1, 12], sigmas: [1, 1, 1])
        let estimate = try #require(PowerCenter(venue: triangle).locate(near))
        #expect(estimate.point.x == 12)
        #expect(abs(estimate.point.y - 5) < 1e-12)
    }

    @Test func planarDistancesAtTheReceiverHeight() throws {
        // Beacons 2 m up, heights known, receiver 1.2 m: Δz = 0.8. Truth (3, 4) on the plan:
        // 3-D ranges √(25 + 0.64), √(65 + 0.64), √(45 + 0.64) give back the planar radii 5, √65, √45.
        let venue = SolverFixture.venue([SpatialPoint(x: 0, y: 0, z: 2), SpatialPoint(x: 10, y: 0, z: 2),
                                         SpatialPoint(x: 0, y: 10, z: 2)], heights: true)
        #expect(venue.receiverHeight == 1.2)
        let observation = SolverFixture.observation(venue, distances: [(25.64).squareRoot(), (65.64).squareRoot(), (45.64).squareRoot()],
                                                    sigmas: [1, 1, 1])
        for solver in [PowerCenter(venue: venue) as any PositionSolver, SphereIntersection(venue: venue), EPTA(venue: venue)] {
            let estimate = try #require(solver.locate(observation))
            #expect(abs(estimate.point.x - 3) < 1e-9 && abs(estimate.point.y - 4) < 1e-9, "\(solver.name)")
            #expect(estimate.point.z == 1.2)
        }
    }
}
