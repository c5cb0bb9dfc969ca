import Foundation
import Testing
@testable import Whereabouts

@Suite("Place containment")
struct PlaceContainmentTests {
    private func circle(_ x: Double, _ y: Double, _ radius: Double) -> Venue.Place.Shape {
        .circle(center: PlanarPoint(x: x, y: y), radius: radius, coordinate: nil)
    }

    private func square(center: PlanarPoint, half: Double) -> [PlanarPoint] {
        [PlanarPoint(x: center.x - half, y: center.y - half), PlanarPoint(x: center.x + half, y: center.y - half),
         PlanarPoint(x: center.x + half, y: center.y + half), PlanarPoint(x: center.x - half, y: center.y + half)]
    }

    @Test func theAccuracyRadiusIsThe68PercentCircle() {
        // 1 − exp(−ρ²/2σ²) = 0.68 ⇔ ρ = σ √(−2 ln 0.32) = 1.50959 σ.
        #expect(abs(PlaceContainment.radius68 - 1.5095921854516634) < 1e-12)
        #expect(abs(PlaceContainment.standardDeviation(accuracy: 3) - 3 / 1.5095921854516634) < 1e-12)
        // A circle of the accuracy radius around the fix holds 68 % of it.
        let sigma = PlaceContainment.standardDeviation(accuracy: 2)
        #expect(abs(PlaceContainment.circleProbability(offset: 0, radius: 2, standardDeviation: sigma) - 0.68) < 1e-12)
    }

    @Test func circleAgainstHandComputedValues() {
        // At the centre: P = 1 − exp(−R²/2σ²); R = 2, σ = 1 → 1 − e⁻² = 0.8646647167633873.
        #expect(abs(PlaceContainment.circleProbability(offset: 0, radius: 2, standardDeviation: 1) - 0.8646647167633873) < 1e-13)
        // R = 3, σ = 2 → 1 − exp(−9/8) = 0.6753475326416503.
        #expect(abs(PlaceContainment.circleProbability(offset: 0, radius: 3, standardDeviation: 2) - 0.6753475326416503) < 1e-13)
        // Off centre, 1 − Q₁(d/σ, R/σ) (Marcum Q): Q₁(1, 1) = 0.7328798 → 0.2671202; these and
        // the next two by Simpson integration of the Rice density r·exp(−(r² + d²)/2)·I₀(r d) on [0, R].
        #expect(abs(PlaceContainment.circleProbability(offset: 1, radius: 1, standardDeviation: 1) - 0.26712019620) < 1e-9)
        #expect(abs(PlaceContainment.circleProbability(offset: 2, radius: 1, standardDeviation: 1) - 0.08189230363) < 1e-9)
        #expect(abs(PlaceContainment.circleProbability(offset: 1, radius: 2, standardDeviation: 1) - 0.73098793996) < 1e-9)
        // Scale invariance: only d/σ and R/σ count.
        #expect(abs(PlaceContainment.circleProbability(offset: 10, radius: 10, standardDeviation: 10) - 0.26712019620) < 1e-9)
        // Far away / deep inside, and a point fix.
        #expect(PlaceContainment.circleProbability(offset: 100, radius: 5, standardDeviation: 1) == 0)
        #expect(PlaceContainment.circleProbability(offset: 0, radius: 50, standardDeviation: 1) == 1)
        #expect(PlaceContainment.circleProbability(offset: 4.9, radius: 5, standardDeviation: 0) == 1)
        #expect(PlaceContainment.circleProbability(offset: 5.1, radius: 5, standardDeviation: 0) == 0)
        // A huge circle whose edge passes through the mean: almost a half-plane, P → 1/2.
        let edge = PlaceContainment.circleProbability(offset: 200, radius: 200, standardDeviation: 1)
        #expect(abs(edge - 0.5) < 0.005)
    }

    @Test func polygonAgainstHandComputedValues() {
        let origin = PlanarPoint(x: 0, y: 0)
        // A square of half-side a centred on the mean: P = erf(a / σ√2)²; a = σ = 1 →
        // erf(0.70711)² = 0.68268949² = 0.4660649426743922.
        let unit = PlaceContainment.polygonProbability(square(center: origin, half: 1), mean: origin, standardDeviation: 1)
        #expect(abs(unit - 0.4660649426743922) < 1e-9)
        // The same with a clockwise winding.
        let clockwise = PlaceContainment.polygonProbability(square(center: origin, half: 1).reversed(), mean: origin, standardDeviation: 1)
        #expect(abs(clockwise - 0.4660649426743922) < 1e-9)
        // A rectangle [−2, 2] × [−1, 1]: erf(2/√2)·erf(1/√2) = 0.95449974 × 0.68268949 = 0.6516269400855775.
        let rectangle = [PlanarPoint(x: -2, y: -1), PlanarPoint(x: 2, y: -1), PlanarPoint(x: 2, y: 1), PlanarPoint(x: -2, y: 1)]
        #expect(abs(PlaceContainment.polygonProbability(rectangle, mean: origin, standardDeviation: 1) - 0.6516269400855775) < 1e-9)
        // A large square with the mean on its edge: half the mass, 0.5 (the far edges add nothing).
        let halfPlane = [PlanarPoint(x: 0, y: -30), PlanarPoint(x: 30, y: -30), PlanarPoint(x: 30, y: 30), PlanarPoint(x: 0, y: 30)]
        #expect(abs(PlaceContainment.polygonProbability(halfPlane, mean: origin, standardDeviation: 1) - 0.5) < 1e-9)
        // The mean outside, one σ from a large square's edge: Φ(−1) = 0.15865525393145707.
        let beside = PlaceContainment.polygonProbability(halfPlane, mean: PlanarPoint(x: -1, y: 0), standardDeviation: 1)
        #expect(abs(beside - 0.15865525393145707) < 1e-9)
        // A point fix: inside or not.
        #expect(PlaceContainment.polygonProbability(rectangle, mean: PlanarPoint(x: 1.9, y: 0), standardDeviation: 0) == 1)
        #expect(PlaceContainment.polygonProbability(rectangle, mean: PlanarPoint(x: 2.1, y: 0), standardDeviation: 0) == 0)
    }

    @Test func aManySidedPolygonAgreesWithTheCircleFormula() {
        // A 720-gon inscribed in a circle of radius 3 around (1, 0), the mean at the origin, σ = 1.2.
        let vertices = (0..<720).map { k in
            let angle = Double(k) / 720 * 2 * .pi
            return PlanarPoint(x: 1 + 3 * cos(angle), y: 3 * sin(angle))
        }
        let polygon = PlaceContainment.polygonProbability(vertices, mean: PlanarPoint(x: 0, y: 0), standardDeviation: 1.2)
        let circle = PlaceContainment.circleProbability(offset: 1, radius: 3, standardDeviation: 1.2)
        // The polygon lacks the slivers between chords and arc: area π·9 − ½·720·9·sin(2π/720) ≈ 3.4e-4.
        #expect(polygon < circle && circle - polygon < 1e-4)
    }

    @Test func membershipsAndTheEstimateOfAFix() {
        // Two 6 × 5 rooms side by side (wall x = 6), a desk circle inside A, and a room upstairs.
        let venue = Venue(places: [
            Venue.Place(id: "A", floor: 0, shape: .polygon([PlanarPoint(x: 0, y: 0), PlanarPoint(x: 6, y: 0), PlanarPoint(x: 6, y: 5), PlanarPoint(x: 0, y: 5)])),
            Venue.Place(id: "B", floor: 0, shape: .polygon([PlanarPoint(x: 6, y: 0), PlanarPoint(x: 12, y: 0), PlanarPoint(x: 12, y: 5), PlanarPoint(x: 6, y: 5)])),
            Venue.Place(id: "desk", floor: 0, shape: circle(2, 2.5, 1)),
            Venue.Place(id: "upstairs", floor: 1, shape: .polygon([PlanarPoint(x: 0, y: 0), PlanarPoint(x: 12, y: 0), PlanarPoint(x: 12, y: 5), PlanarPoint(x: 0, y: 5)])),
            Venue.Place(id: "label"),
        ])
        let containment = PlaceContainment(venue: venue, rule: .majority)
        #expect(containment.places.map(\.id) == ["A", "B", "desk", "upstairs"])
        // By the majority rule: at the desk's centre with accuracy 1.5096 (σ = 1): desk
        // 1 − e^(−1/2) = 0.3935 < ½, A holds nearly all → A wins (the desk would need at least half).
        let atDesk = Fix(time: 0, point: SpatialPoint(x: 2, y: 2.5, z: 0), floor: 0, accuracy: PlaceContainment.radius68, method: "t")
        let memberships = containment.memberships(of: atDesk)
        #expect(memberships.map(\.place.id) == ["A", "desk"])
        #expect(abs(memberships[1].probability - (1 - exp(-0.5))) < 1e-9)
        #expect(containment.estimate(for: atDesk) == PlaceEstimate(place: "A", probability: memberships[0].probability))
        // A sharp fix at the desk: both hold it all; the smaller (the desk) wins.
        var sharp = atDesk
        sharp.accuracy = 0.1
        #expect(containment.estimate(for: sharp).place == "desk")
        // On the wall: A and B hold half each (up to the far edges), so A (first, equal area) wins with ~0.5.
        let onWall = Fix(time: 0, point: SpatialPoint(x: 6, y: 2.5, z: 0), floor: 0, accuracy: 0.3, method: "t")
        let split = containment.memberships(of: onWall)
        #expect(split.count == 2 && abs(split[0].probability - 0.5) < 1e-6 && abs(split[1].probability - 0.5) < 1e-6)
        // Upstairs only counts for a fix on floor 1; a fix far outside is in no place.
        let up = Fix(time: 0, point: SpatialPoint(x: 2, y: 2.5, z: 0), floor: 1, accuracy: 0.5, method: "t")
        #expect(containment.estimate(for: up).place == "upstairs")
        let away = Fix(time: 0, point: SpatialPoint(x: 50, y: 50, z: 0), floor: 0, accuracy: 1, method: "t")
        #expect(containment.estimate(for: away) == PlaceEstimate(place: nil, probability: 1))

        // The default rule: A holds what the desk does not, e^(−1/2) − (A's mass outside) — still
        // the most, so A, with that share; a sharp fix is the desk's; upstairs and away agree.
        let mostProbable = PlaceContainment(venue: venue)
        #expect(mostProbable.rule == .mostProbable)
        let atDeskEstimate = mostProbable.estimate(for: atDesk)
        #expect(atDeskEstimate.place == "A")
        #expect(abs(atDeskEstimate.probability - (memberships[0].probability - memberships[1].probability)) < 1e-3)
        #expect(mostProbable.estimate(for: sharp).place == "desk")
        #expect(mostProbable.estimate(for: up).place == "upstairs")
        #expect(mostProbable.estimate(for: away) == PlaceEstimate(place: nil, probability: 1))
        // The point rule: the smallest place containing the point, probability 1.
        let byPoint = PlaceContainment(venue: venue, rule: .point)
        #expect(byPoint.estimate(for: atDesk) == PlaceEstimate(place: "desk", probability: 1))
        #expect(byPoint.estimate(for: away) == PlaceEstimate(place: nil, probability: 1))
    }
}
