import Foundation
import Testing
import Whereabouts
import WhereaboutsFacades

// The seed's names, unqualified, as an app ported from it declares them.
typealias Hekaerge = HekaergeFacade.Hekaerge
typealias HekaergeLocation = HekaergeFacade.HekaergeLocation
typealias HekaergeDelegate = HekaergeFacade.HekaergeDelegate
typealias HekaergeError = HekaergeFacade.HekaergeError

/// Hekaerge's sample: its ten halls (hall7smaller inside hall7, hall8 and hall81 one above the
/// other), sorted from positions in and between them. The orders were worked out by hand from
/// the seed's rules with great-circle distances minus radii (metres, in brackets).
@Suite("Hekaerge sample")
struct HekaergeSampleTests {
    static let halls = [
        HekaergeLocation(id: "hall1", latitude: 41.353485, longitude: 2.129052, floor: 0, radius: 64),
        HekaergeLocation(id: "hall2", latitude: 41.354400, longitude: 2.129854, floor: 0, radius: 55),
        HekaergeLocation(id: "hall3", latitude: 41.355028, longitude: 2.131205, floor: 0, radius: 49),
        HekaergeLocation(id: "hall4", latitude: 41.354753, longitude: 2.13336, floor: 0, radius: 50),
        HekaergeLocation(id: "hall5", latitude: 41.356697, longitude: 2.132073, floor: 0, radius: 50),
        HekaergeLocation(id: "hall6", latitude: 41.355234, longitude: 2.134667, floor: 0, radius: 50),
        HekaergeLocation(id: "hall7", latitude: 41.357155, longitude: 2.133298, floor: 0, radius: 50),
        HekaergeLocation(id: "hall7smaller", latitude: 41.357155, longitude: 2.133298, floor: 0, radius: 40),
        HekaergeLocation(id: "hall8", latitude: 41.3559, longitude: 2.136817, floor: 0, radius: 105),
        HekaergeLocation(id: "hall81", latitude: 41.3559, longitude: 2.136817, floor: 1, radius: 105),
    ]
    static let inputOrder = halls.map(\.identifier)

    /// The sample's delegate: it records every order it is told.
    final class Delegate: HekaergeDelegate, @unchecked Sendable {
        let orders = Collected<[String]>()
        func didChangeLocation(_ locations: [HekaergeLocation]) { orders.append(locations.map(\.identifier)) }
    }

    @Test func theHallsSortAsTheSeedsRulesSay() async {
        let hekaerge = Hekaerge(locations: Self.halls)
        let delegate = Delegate()
        hekaerge.delegate = delegate
        // No position yet: the input order, and getDefaultLocations is always the input order.
        #expect(hekaerge.orderedLocations.map(\.identifier) == Self.inputOrder)
        #expect(hekaerge.defaultLocations.map(\.identifier) == Self.inputOrder)

        // At hall7's centre, floor 0: inside hall7smaller (−40) and hall7 (−50), same floor, so
        // the smaller first; then nearer first: hall5 (64.2), hall6 (192.2), hall4 (217.1), hall8
        // and hall81 at the same distance (220.2), the current floor's first, hall3 (245.0),
        // hall2 (365.1), hall1 (476.5).
        await hekaerge.update(coordinate: GeoCoordinate(latitude: 41.357155, longitude: 2.133298), floor: 0)
        #expect(hekaerge.orderedLocations.map(\.identifier)
                == ["hall7smaller", "hall7", "hall5", "hall6", "hall4", "hall8", "hall81", "hall3", "hall2", "hall1"])

        // At hall8's centre on floor 1: inside hall8 and hall81, on different floors, so the
        // current floor's first; then hall6 (144.1), hall4 (265.5), hall7 (275.2), hall7smaller
        // (285.2), hall5 (355.8), hall3 (429.3), hall2 (549.6), hall1 (637.5).
        await hekaerge.update(coordinate: GeoCoordinate(latitude: 41.3559, longitude: 2.136817), floor: 1)
        let fromHall8 = ["hall6", "hall4", "hall7", "hall7smaller", "hall5", "hall3", "hall2", "hall1"]
        #expect(hekaerge.orderedLocations.map(\.identifier) == ["hall81", "hall8"] + fromHall8)
        // The same spot on floor 0: hall8 first.
        await hekaerge.update(coordinate: GeoCoordinate(latitude: 41.3559, longitude: 2.136817), floor: 0)
        #expect(hekaerge.orderedLocations.map(\.identifier) == ["hall8", "hall81"] + fromHall8)

        // Half way between hall1 and hall2: just inside hall1 (−3.1), just outside hall2 (5.9).
        await hekaerge.update(coordinate: GeoCoordinate(latitude: 41.3539425, longitude: 2.129453), floor: 0)
        #expect(hekaerge.orderedLocations.map(\.identifier)
                == ["hall1", "hall2", "hall3", "hall4", "hall5", "hall6", "hall7", "hall7smaller", "hall8", "hall81"])

        // 44.5 m north of hall3's centre: inside hall3 (−4.5); hall2 (105.6) before hall5 (108.6).
        await hekaerge.update(coordinate: GeoCoordinate(latitude: 41.355428, longitude: 2.131205), floor: 0)
        #expect(hekaerge.orderedLocations.map(\.identifier)
                == ["hall3", "hall2", "hall5", "hall4", "hall7", "hall1", "hall7smaller", "hall6", "hall8", "hall81"])

        // The position becomes unknown: the input order again, and the delegate is told.
        await hekaerge.forgetPosition()
        #expect(hekaerge.orderedLocations.map(\.identifier) == Self.inputOrder)
        #expect(delegate.orders.values.count == 6)
        #expect(delegate.orders.values.last == Self.inputOrder)
    }

    /// The seed's own way: the position is the nearest beacon in range with a known location;
    /// when scanning stops the order is the input order again.
    @Test func theNearestBeaconInRangeSortsTheHalls() async throws {
        let origin = GeoCoordinate(latitude: 41.3555, longitude: 2.1325)
        let frame = LocalFrame(origin: origin)
        func beacon(_ id: String, at hall: HekaergeLocation, floor: Int) -> Venue.Beacon {
            let point = frame.planarPoint(for: hall.coordinate)
            return Venue.Beacon(id: id, x: point.x, y: point.y, floor: floor)
        }
        let venue = Venue(origin: Venue.Origin(latitude: origin.latitude, longitude: origin.longitude),
                          beacons: [beacon("b7", at: Self.halls[6], floor: 0), beacon("b81", at: Self.halls[9], floor: 1)])
        let hekaerge = try Hekaerge(locations: Self.halls, venue: venue)
        let delegate = Delegate()
        hekaerge.delegate = delegate
        // Two seconds near b7 (far from b81), then b81 immediate (at −50 dBm: 0.35 m away).
        let scans = [
            Scan(time: 0, readings: [Reading(beacon: .id("b7"), rssi: -62), Reading(beacon: .id("b81"), rssi: -90)]),
            Scan(time: 1, readings: [Reading(beacon: .id("b7"), rssi: -63)]),
            Scan(time: 2, readings: [Reading(beacon: .id("b81"), rssi: -50), Reading(beacon: .id("b7"), rssi: -85)]),
        ]
        try await hekaerge.startScanning(ScanSource(scans: scans))
        let orders = delegate.orders.values
        #expect(orders.first?.prefix(2) == ["hall7smaller", "hall7"])
        #expect(orders.dropLast().last?.prefix(2) == ["hall81", "hall8"])
        #expect(orders.last == Self.inputOrder)
        #expect(hekaerge.orderedLocations.map(\.identifier) == Self.inputOrder)

        // Live, the source staying open: a round with no beacon in range makes the position
        // unknown, so the delegate hears the input order a second after the round ends.
        let live = Delegate()
        hekaerge.delegate = live
        let clock = ManualClock()
        let feed = ScanFeed()
        let scanning = Task { try await hekaerge.startScanning(feed.paced(.live(clock))) }   // a live source: no clock argument
        feed.send(Scan(time: 50, readings: [Reading(beacon: .id("b7"), rssi: -62)]))
        try await feed.taken()
        await clock.advance(by: .seconds(1))
        try await LiveWait.until { live.orders.values.count == 1 }
        #expect(live.orders.values.first?.prefix(2) == ["hall7smaller", "hall7"])
        await clock.advance(by: .milliseconds(999))
        #expect(live.orders.values.count == 1)
        await clock.advance(by: .milliseconds(1))
        try await LiveWait.until { live.orders.values.count == 2 }
        #expect(live.orders.values.last == Self.inputOrder && hekaerge.orderedLocations.map(\.identifier) == Self.inputOrder)
        feed.finish()
        try await scanning.value
    }

    @Test func aVenueWithoutAnOriginIsRefused() {
        #expect(throws: HekaergeError.venueWithoutOrigin) { try Hekaerge(locations: Self.halls, venue: Venue()) }
    }
}
