import Foundation
import Testing
@testable import Whereabouts

/// The room belief: a fix's shares among the places (its spill past the outer walls left out),
/// time leaking the belief toward a room's neighbours, evidence weighing it — each checked
/// against hand-computed values on three rooms side by side.
@Suite("Place belief")
struct PlaceBeliefTests {
    /// Three 2 × 4 m rooms side by side: west and east touch the middle, not each other.
    let venue = Venue(beacons: [], places: ["west", "middle", "east"].enumerated().map { index, id in
        let x = Double(index) * 2
        return Venue.Place(id: id, shape: .polygon([PlanarPoint(x: x, y: 0), PlanarPoint(x: x + 2, y: 0),
                                                   PlanarPoint(x: x + 2, y: 4), PlanarPoint(x: x, y: 4)]))
    })

    func distribution(_ shares: [(String, Double)], none: Double) -> PlaceContainment.Distribution {
        PlaceContainment.Distribution(
            places: shares.compactMap { id, share in venue.places.first { $0.id == id }.map { .init(place: $0, probability: share) } },
            none: none)
    }

    func expectBelief(_ belief: PlaceBelief, _ expected: [String?: Double], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(Set(belief.probabilities.keys) == Set(expected.keys), sourceLocation: sourceLocation)
        for (state, probability) in expected {
            #expect(abs((belief.probabilities[state] ?? -1) - probability) < 1e-12, "\(state ?? "none")", sourceLocation: sourceLocation)
        }
    }

    @Test func neighboursAreRoomsWhoseOutlinesMeet() {
        let neighbours = PlaceBelief.neighbours(of: venue.places, within: 0.5)
        #expect(neighbours == ["west": ["middle"], "middle": ["west", "east"], "east": ["middle"]])
        // 2 m apart: west and east too.
        #expect(PlaceBelief.neighbours(of: venue.places, within: 2)["west"] == ["middle", "east"])
    }

    @Test func timeLeaksTowardNeighboursAndEvidenceWeighs() {
        var belief = PlaceBelief(venue: venue, configuration: .init(meanDwell: 10, evidenceExponent: 1, evidenceFloor: 0.02))
        #expect(belief.estimate == PlaceEstimate(place: nil, probability: 1, isBelief: true))
        // The first fix: its shares among the places (0.2 outside is the radius, not evidence).
        let first = belief.update(with: distribution([("west", 0.6), ("middle", 0.2)], none: 0.2), at: 100)
        #expect(first == PlaceEstimate(place: "west", probability: 0.75, isBelief: true))
        expectBelief(belief, ["west": 0.75, "middle": 0.25])
        // Ten seconds (one mean dwell): e⁻¹ stays; west's rest goes half to none, half to the
        // middle; the middle's a third each to none, west and east.
        belief.advance(to: 110)
        let stay = exp(-1.0)
        expectBelief(belief, ["west": 0.75 * stay + 0.25 * (1 - stay) / 3, "middle": 0.25 * stay + 0.75 * (1 - stay) / 2,
                              nil: 0.75 * (1 - stay) / 2 + 0.25 * (1 - stay) / 3, "east": 0.25 * (1 - stay) / 3])
        // A fix split between the middle and east: the others weighed by the floor, 0.02.
        let second = belief.update(with: distribution([("middle", 0.5), ("east", 0.5)], none: 0), at: 110)
        #expect(second.place == "middle" && abs(second.probability - 0.8095362955316852) < 1e-12)
        expectBelief(belief, ["west": 0.03233925198844627, "middle": 0.8095362955316852,
                              nil: 0.02851424552915662, "east": 0.12961020695071188])
    }

    @Test func aFixInNoPlaceIsEvidenceOfNone() {
        var belief = PlaceBelief(venue: venue, configuration: .init(meanDwell: 10, evidenceExponent: 1, evidenceFloor: 0.02))
        _ = belief.update(with: distribution([("west", 1)], none: 0), at: 0)
        // Outside every place (less than the floor in all of them): weighs west by 0.02, none by 1.
        let outside = belief.update(with: distribution([("west", 0.01)], none: 0.99), at: 10)
        let stay = exp(-1.0)
        let west = stay * 0.02, none = (1 - stay) / 2, middle = (1 - stay) / 2 * 0.02
        #expect(outside.place == nil && abs(outside.probability - none / (west + none + middle)) < 1e-12)
    }

    @Test func theStatesAreBoundedAndTimeNeverRunsBackward() {
        let places = (0..<100).map { Venue.Place(id: "p\($0)", shape: .circle(center: PlanarPoint(x: Double($0), y: 0), radius: 0.4, coordinate: nil)) }
        let wide = Venue(beacons: [], places: places)
        var belief = PlaceBelief(venue: wide, configuration: .init(maximumStates: 8))
        let spread = PlaceContainment.Distribution(places: places.map { .init(place: $0, probability: 0.01) }, none: 0)
        _ = belief.update(with: spread, at: 5)
        #expect(belief.probabilities.count == 8)
        #expect(abs(belief.probabilities.values.reduce(0, +) - 1) < 1e-12)
        let before = belief.probabilities
        belief.advance(to: 1)   // earlier: nothing moves
        #expect(belief.probabilities == before && belief.time == 5)
    }

    /// In a pipeline, each device (and each new track) has a belief of its own: one device's
    /// fixes in the east do not move another's out of the west.
    @Test func aPlaceSourceKeepsABeliefPerDeviceAndTrack() {
        var source = PlaceSource.containment(PlaceContainment(venue: venue), belief: PlaceBelief.Configuration(meanDwell: 5), venue: venue)
        #expect(source.needsFixes)
        func scan(_ time: Double, _ device: String, track: String? = nil) -> Scan { Scan(time: time, device: device, track: track, readings: []) }
        func fix(_ x: Double, accuracy: Double = 0.5) -> Fix {
            Fix(time: 0, point: SpatialPoint(x: x, y: 2, z: 0), floor: 0, accuracy: accuracy, method: "test")
        }
        for t in 0..<5 {
            let a = source.estimate(for: scan(Double(t), "a"), fix: fix(1))
            let b = source.estimate(for: scan(Double(t), "b"), fix: fix(5))
            #expect(a?.place == "west" && b?.place == "east")
        }
        // Without a fix, time passes and nothing is estimated.
        #expect(source.estimate(for: scan(5, "a"), fix: nil) == nil)
        // A fix in the middle room, spread wide over the three: b, a second on, still
        // believes in the east; a's new track starts afresh and takes the middle at once.
        let continued = source.estimate(for: scan(6, "b"), fix: fix(3, accuracy: 3))
        let fresh = source.estimate(for: scan(6, "a", track: "second"), fix: fix(3, accuracy: 3))
        #expect(continued?.place == "east" && fresh?.place == "middle", "\(String(describing: continued)) \(String(describing: fresh))")
    }
}
