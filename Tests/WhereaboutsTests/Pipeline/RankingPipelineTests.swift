import Testing
@testable import Whereabouts

/// ``RankingPipeline``: per-device rankings, given out when what is shown changes.
@Suite struct RankingPipelineTests {
    static let places = [Venue.Place(id: "west", shape: .circle(center: PlanarPoint(x: 0, y: 0), radius: 1, coordinate: nil)),
                         Venue.Place(id: "middle", shape: .circle(center: PlanarPoint(x: 10, y: 0), radius: 1, coordinate: nil)),
                         Venue.Place(id: "east", shape: .circle(center: PlanarPoint(x: 20, y: 0), radius: 1, coordinate: nil))]

    private func fix(_ x: Double, _ device: String) -> Fix {
        Fix(time: 0, device: device, point: SpatialPoint(x: x, y: 0, z: 0), floor: 0, accuracy: 1, method: "test")
    }

    @Test func eachDeviceHasItsOwnOrder() {
        var rankings = RankingPipeline(places: Self.places)
        // a's first fix shows its order; distances to the edges: west −1, middle 9, east 19.
        let first = rankings.update(with: fix(0, "a"))
        #expect(first?.map(\.place.id) == ["west", "middle", "east"])
        #expect(first?.map(\.distance) == [-1, 9, 19])
        // b is somewhere else: an order of its own.
        #expect(rankings.update(with: fix(20, "b"))?.map(\.place.id) == ["east", "middle", "west"])
        // a moves a little: same order, nothing new.
        #expect(rankings.update(with: fix(1, "a")) == nil)
        // a crosses to the east.
        #expect(rankings.update(with: fix(18, "a"))?.map(\.place.id) == ["east", "middle", "west"])
        #expect(rankings.deviceCount == 2)
    }

    @Test func withATopAChangeBelowTheShownPlacesIsNoChange() {
        var rankings = RankingPipeline(places: Self.places, top: 1)
        #expect(rankings.update(with: fix(0, "a"))?.map(\.place.id) == ["west"])
        // At x = 4 the order is still west, middle, east; at x = 6 middle, west, east: the top changes.
        #expect(rankings.update(with: fix(4, "a")) == nil)
        #expect(rankings.update(with: fix(6, "a"))?.map(\.place.id) == ["middle"])
        // At x = 14 the order is middle, east, west: only below the top.
        #expect(rankings.update(with: fix(14, "a")) == nil)
        #expect(RankingPipeline(places: Self.places, top: 0).top == 1)
    }

    /// With a position timeout, a device silent that long shows the venue's order again, once;
    /// the others keep theirs; without one, time changes nothing.
    @Test func aSilentDeviceForgetsItsPositionAfterTheTimeout() {
        var rankings = RankingPipeline(places: Self.places, positionTimeout: 3)
        var east = fix(20, "a")
        east.time = 100
        var west = fix(0, "b")
        west.time = 101
        #expect(rankings.update(with: east)?.map(\.place.id) == ["east", "middle", "west"])
        #expect(rankings.update(with: west) != nil)
        #expect(rankings.nextDeadline == 103)
        #expect(rankings.advance(to: 102.9).isEmpty)
        let forgotten = rankings.advance(to: 103.5)
        #expect(forgotten.map(\.device) == ["a"] && forgotten.first?.time == 103)
        #expect(forgotten.first?.places.map(\.place.id) == ["west", "middle", "east"])
        #expect(forgotten.first?.places.allSatisfy { $0.distance == nil } == true)
        // b stays placed until 104, and its order was the venue's already: forgetting it changes
        // nothing shown. a is not forgotten twice.
        #expect(rankings.nextDeadline == 104)
        #expect(rankings.advance(to: 200).isEmpty)
        #expect(rankings.nextDeadline == nil)
        var keeping = RankingPipeline(places: Self.places)
        _ = keeping.update(with: east)
        #expect(keeping.advance(to: 1_000).isEmpty && keeping.nextDeadline == nil)
    }
}
