import Foundation
import Testing
@testable import Whereabouts

@Suite("Place monitor")
struct PlaceMonitorTests {
    /// Feeds one estimate a second from `start`, returning the enter/exit events.
    private func feed(_ monitor: inout PlaceMonitor, _ places: [String?], probability: Double = 0.9,
                      from start: Double) -> [PlaceEvent] {
        var events: [PlaceEvent] = []
        for (offset, place) in places.enumerated() {
            events += monitor.observe(PlaceEstimate(place: place, probability: probability), at: start + Double(offset))
                .filter { $0.kind != .current }
        }
        return events
    }

    @Test func aNewPlaceNeedsThreeConsecutiveVotesAndExitComesBeforeEnter() {
        var monitor = PlaceMonitor()
        // Votes for A at t = 0, 1, 2: entered at the third.
        #expect(feed(&monitor, ["A", "A"], from: 0).isEmpty)
        #expect(feed(&monitor, ["A"], from: 2) == [PlaceEvent(.enter, place: "A", time: 2)])
        #expect(monitor.currentPlace == "A")
        // B at 3, 4, 5: exit A then enter B, both at 5, in that order.
        #expect(feed(&monitor, ["B", "B", "B"], from: 3) == [PlaceEvent(.exit, place: "A", time: 5), PlaceEvent(.enter, place: "B", time: 5)])
        // Leaving every place: "no place" wins like any other, giving an exit alone.
        #expect(feed(&monitor, [nil, nil, nil], from: 6) == [PlaceEvent(.exit, place: "B", time: 8)])
        #expect(monitor.currentPlace == nil)
    }

    @Test func strayScansNeverFlipThePlace() {
        var monitor = PlaceMonitor()
        _ = feed(&monitor, ["A", "A", "A"], from: 0)
        // One stray, two strays, strays of two different places, and unsure (p < 0.6) runs: no change.
        #expect(feed(&monitor, ["B", "A", "B", "B", "A", "B", "C", "B", "C", "A"], from: 3).isEmpty)
        #expect(feed(&monitor, ["B", "B", "B", "B", "B"], probability: 0.55, from: 13).isEmpty)
        #expect(monitor.currentPlace == "A")
        // Unsure scans are neutral: they neither count nor break a run of sure ones.
        var events = monitor.observe(PlaceEstimate(place: "B", probability: 0.9), at: 18)
        events += monitor.observe(PlaceEstimate(place: "B", probability: 0.3), at: 18.3)
        events += monitor.observe(PlaceEstimate(place: "A", probability: 0.3), at: 18.6)
        events += monitor.observe(PlaceEstimate(place: "B", probability: 0.9), at: 19)   // 2 votes over 1 s < 3 s
        #expect(events.filter { $0.kind != .current }.isEmpty)
        events = monitor.observe(PlaceEstimate(place: "B", probability: 0.9), at: 20)    // the third vote
        #expect(events == [PlaceEvent(.exit, place: "A", time: 20), PlaceEvent(.enter, place: "B", time: 20),
                           PlaceEvent(.current, place: "B", time: 20)])
    }

    /// A belief (a tracker's posterior mass in the room) has weighed the scans before it: its
    /// majority switches at once, under half is neutral, and a scan's own estimate still needs
    /// its three votes.
    @Test func aBeliefsMajoritySwitchesAtOnce() {
        var monitor = PlaceMonitor()
        func belief(_ place: String?, _ probability: Double, at time: Double) -> [PlaceEvent] {
            monitor.observe(PlaceEstimate(place: place, probability: probability, isBelief: true), at: time)
                .filter { $0.kind != .current }
        }
        #expect(belief("A", 0.49, at: 0).isEmpty)
        #expect(belief("A", 0.5, at: 1) == [PlaceEvent(.enter, place: "A", time: 1)])
        // B below half, however often: the belief holds no room by half, A stays.
        for time in 2...6 { #expect(belief("B", 0.45, at: Double(time)).isEmpty) }
        #expect(belief("B", 0.55, at: 7) == [PlaceEvent(.exit, place: "A", time: 7), PlaceEvent(.enter, place: "B", time: 7)])
        // No place by half of the belief: an exit alone.
        #expect(belief(nil, 0.6, at: 8) == [PlaceEvent(.exit, place: "B", time: 8)])
        // A scan's own estimate of the same probability votes as before: three votes.
        #expect(feed(&monitor, ["A", "A"], from: 9).isEmpty)
        #expect(feed(&monitor, ["A"], from: 11) == [PlaceEvent(.enter, place: "A", time: 11)])
        // A lower vote than half lets a belief vote from there; a higher one keeps half.
        var lenient = PlaceMonitor(configuration: PlaceMonitor.Configuration(minimumProbability: 0.3))
        #expect(lenient.observe(PlaceEstimate(place: "C", probability: 0.35, isBelief: true), at: 0).first
                == PlaceEvent(.enter, place: "C", time: 0))
        var strict = PlaceMonitor(configuration: PlaceMonitor.Configuration(minimumProbability: 0.9))
        #expect(strict.observe(PlaceEstimate(place: "C", probability: 0.6, isBelief: true), at: 0).first
                == PlaceEvent(.enter, place: "C", time: 0))
    }

    /// A fix carrying its posterior's mass in each place gives a belief; a fix without, the share
    /// of its Gaussian, does not; a room belief's estimate is one.
    @Test func containmentAndRoomBeliefsMarkTheirEstimatesAsBeliefs() {
        let square = Venue.Place(id: "A", floor: 0, shape: .polygon([PlanarPoint(x: 0, y: 0), PlanarPoint(x: 4, y: 0),
                                                                      PlanarPoint(x: 4, y: 4), PlanarPoint(x: 0, y: 4)]))
        let venue = Venue(name: "one room", floors: [Venue.Floor(level: 0)], beacons: [], places: [square])
        let containment = PlaceContainment(venue: venue)
        var fix = Fix(time: 0, device: "phone", point: SpatialPoint(x: 2, y: 2, z: 0), floor: 0, accuracy: 1, method: "test")
        #expect(containment.estimate(for: fix).isBelief == false)
        fix.placeProbabilities = [PlaceEstimate(place: "A", probability: 0.7)]
        let estimate = containment.estimate(for: fix)
        #expect(estimate.isBelief && estimate.place == "A" && abs(estimate.probability - 0.7) < 1e-12)
        #expect(PlaceContainment(venue: venue, rule: .point).estimate(for: fix).isBelief == false)
        var roomBelief = PlaceBelief(venue: venue)
        #expect(roomBelief.update(with: containment.distribution(of: fix), at: 0).isBelief)
    }

    @Test func slowScannersSwitchAfterTwoVotesSpanningTheRequiredDuration() {
        var monitor = PlaceMonitor()
        // One scan every 5 s: the second vote for A comes 5 s ≥ 3 s after the first.
        #expect(monitor.observe(PlaceEstimate(place: "A"), at: 0).isEmpty)
        #expect(monitor.observe(PlaceEstimate(place: "A"), at: 5) == [PlaceEvent(.enter, place: "A", time: 5), PlaceEvent(.current, place: "A", time: 5)])
    }

    @Test func nothingObservedForTheTimeoutLeavesThePlace() {
        var monitor = PlaceMonitor()
        _ = feed(&monitor, ["A", "A", "A"], from: 0)   // last observation at 2
        #expect(monitor.advance(to: 31.9).isEmpty)
        #expect(monitor.advance(to: 32) == [PlaceEvent(.exit, place: "A", time: 32)])
        #expect(monitor.advance(to: 100).isEmpty)
        #expect(monitor.currentPlace == nil)
    }
}

@Suite("Region monitor")
struct RegionMonitorTests {
    static let uuid = UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0") ?? UUID()
    static let other = UUID(uuidString: "01234567-89AB-CDEF-0123-456789ABCDEF") ?? UUID()

    private func beacon(_ major: UInt16, _ minor: UInt16, _ uuid: UUID = uuid) -> IBeaconIdentity {
        IBeaconIdentity(uuid: uuid, major: major, minor: minor)
    }

    @Test func entersOnTheFirstSightingAndExitsAfterTheTimeout() {
        var monitor = RegionMonitor()
        let campus = BeaconRegion(uuid: Self.uuid, referenceId: "campus")
        monitor.watch(campus)
        #expect(monitor.observe([beacon(1, 1)], at: 100) == [RegionEvent(.enter, region: campus, time: 100)])
        #expect(monitor.observe([beacon(2, 7)], at: 120).isEmpty)     // still inside: last seen 120
        #expect(monitor.observe([beacon(1, 1, Self.other)], at: 125).isEmpty)   // another UUID does not count
        #expect(monitor.advance(to: 149.9).isEmpty)                    // 29.9 s without a sighting
        #expect(monitor.advance(to: 150) == [RegionEvent(.exit, region: campus, time: 150)])
        #expect(monitor.activeRegions.isEmpty)
        // Seen again: a fresh enter.
        #expect(monitor.observe([beacon(1, 1)], at: 400) == [RegionEvent(.enter, region: campus, time: 400)])
    }

    @Test func exitsAreDatedWhenDueAndComeBeforeTheScansEnters() {
        var monitor = RegionMonitor(exitTimeout: 5)
        let hall1 = BeaconRegion(uuid: Self.uuid, major: 1, referenceId: "hall1")
        let hall2 = BeaconRegion(uuid: Self.uuid, major: 2, referenceId: "hall2")
        let desk = BeaconRegion(uuid: Self.uuid, major: 2, minor: 9, referenceId: "desk")
        monitor.watch(hall1)
        monitor.watch(hall2)
        monitor.watch(desk)
        #expect(monitor.observe([beacon(1, 3)], at: 10) == [RegionEvent(.enter, region: hall1, time: 10)])
        // 30 s later a hall 2 beacon: hall 1's exit (due at 15) first, then the enter.
        #expect(monitor.observe([beacon(2, 4)], at: 40) == [RegionEvent(.exit, region: hall1, time: 15),
                                                           RegionEvent(.enter, region: hall2, time: 40)])
        // The desk's own beacon: hall 2 is already entered, the desk is new.
        #expect(monitor.observe([beacon(2, 9)], at: 41) == [RegionEvent(.enter, region: desk, time: 41)])
        // Both go quiet: exits in order of when they fell due (hall 2 seen last at 41 too, tracked first).
        #expect(monitor.advance(to: 60) == [RegionEvent(.exit, region: hall2, time: 46), RegionEvent(.exit, region: desk, time: 46)])
    }

    @Test func trackingReplacesStopsAndClears() {
        var monitor = RegionMonitor()
        monitor.watch(BeaconRegion(uuid: Self.uuid, referenceId: "old"))
        monitor.watch(BeaconRegion(uuid: Self.uuid, referenceId: "new"))   // same UUID: replaced
        #expect(monitor.regions.map(\.referenceId) == ["new"])
        #expect(monitor.observe([beacon(1, 1)], at: 0).map(\.region.referenceId) == ["new"])
        // Force-clear: no exit, and the next sighting enters again.
        monitor.clearActive()
        #expect(monitor.observe([beacon(1, 1)], at: 1).map(\.kind) == [.enter])
        monitor.stopWatching(uuid: Self.uuid)
        #expect(monitor.regions.isEmpty && monitor.observe([beacon(1, 1)], at: 2).isEmpty && monitor.advance(to: 100).isEmpty)
    }
}

@Suite("Anchor triggers")
struct AnchorTriggerTests {
    static let desk = AnchorBeacon(id: "desk", beacon: .id("b1"), coordinate: GeoCoordinate(latitude: 41.355, longitude: 2.132),
                                   heading: 90, floor: 0)
    static let door = AnchorBeacon(id: "door", beacon: .id("b2"), point: PlanarPoint(x: 3, y: 4), floor: 1)

    private func sighting(_ beacon: String, _ proximity: Proximity, at time: Double) -> RangedBeacon {
        RangedBeacon(beacon: .id(beacon), rssi: proximity == .immediate ? -45 : -70, distance: nil, proximity: proximity, time: time)
    }

    @Test func armDisarmAndRearmWithACounterPerBeacon() {
        var triggers = AnchorTriggers()
        triggers.add(Self.desk)
        triggers.add(Self.door)
        // Immediate at the desk: a fix with its data; the desk is disarmed (countdown 5).
        let fix = triggers.process(sighting("b1", .immediate, at: 1))
        #expect(fix == AnchorFix(anchor: "desk", time: 1, coordinate: Self.desk.coordinate, point: nil, heading: 90, floor: 0))
        #expect(!triggers.isArmed("desk") && triggers.countdown("desk") == 5)
        #expect(triggers.process(sighting("b1", .immediate, at: 2)) == nil)
        // The door has its own counter: still armed.
        #expect(triggers.process(sighting("b2", .immediate, at: 3))?.anchor == "door")
        // Four near rounds at the desk, far and unknown rounds (which do not count): still disarmed.
        for t in 4...7 { #expect(triggers.process(sighting("b1", .near, at: Double(t))) == nil) }
        _ = triggers.process(sighting("b1", .far, at: 8))
        _ = triggers.process(sighting("b1", .unknown, at: 9))
        #expect(triggers.countdown("desk") == 1)
        #expect(triggers.process(sighting("b1", .immediate, at: 10)) == nil)
        // The fifth near round re-arms the desk only; the door's countdown is untouched.
        _ = triggers.process(sighting("b1", .near, at: 11))
        #expect(triggers.isArmed("desk") && triggers.countdown("door") == 5)
        #expect(triggers.process(sighting("b1", .immediate, at: 12))?.time == 12)
        // A beacon that is no anchor, and a paused trigger, do nothing.
        #expect(triggers.process(sighting("b9", .immediate, at: 13)) == nil)
        triggers.pause()
        #expect(triggers.process(sighting("b2", .near, at: 14)) == nil && triggers.countdown("door") == 5)
    }

    @Test func aCustomCallbackReplacesTheDefault() {
        let seen = Collected<String>()
        var triggers = AnchorTriggers(rearmRounds: 2) { sighting, anchor in
            seen.append("\(anchor.id) \(sighting.proximity.rawValue) \(Int(sighting.rssi))")
        }
        triggers.add(Self.desk)
        #expect(triggers.process(sighting("b1", .far, at: 1)) == nil)
        #expect(triggers.process(sighting("b1", .immediate, at: 2)) == nil)   // no fix: the callback decides
        #expect(seen.values == ["desk far -70", "desk immediate -45"])
        #expect(triggers.isArmed("desk"))
    }

    @Test func aVenueBeaconMakesAnAnchorWithItsCoordinate() {
        let venue = Venue(origin: Venue.Origin(latitude: 41.355, longitude: 2.132),
                          beacons: [Venue.Beacon(id: "b1", x: 0, y: 0, floor: 2)])
        let anchor = AnchorBeacon(venueBeacon: venue.beacons[0], in: venue)
        #expect(anchor.point == PlanarPoint(x: 0, y: 0) && anchor.floor == 2 && anchor.match == .beacon(.id("b1")))
        guard let coordinate = anchor.coordinate else { Issue.record("no coordinate"); return }
        #expect(abs(coordinate.latitude - 41.355) < 1e-9 && abs(coordinate.longitude - 2.132) < 1e-9)
    }
}
