import Foundation
import Testing
@testable import Whereabouts

@Suite("Ranging rounds")
struct BeaconRangerTests {
    static let identity = IBeaconIdentity(uuid: UUID(uuidString: "01234567-89AB-CDEF-0123-456789ABCDEF")!, major: 3, minor: 9)
    static let venue = Venue(defaults: Venue.Defaults(txPower: -60, pathLossExponent: 2),
                             beacons: [Venue.Beacon(id: "a", iBeacon: identity, x: 0, y: 0, txPower: -50, pathLossExponent: 3)])

    /// A round closes when a scan comes a full interval after its first one; each beacon's RSSI
    /// is the mean of the round's readings; distances: 10^((txPower − rssi)/(10 n)).
    @Test func roundsAverageTheirReadingsAndClassifyTheirDistances() throws {
        var ranger = BeaconRanger(venue: Self.venue)
        #expect(ranger.add(Scan(time: 0, readings: [Reading(beacon: .id("a"), rssi: -56), Reading(beacon: .id("z"), rssi: -80)])).isEmpty)
        #expect(ranger.add(Scan(time: 0.6, readings: [Reading(beacon: .id("a"), rssi: -62)])).isEmpty)
        let rounds = ranger.add(Scan(time: 1.0, readings: [Reading(beacon: .id("z"), rssi: 0)]))   // invalid: not heard
        let round = try #require(rounds.first)
        #expect(rounds.count == 1 && round.count == 2)
        // "a": mean −59 dBm with its own −50 and n = 3 → 10^(9/30) = 1.995 m, near; identity from the venue.
        #expect(round[0].beacon == .id("a") && round[0].rssi == -59 && round[0].identity == Self.identity)
        #expect(abs((round[0].distance ?? 0) - pow(10, 0.3)) < 1e-12 && round[0].proximity == .near)
        // "z" is unknown to the venue: −80 dBm with the venue's default −60 and n = 2 → 10 m, far.
        #expect(abs((round[1].distance ?? 0) - 10) < 1e-9 && round[1].proximity == .far && round[1].identity == nil)
        #expect(round.allSatisfy { $0.time == 0.6 })
        // The open round (the scan at 1.0 heard nothing valid) closes empty at the end.
        #expect(ranger.finish() == [])
        #expect(ranger.finish() == nil)
    }

    /// A reported distance (CoreLocation's accuracy) wins over the RSSI's; an interval of 0 makes
    /// every scan its own round.
    @Test func aReportedDistanceIsUsedAsItIs() {
        var ranger = BeaconRanger(interval: 0)
        let rounds = ranger.add(Scan(time: 3, readings: [Reading(beacon: .iBeacon(Self.identity), rssi: -90, distance: 0.3)]))
        #expect(rounds.count == 1 && rounds[0].first?.distance == 0.3 && rounds[0].first?.proximity == .immediate)
        #expect(rounds[0].first?.identity == Self.identity)
    }

    /// The locator takes a reading's own distance as the beacon's range.
    @Test func theLocatorRangesWithAReportedDistance() {
        let venue = PositioningVenue(Venue(beacons: [Venue.Beacon(id: "a", x: 0, y: 0), Venue.Beacon(id: "b", x: 10, y: 0)]))
        var locator = Locator(venue: venue, solver: WeightedCentroid(venue: venue),
                              configuration: LocatorConfiguration(filter: nil, floorSelection: nil))
        let observation = locator.observe(Scan(time: 0, readings: [Reading(beacon: .id("a"), rssi: -70, distance: 2.5),
                                                                   Reading(beacon: .id("b"), rssi: -59)]))
        let ranges = Dictionary(uniqueKeysWithValues: observation.ranges.map { ($0.beaconIndex, $0.distance) })
        #expect(ranges[0] == 2.5)          // reported
        #expect(abs((ranges[1] ?? 0) - 1) < 1e-12)   // −59 dBm at the default −59: 1 m
        // A later reading without a distance goes back to the RSSI.
        let next = locator.observe(Scan(time: 1, readings: [Reading(beacon: .id("a"), rssi: -59)]))
        #expect(next.ranges.first { $0.beaconIndex == 0 }.map { abs($0.distance - 1) < 1e-12 } == true)
    }
}
