import Foundation
import Testing
@testable import Whereabouts

/// The Hekaerge sample (its README's ten halls) ranked from positions whose orders were worked
/// out by hand from great-circle distances (haversine, R = 6 371 008.8 m) minus the radii.
@Suite("Place ranking (Hekaerge)")
struct PlaceRankingTests {
    static let frame = LocalFrame(origin: GeoCoordinate(latitude: 41.355, longitude: 2.132))

    /// (id, latitude, longitude, floor, radius), as in the seed's sample code.
    static let sample: [(String, Double, Double, Int, Double)] = [
        ("hall1", 41.353485, 2.129052, 0, 64),
        ("hall2", 41.354400, 2.129854, 0, 55),
        ("hall3", 41.355028, 2.131205, 0, 49),
        ("hall4", 41.354753, 2.13336, 0, 50),
        ("hall5", 41.356697, 2.132073, 0, 50),
        ("hall6", 41.355234, 2.134667, 0, 50),
        ("hall7", 41.357155, 2.133298, 0, 50),
        ("hall7smaller", 41.357155, 2.133298, 0, 40),
        ("hall8", 41.3559, 2.136817, 0, 105),
        ("hall81", 41.3559, 2.136817, 1, 105),
    ]

    static let places: [Venue.Place] = sample.map { id, latitude, longitude, floor, radius in
        let coordinate = GeoCoordinate(latitude: latitude, longitude: longitude)
        return Venue.Place(id: id, floor: floor,
                           shape: .circle(center: frame.planarPoint(for: coordinate), radius: radius, coordinate: coordinate))
    }

    static func position(_ latitude: Double, _ longitude: Double, floor: Int?) -> PlaceRanking.Position {
        PlaceRanking.Position(point: frame.planarPoint(for: GeoCoordinate(latitude: latitude, longitude: longitude)), floor: floor)
    }

    private func ids(_ ranking: PlaceRanking) -> [String] { ranking.orderedPlaces.map(\.id) }

    @Test func withoutAPositionTheOrderIsTheInputOrder() {
        let ranking = PlaceRanking(places: Self.places)
        #expect(ids(ranking) == Self.sample.map(\.0))
        #expect(ranking.rankedPlaces.allSatisfy { $0.distance == nil })
    }

    @Test func insideTwoPlacesOfTheSameFloorTheSmallerComesFirst() {
        // At hall 7's centre on floor 0: inside hall7 (0 − 50 = −50) and hall7smaller (0 − 40 = −40),
        // same floor → the smaller radius first, although hall7 is "nearer" (−50 < −40). Then by
        // distance: hall5 114.2 − 50 = 64.2, hall6 242.2 − 50 = 192.2, hall4 267.1 − 50 = 217.1,
        // hall8 and hall81 325.2 − 105 = 220.2 (a tie: floor 0 is the current floor, so hall8
        // first), hall3 294.0 − 49 = 245.0, hall2 420.1 − 55 = 365.1, hall1 540.5 − 64 = 476.5.
        var ranking = PlaceRanking(places: Self.places)
        let changed = ranking.update(position: Self.position(41.357155, 2.133298, floor: 0))
        #expect(changed)
        #expect(ids(ranking) == ["hall7smaller", "hall7", "hall5", "hall6", "hall4", "hall8", "hall81", "hall3", "hall2", "hall1"])
        let distances = ranking.rankedPlaces.compactMap(\.distance)
        #expect(abs(distances[0] + 40) < 1e-6 && abs(distances[1] + 50) < 1e-6)
        #expect(abs(distances[2] - 64.2) < 0.5)   // the ellipsoid's local frame against the haversine sphere: 0.2 %

        // The same spot with floor 1 current: hall7/hall7smaller are both on floor 0, so size still
        // decides; the hall8 / hall81 tie now puts hall81 (floor 1) first.
        ranking.update(position: Self.position(41.357155, 2.133298, floor: 1))
        #expect(ids(ranking) == ["hall7smaller", "hall7", "hall5", "hall6", "hall4", "hall81", "hall8", "hall3", "hall2", "hall1"])
    }

    @Test func insideTwoPlacesOfDifferentFloorsTheCurrentFloorComesFirst() {
        // At hall 8's centre: inside hall8 (floor 0) and hall81 (floor 1), both −105. Then hall6
        // 194.1 − 50 = 144.1, hall4 315.5 − 50 = 265.5, hall7 325.2 − 50 = 275.2, hall7smaller
        // 325.2 − 40 = 285.2, hall5 405.8 − 50 = 355.8, hall3 478.3 − 49 = 429.3, hall2
        // 604.6 − 55 = 549.6, hall1 701.5 − 64 = 637.5.
        let rest = ["hall6", "hall4", "hall7", "hall7smaller", "hall5", "hall3", "hall2", "hall1"]
        var ranking = PlaceRanking(places: Self.places)
        ranking.update(position: Self.position(41.3559, 2.136817, floor: 1))
        #expect(ids(ranking) == ["hall81", "hall8"] + rest)
        ranking.update(position: Self.position(41.3559, 2.136817, floor: 0))
        #expect(ids(ranking) == ["hall8", "hall81"] + rest)
        // No floor known: neither is on the current floor; equal sizes, equal distances → input order.
        ranking.update(position: Self.position(41.3559, 2.136817, floor: nil))
        #expect(ids(ranking) == ["hall8", "hall81"] + rest)
    }

    @Test func outsideEveryPlaceTheNearerComesFirst() {
        // Halfway between hall 1's and hall 2's centres: 60.9 m from each; hall1 60.9 − 64 = −3.1
        // (inside), hall2 60.9 − 55 = 5.9, hall3 189.6 − 49 = 140.6, hall4 338.3 − 50 = 288.3, hall5
        // 376.3 − 50 = 326.3, hall6 458.3 − 50 = 408.3, hall7 430.2, hall7smaller 440.2, hall8 and
        // hall81 547.0 (tie, floor 0 current → hall8 first).
        var ranking = PlaceRanking(places: Self.places)
        ranking.update(position: Self.position((41.353485 + 41.354400) / 2, (2.129052 + 2.129854) / 2, floor: 0))
        #expect(ids(ranking) == ["hall1", "hall2", "hall3", "hall4", "hall5", "hall6", "hall7", "hall7smaller", "hall8", "hall81"])
        #expect(ranking.rankedPlaces[0].isInside && !ranking.rankedPlaces[1].isInside)
    }

    /// With the venue's frame, circles given by latitude and longitude are ranked by great-circle
    /// distance, as the seed measured: each distance is the haversine distance minus the radius,
    /// also for places hundreds of kilometres away, where the plan's distances are off by kilometres.
    @Test func withTheFrameDistancesAreGreatCircleDistances() throws {
        let far: [(String, GeoCoordinate, Double)] = [
            ("paris", GeoCoordinate(latitude: 48.8566, longitude: 2.3522), 5_000),
            ("madrid", GeoCoordinate(latitude: 40.4168, longitude: -3.7038), 5_000),
            ("hall1", GeoCoordinate(latitude: 41.353485, longitude: 2.129052), 64),
        ]
        let places = far.map { id, coordinate, radius in Venue.Place(id: id, coordinate: coordinate, radius: radius, in: Self.frame) }
        let here = GeoCoordinate(latitude: 45.0, longitude: 0.5)
        var ranking = PlaceRanking(places: places, frame: Self.frame)
        ranking.update(position: .init(point: Self.frame.planarPoint(for: here), floor: 0))
        let back = Self.frame.coordinate(for: Self.frame.planarPoint(for: here))
        for ranked in ranking.rankedPlaces {
            let (_, centre, radius) = try #require(far.first { $0.0 == ranked.place.id })
            let expected = back.distance(to: centre) - radius
            #expect(abs((ranked.distance ?? .nan) - expected) < 1e-6, "\(ranked.place.id)")
        }
        // 45° N 0.5° E: hall 1 (Barcelona) 426.4 km, Paris 451.3 km, Madrid 614.4 km away.
        #expect(ids(ranking) == ["hall1", "paris", "madrid"])
        var planar = PlaceRanking(places: places)
        planar.update(position: .init(point: Self.frame.planarPoint(for: here), floor: 0))
        let gap = zip(planar.rankedPlaces.sorted { $0.place.id < $1.place.id }, ranking.rankedPlaces.sorted { $0.place.id < $1.place.id })
            .map { abs(($0.distance ?? 0) - ($1.distance ?? 0)) }.max() ?? 0
        #expect(gap > 1_000, "the plan's distances should differ by kilometres at this range (\(gap) m)")
    }

    @Test func reSortingInPlaceGivesTheSameOrderAsAFreshSort() {
        // The order is a total order, so re-sorting the previous order gives what a fresh ranking gives.
        var moving = PlaceRanking(places: Self.places)
        var random = SeededRandom(seed: 3)
        for step in 0..<200 {
            // Now and then the position is lost (back to the input order) and found again.
            if step % 50 == 25 { moving.update(position: nil) }
            let position = PlaceRanking.Position(point: PlanarPoint(x: -400 + 900 * random.nextUniform(),
                                                                    y: -250 + 500 * random.nextUniform()),
                                                 floor: random.nextUniform() < 0.5 ? 0 : 1)
            moving.update(position: position)
            var fresh = PlaceRanking(places: Self.places)
            fresh.update(position: position)
            #expect(moving.orderedIndices == fresh.orderedIndices)
        }
    }

    @Test func updateReportsOnlyRealChanges() {
        var ranking = PlaceRanking(places: Self.places)
        var changed = ranking.update(position: nil)                                  // unknown → unknown
        #expect(!changed)
        changed = ranking.update(position: Self.position(41.357155, 2.133298, floor: 0))  // known: a change
        #expect(changed)
        changed = ranking.update(position: Self.position(41.357155, 2.133298, floor: 0))
        #expect(!changed)
        changed = ranking.update(position: Self.position(41.357160, 2.133300, floor: 0))   // a metre away, same order
        #expect(!changed)
        changed = ranking.update(position: Self.position(41.3559, 2.136817, floor: 1))    // a new order
        #expect(changed)
        changed = ranking.update(position: nil)                                           // known → unknown
        #expect(changed)
        #expect(ids(ranking) == Self.sample.map(\.0))
        // A position whose order happens to be the input order still reports the state change.
        let inOrder = [Venue.Place(id: "near", shape: .circle(center: PlanarPoint(x: 0, y: 0), radius: 1, coordinate: nil)),
                       Venue.Place(id: "far", shape: .circle(center: PlanarPoint(x: 10, y: 0), radius: 1, coordinate: nil))]
        var simple = PlaceRanking(places: inOrder)
        changed = simple.update(position: .init(point: PlanarPoint(x: 0, y: 0), floor: 0))
        #expect(changed)
    }

    @Test func polygonsRankByTheDistanceToTheirEdge() {
        let square = Venue.Place(id: "square", shape: .polygon([PlanarPoint(x: 0, y: 0), PlanarPoint(x: 10, y: 0),
                                                                PlanarPoint(x: 10, y: 10), PlanarPoint(x: 0, y: 10)]))
        let disc = Venue.Place(id: "disc", shape: .circle(center: PlanarPoint(x: 20, y: 5), radius: 4, coordinate: nil))
        let label = Venue.Place(id: "label")
        // Inside the square at (5, 5): 5 from every edge → −5.
        #expect(square.shape.signedDistance(from: PlanarPoint(x: 5, y: 5)) == -5)
        // Beside it at (13, 5): 3 from the edge x = 10. Past a corner at (13, 14): √(3² + 4²) = 5.
        #expect(square.shape.signedDistance(from: PlanarPoint(x: 13, y: 5)) == 3)
        #expect(square.shape.signedDistance(from: PlanarPoint(x: 13, y: 14)) == 5)
        var ranking = PlaceRanking(places: [label, disc, square])
        // From (13, 5): square 3, disc |13 − 20| − 4 = 3 → a tie, both on the current floor → input
        // order (disc before square); the label (no geometry) last.
        ranking.update(position: .init(point: PlanarPoint(x: 13, y: 5), floor: 0))
        #expect(ids(ranking) == ["disc", "square", "label"])
        // From (12, 5): square 2, disc 8 − 4 = 4.
        ranking.update(position: .init(point: PlanarPoint(x: 12, y: 5), floor: 0))
        #expect(ids(ranking) == ["square", "disc", "label"])
    }

    @Test func withoutAFixThePositionIsTheNearestKnownBeaconByProximity() {
        let at7 = Self.frame.planarPoint(for: GeoCoordinate(latitude: 41.357155, longitude: 2.133298))
        let at3 = Self.frame.planarPoint(for: GeoCoordinate(latitude: 41.355028, longitude: 2.131205))
        let venue = Venue(beacons: [Venue.Beacon(id: "b7", x: at7.x, y: at7.y, floor: 0),
                                    Venue.Beacon(id: "b3", x: at3.x, y: at3.y, floor: 0),
                                    Venue.Beacon(id: "nowhere")],   // no position: never the reference
                          places: Self.places)
        // b7 near and loud, b3 immediate but quieter: proximity decides → b3, at hall 3's centre.
        let sightings = [PlaceRanking.HeardBeacon(beacon: .id("b7"), proximity: .near, rssi: -50),
                         PlaceRanking.HeardBeacon(beacon: .id("nowhere"), proximity: .immediate, rssi: -40),
                         PlaceRanking.HeardBeacon(beacon: .id("b3"), proximity: .immediate, rssi: -60),
                         PlaceRanking.HeardBeacon(beacon: .id("unknown"), proximity: .immediate, rssi: -30)]
        let position = PlaceRanking.position(nearestOf: sightings, in: venue)
        #expect(position == .init(point: at3, floor: 0))
        var ranking = PlaceRanking(places: Self.places)
        ranking.update(position: position)
        // From hall 3's centre: hall3 −49, hall2 77.6, hall4 132.5, hall5 149.2, hall1 184.5, hall6
        // 239.9, hall7 244.0, hall7smaller 254.0, hall8 / hall81 373.3.
        #expect(ids(ranking) == ["hall3", "hall2", "hall4", "hall5", "hall1", "hall6", "hall7", "hall7smaller", "hall8", "hall81"])
        // The same proximity: the stronger RSSI wins. No beacon with a position: no position.
        let tie = [PlaceRanking.HeardBeacon(beacon: .id("b3"), proximity: .near, rssi: -70),
                   PlaceRanking.HeardBeacon(beacon: .id("b7"), proximity: .near, rssi: -65)]
        #expect(PlaceRanking.position(nearestOf: tie, in: venue)?.point == at7)
        #expect(PlaceRanking.position(nearestOf: [sightings[1], sightings[3]], in: venue) == nil)
    }

    @Test func theRankerNotifiesItsHandlerAndItsStreamOnlyOnChanges() async {
        let ranker = PlaceRanker(places: Self.places)
        let seen = Collected<[String]>()
        await ranker.setChangeHandler { update in seen.append(update.places.map(\.place.id)) }
        let stream = await ranker.updates()
        #expect(await ranker.orderedPlaces.map(\.id) == Self.sample.map(\.0))
        await ranker.update(position: Self.position(41.357155, 2.133298, floor: 0))
        await ranker.update(position: Self.position(41.357155, 2.133298, floor: 0))   // no change: no notification
        await ranker.update(position: Self.position(41.3559, 2.136817, floor: 1))
        await ranker.update(position: nil)                                           // position lost: a notification
        let values = seen.values
        #expect(values.count == 3)
        #expect(values.first?.prefix(2) == ["hall7smaller", "hall7"])
        #expect(values.dropFirst().first?.prefix(2) == ["hall81", "hall8"])
        #expect(values.last == Self.sample.map(\.0))
        var iterator = stream.makeAsyncIterator()
        var streamed: [PlaceRanker.Update] = []
        for _ in 0..<3 { if let update = await iterator.next() { streamed.append(update) } }
        #expect(streamed.map { $0.places.map(\.place.id) } == values)
        #expect(streamed.last?.position == nil && streamed.first?.position != nil)
    }
}

/// A thread-safe list that `@Sendable` callbacks append to.
final class Collected<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Value] = []

    func append(_ value: Value) { lock.withLock { storage.append(value) } }
    var values: [Value] { lock.withLock { storage } }
}
