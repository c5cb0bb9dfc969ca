import Foundation
import Testing
@testable import Whereabouts

/// The place of an uncertain fix: the Gaussian shared among the places, the most probable place,
/// the nearest-place fallback, and the bounds.
@Suite("Place of an uncertain fix")
struct PlaceDistributionTests {
    private func rectangle(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> Venue.Place.Shape {
        .polygon([PlanarPoint(x: x0, y: y0), PlanarPoint(x: x1, y: y0), PlanarPoint(x: x1, y: y1), PlanarPoint(x: x0, y: y1)])
    }

    private func circle(_ x: Double, _ y: Double, _ radius: Double) -> Venue.Place.Shape {
        .circle(center: PlanarPoint(x: x, y: y), radius: radius, coordinate: nil)
    }

    /// A fix whose per-axis standard deviation is `sigma`.
    private func fix(_ x: Double, _ y: Double, sigma: Double, floor: Int? = 0) -> Fix {
        Fix(time: 0, point: SpatialPoint(x: x, y: y, z: 0), floor: floor, accuracy: sigma * PlaceContainment.radius68, method: "t")
    }

    /// Two 6 × 5 rooms sharing the wall x = 6.
    private let twoRooms = [Venue.Place(id: "A", floor: 0, shape: .polygon([PlanarPoint(x: 0, y: 0), PlanarPoint(x: 6, y: 0),
                                                                             PlanarPoint(x: 6, y: 5), PlanarPoint(x: 0, y: 5)])),
                            Venue.Place(id: "B", floor: 0, shape: .polygon([PlanarPoint(x: 6, y: 0), PlanarPoint(x: 12, y: 0),
                                                                             PlanarPoint(x: 12, y: 5), PlanarPoint(x: 6, y: 5)]))]

    @Test func aSharpFixAtTheCentreOfABigRoomIsAllInIt() {
        // A 20 × 20 room, σ = 0.5: erf(10 / (0.5 √2))² = 1 − 2·10⁻⁸⁹, i.e. 1.
        let containment = PlaceContainment(places: [Venue.Place(id: "hall", floor: 0, shape: rectangle(-10, -10, 10, 10))])
        let distribution = containment.distribution(of: fix(0, 0, sigma: 0.5))
        #expect(distribution.places.map(\.place.id) == ["hall"])
        #expect(abs(distribution.places[0].probability - 1) < 1e-12)
        #expect(distribution.none < 1e-12)
        #expect(containment.estimate(for: fix(0, 0, sigma: 0.5)).place == "hall")
    }

    @Test func aFixOnTheWallBetweenTwoEqualRoomsIsHalfInEach() {
        let containment = PlaceContainment(places: twoRooms)
        // σ = 0.3 on the wall, 2.5 from the outer walls (8 σ): half each, up to 10⁻¹⁵ of rounding.
        let onWall = fix(6, 2.5, sigma: 0.3)
        let distribution = containment.distribution(of: onWall)
        #expect(distribution.places.count == 2)
        for share in distribution.places { #expect(abs(share.probability - 0.5) < 1e-9, "\(share)") }
        // A tie: the smaller place, and between equal areas the first of the venue.
        let placement = containment.placement(of: onWall)
        #expect(placement.place?.id == "A" && abs(placement.probability - 0.5) < 1e-9 && !placement.isNearest)
        // Either side of the wall by one σ: Φ(1) = 0.8413447460685429 on that side.
        let east = containment.distribution(of: fix(6.3, 2.5, sigma: 0.3))
        #expect(east.places.first?.place.id == "B")
        #expect(abs((east.places.first?.probability ?? 0) - 0.8413447460685429) < 1e-4)
        #expect(abs(east.total - 1) < 1e-9)
    }

    @Test func aCircleCentredOnTheFixHoldsOneMinusExpOfMinusRSquaredOverTwoSigmaSquared() {
        // Every ray leaves the circle at R: exact up to rounding.
        for (radius, sigma) in [(2.0, 1.0), (3.0, 2.0), (1.0, 1.5), (0.2, 4.0)] {
            let containment = PlaceContainment(places: [Venue.Place(id: "c", floor: 0, shape: circle(5, -3, radius))])
            let mass = containment.distribution(of: fix(5, -3, sigma: sigma)).places.first?.probability ?? 0
            let closedForm = 1 - exp(-radius * radius / (2 * sigma * sigma))
            #expect(abs(mass - closedForm) < 1e-12, "R \(radius), σ \(sigma): \(mass) vs \(closedForm)")
        }
    }

    @Test func offCentreTheRaysAgreeWithTheClosedFormsOfOnePlace() {
        // Circles off the fix (Marcum Q), polygons around and beside it (edge quadrature): the
        // 128 rays' midpoint rule, within 10⁻³ in every case (the worst of these is 3.6·10⁻⁴).
        var worst = 0.0
        for (offset, radius, sigma) in [(1.0, 1.0, 1.0), (2.0, 1.0, 1.0), (1.0, 2.0, 1.0), (3.0, 0.5, 1.2), (0.4, 3.0, 2.0), (6.0, 5.0, 1.0)] {
            let containment = PlaceContainment(places: [Venue.Place(id: "c", floor: 0, shape: circle(offset, 0, radius))])
            let mass = containment.distribution(of: fix(0, 0, sigma: sigma)).places.first?.probability ?? 0
            let exact = PlaceContainment.circleProbability(offset: offset, radius: radius, standardDeviation: sigma)
            worst = max(worst, abs(mass - exact))
        }
        let triangle: Venue.Place.Shape = .polygon([PlanarPoint(x: -1, y: -2), PlanarPoint(x: 4, y: 0.5), PlanarPoint(x: 0.5, y: 3)])
        for (shape, x, y, sigma) in [(rectangle(-2, -1, 2, 1), 0.0, 0.0, 1.0), (rectangle(-2, -1, 2, 1), 1.7, 0.4, 0.8),
                                     (rectangle(0, 0, 6, 5), -0.5, 2.0, 1.5), (triangle, 0.5, 0.5, 1.0), (triangle, 5.0, 3.0, 2.0)] {
            let containment = PlaceContainment(places: [Venue.Place(id: "p", floor: 0, shape: shape)])
            let mass = containment.distribution(of: fix(x, y, sigma: sigma)).places.first?.probability ?? 0
            guard case .polygon(let vertices) = shape else { continue }
            let exact = PlaceContainment.polygonProbability(vertices, mean: PlanarPoint(x: x, y: y), standardDeviation: sigma)
            worst = max(worst, abs(mass - exact))
        }
        #expect(worst < 1e-3, "worst difference \(worst)")
    }

    @Test func aFixJustOutsideARoomWhoseRadiusSpansIntoItGetsTheRoom() {
        // 0.4 m outside room A's west wall (x = 0), accuracy 2 m: about 42 % in A, the rest outside.
        let containment = PlaceContainment(places: twoRooms)
        let outside = Fix(time: 0, point: SpatialPoint(x: -0.4, y: 2.5, z: 0), floor: 0, accuracy: 2, method: "t")
        let placement = containment.placement(of: outside)
        #expect(placement.place?.id == "A" && !placement.isNearest)
        #expect(placement.probability > 0.3 && placement.probability < 0.5, "\(placement.probability)")
        // The point alone is in no place, and the old rule (at least half) agrees.
        #expect(PlaceContainment(places: twoRooms, rule: .point).estimate(for: outside).place == nil)
        #expect(PlaceContainment(places: twoRooms, rule: .majority).estimate(for: outside).place == nil)
        // The monitor's estimate carries the mass, so that hysteresis can hold such a vote back.
        #expect(containment.estimate(for: outside) == PlaceEstimate(place: "A", probability: placement.probability))
    }

    @Test func nearAWallThePointFlipsButTheMassDoesNot() {
        // 0.1 m into B, accuracy 3 m: the point says B; the mass is nearly split, B just ahead.
        let containment = PlaceContainment(places: twoRooms)
        let nearWall = Fix(time: 0, point: SpatialPoint(x: 6.1, y: 2.5, z: 0), floor: 0, accuracy: 3, method: "t")
        let distribution = containment.distribution(of: nearWall)
        #expect(distribution.places.map(\.place.id) == ["B", "A"])
        #expect(abs(distribution.places[0].probability - distribution.places[1].probability) < 0.1)
    }

    @Test func eachPointCountsForTheSmallestPlaceContainingIt() {
        // A desk (radius 1) inside a hall: the desk holds 1 − e^(−1/2) of a fix at its centre with
        // σ = 1, and the hall the rest of what falls in it.
        let places = [Venue.Place(id: "hall", floor: 0, shape: rectangle(-10, -10, 10, 10)),
                      Venue.Place(id: "desk", floor: 0, shape: circle(0, 0, 1))]
        let containment = PlaceContainment(places: places)
        let distribution = containment.distribution(of: fix(0, 0, sigma: 1))
        let desk = distribution.places.first { $0.place.id == "desk" }?.probability ?? 0
        let hall = distribution.places.first { $0.place.id == "hall" }?.probability ?? 0
        #expect(abs(desk - (1 - exp(-0.5))) < 1e-12)
        #expect(abs(hall - exp(-0.5)) < 1e-9)
        #expect(containment.estimate(for: fix(0, 0, sigma: 1)).place == "hall")
        // A sharp fix at the desk: the desk.
        #expect(containment.estimate(for: fix(0, 0, sigma: 0.2)).place == "desk")
        // A fix with accuracy 0 is a point: the smallest place containing it, all of it.
        let point = containment.distribution(of: fix(0.5, 0, sigma: 0))
        #expect(point.places.map(\.place.id) == ["desk"] && point.places[0].probability == 1 && point.none == 0)
    }

    @Test func placesOfOtherFloorsHoldNothing() {
        let places = twoRooms + [Venue.Place(id: "up", floor: 1, shape: rectangle(0, 0, 12, 5))]
        let containment = PlaceContainment(places: places)
        #expect(containment.estimate(for: fix(3, 2.5, sigma: 0.5, floor: 1)).place == "up")
        #expect(containment.estimate(for: fix(3, 2.5, sigma: 0.5, floor: 0)).place == "A")
    }

    @Test func farFromEveryPlaceTheNearestWithinReachIsTaken() {
        // A small circle (radius 0.3) 2.9 m from a fix with accuracy 3 m holds about 0.4 % of it,
        // less than the 1 % needed: the nearest place (2.6 m away, within the 3 m radius) is taken.
        let places = [Venue.Place(id: "spot", floor: 0, shape: circle(2.9, 0, 0.3)),
                      Venue.Place(id: "far", floor: 0, shape: circle(0, 9, 0.5))]
        let containment = PlaceContainment(places: places)
        let atOrigin = Fix(time: 0, point: SpatialPoint(x: 0, y: 0, z: 0), floor: 0, accuracy: 3, method: "t")
        let distribution = containment.distribution(of: atOrigin)
        #expect(distribution.total > 0 && distribution.total < 0.01, "\(distribution.total)")
        let placement = containment.placement(of: atOrigin)
        #expect(placement.place?.id == "spot" && placement.isNearest)
        #expect(placement.probability == distribution.places.first { $0.place.id == "spot" }?.probability)
        // A reach of 2 m is too short; a sharper fix (accuracy 2 m) reaches 2 m: no place either.
        #expect(PlaceContainment(places: places, fallbackDistance: 2).placement(of: atOrigin).place == nil)
        var sharper = atOrigin
        sharper.accuracy = 2
        let none = containment.placement(of: sharper)
        #expect(none.place == nil && !none.isNearest && none.probability > 0.99)
        // Ties go to the smaller place; and the other rules never fall back.
        #expect(PlaceContainment(places: places, rule: .point).placement(of: atOrigin).place == nil)
    }

    @Test func aHugeRadiusAndThousandsOfPlacesStayFastAndFinite() {
        // 4,900 rooms of 2 × 2 m on a 70 × 70 grid.
        var places: [Venue.Place] = []
        for i in 0..<70 {
            for j in 0..<70 {
                let x = Double(i) * 2, y = Double(j) * 2
                places.append(Venue.Place(id: "r\(i)-\(j)", floor: 0, shape: rectangle(x, y, x + 2, y + 2)))
            }
        }
        let containment = PlaceContainment(places: places)
        let clock = ContinuousClock()
        var estimates: [PlaceEstimate] = []
        let elapsed = clock.measure {
            for accuracy in [1e9, 1e4, 70, 3, 0.5, .infinity, .nan, 0] {
                let fix = Fix(time: 0, point: SpatialPoint(x: 70.3, y: 69.1, z: 0), floor: 0, accuracy: accuracy, method: "t")
                let distribution = containment.distribution(of: fix)
                #expect(distribution.places.count <= containment.maximumCandidates)
                #expect(distribution.places.allSatisfy { $0.probability.isFinite && $0.probability >= 0 && $0.probability <= 1 })
                #expect(distribution.none.isFinite && abs(distribution.total + distribution.none - 1) < 1e-9)
                estimates.append(containment.estimate(for: fix))
            }
        }
        #expect(estimates.allSatisfy { $0.probability.isFinite })
        // A sharp fix is in its room; a huge radius puts a little of it in the nearest rooms, and
        // the nearest room is taken (the point's own).
        #expect(estimates[4].place == "r35-34")
        #expect(estimates[0].place == "r35-34" && estimates[0].probability < 1e-12)
        // Eight fixes over 4,900 places, in a debug build: well under a second.
        #expect(elapsed < .seconds(1), "\(elapsed)")
        // The tiny mass of a huge radius is computed without cancellation: a 2 × 2 room centred on
        // a fix with σ = 10⁸ holds erf(1/(σ√2))² ≈ 2/(π σ²) = 6.366·10⁻¹⁷ of it.
        let room = PlaceContainment(places: [Venue.Place(id: "room", floor: 0, shape: rectangle(-1, -1, 1, 1))])
        let tiny = room.distribution(of: fix(0, 0, sigma: 1e8)).places.first?.probability ?? 0
        #expect(abs(tiny / (2 / (Double.pi * 1e16)) - 1) < 1e-3, "\(tiny)")
        // A point far out, and a non-finite one, are in no place.
        let nowhere = Fix(time: 0, point: SpatialPoint(x: .nan, y: 0, z: 0), floor: 0, accuracy: 3, method: "t")
        #expect(containment.estimate(for: nowhere).place == nil)
    }

    @Test func theCandidatesAreBoundedToTheNearest() {
        // Thousands of places overlapping the fix's reach, but only maximumCandidates share it.
        var places: [Venue.Place] = []
        for k in 0..<3000 { places.append(Venue.Place(id: "c\(k)", floor: 0, shape: circle(Double(k % 60), Double(k / 60), 0.4))) }
        var containment = PlaceContainment(places: places)
        containment.maximumCandidates = 16
        let distribution = containment.distribution(of: fix(30, 25, sigma: 40))
        #expect(distribution.places.count == 16)
        #expect(distribution.places.contains { $0.place.id == "c1530" })
    }
}
