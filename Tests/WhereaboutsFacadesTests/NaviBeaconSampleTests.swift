import Foundation
import Testing
import Whereabouts
import WhereaboutsFacades

// The seed's names, unqualified, as an app ported from it declares them.
typealias NaviBeacon = NaviBeaconFacade.NaviBeacon

/// NaviBeacon's samples: the shop-entrance callback, and the default behaviour's set-then-re-arm
/// cycle, fed one ranging round a second. With the default −59 dBm at 1 m and path-loss exponent
/// 2, −25 dBm is 2 cm away and −50 dBm 0.35 m (immediate), −65 dBm 2 m (near), −80 dBm 11 m (far).
@Suite("NaviBeacon sample")
struct NaviBeaconSampleTests {
    static let shop = UUID(uuidString: "01234567-89AB-CDEF-0123-456789ABCDEF")!
    static let desk = UUID(uuidString: "11111111-2222-3333-4444-555555555555")!

    static func round(_ time: Double, _ uuid: UUID, rssi: Double) -> Scan {
        Scan(time: time, readings: [Reading(beacon: .iBeacon(IBeaconIdentity(uuid: uuid, major: 7, minor: 1)), rssi: rssi)])
    }

    /// The README's shop example: welcome the user when the entrance beacon comes into range
    /// (`.far`), warn when they are right under it (`.immediate` above −30 dBm), else nothing.
    /// The callback checks the beacon's identifier: a beacon added under another identifier (the
    /// sample's own "pojostick") is heard but greets nobody.
    @Test func theShopEntranceCallbackGreetsOnceAndWarns() async throws {
        let notified = Collected<String>()
        let navi = NaviBeacon(rangingInterval: 0)
            .addBeacon(identifier: "com.navisens.pojostick", uuid: Self.desk, latitude: nil, longitude: nil, heading: nil, floor: nil)
            .addBeacon(identifier: "com.navisens.navishop.frontentrance", uuid: Self.shop, latitude: nil, longitude: nil,
                       heading: nil, floor: nil)
        let once = LockedValue<Set<String>>([])
        @Sendable func notifyUserOnce(_ message: String) {
            if once.withValue({ $0.insert(message).inserted }) { notified.append(message) }
        }
        navi.onBeaconChanged = { beacon, data in
            guard data.id == "com.navisens.navishop.frontentrance" else { return }
            switch beacon.proximity {
            case .far: notifyUserOnce("Welcome to my brand new shop!")
            case .immediate where beacon.rssi > -30: notifyUserOnce("you shouldn't be up here...")
            default: break
            }
        }
        let rounds = [Self.round(0, Self.desk, rssi: -80),   // another identifier: ignored by the callback
                      Self.round(1, Self.shop, rssi: -80),   // far: welcome
                      Self.round(2, Self.shop, rssi: -78),   // far again: already greeted
                      Self.round(3, Self.shop, rssi: -65),   // near: nothing
                      Self.round(4, Self.shop, rssi: -50),   // immediate but below −30: nothing
                      Self.round(5, Self.shop, rssi: -25)]   // immediate above −30: the warning
        try await navi.startScanning(ScanSource(scans: rounds))
        #expect(notified.values == ["Welcome to my brand new shop!", "you shouldn't be up here..."])
        // The callback replaces the default: nothing was set on the device.
        #expect(navi.location == nil && navi.heading == nil && navi.floor == nil)
    }

    /// The default behaviour: an immediate round sets the location, heading and floor and
    /// disarms the beacon; five near rounds re-arm it (far rounds do not count); each beacon has
    /// its own counter.
    @Test func theDefaultSetsTheLocationAndReArmsAfterFiveNearRounds() {
        let navi = NaviBeacon(rangingInterval: 0)
        navi.addBeacon(identifier: "front-desk", uuid: Self.desk, latitude: 41.3551, longitude: 2.1322, heading: 90, floor: 0)
        navi.addBeacon(identifier: "stairs", uuid: Self.shop, latitude: nil, longitude: nil, heading: 180, floor: 1)
        var time = 0.0
        func round(_ uuid: UUID, _ rssi: Double) -> [AnchorFix] {
            time += 1
            return navi.process(Self.round(time, uuid, rssi: rssi))
        }
        #expect(round(Self.desk, -50).map(\.anchor) == ["front-desk"])
        #expect(navi.location == GeoCoordinate(latitude: 41.3551, longitude: 2.1322) && navi.heading == 90 && navi.floor == 0)
        #expect(round(Self.desk, -50).isEmpty && !navi.isArmed("front-desk"))
        // The stairs have their own counter: still armed. No latitude/longitude: the location
        // stays, the heading and floor change.
        #expect(round(Self.shop, -50).map(\.anchor) == ["stairs"])
        #expect(navi.location == GeoCoordinate(latitude: 41.3551, longitude: 2.1322) && navi.heading == 180 && navi.floor == 1)
        // Four near rounds and two far ones at the desk: still disarmed.
        for _ in 0..<4 { #expect(round(Self.desk, -65).isEmpty) }
        _ = round(Self.desk, -80)
        _ = round(Self.desk, -80)
        #expect(round(Self.desk, -50).isEmpty)
        // The fifth near round re-arms it.
        _ = round(Self.desk, -65)
        #expect(navi.isArmed("front-desk") && !navi.isArmed("stairs"))
        #expect(round(Self.desk, -50).map(\.anchor) == ["front-desk"])
        #expect(navi.heading == 90 && navi.floor == 0 && navi.deviceState.lastAnchor == "front-desk")
        // Paused: the stairs are still disarmed and the front desk just fired; five near rounds
        // at the stairs and an immediate one at an armed beacon change nothing.
        navi.addBeacon(identifier: "exit", uuid: Self.exit, latitude: nil, longitude: nil, heading: 270, floor: 0)
        navi.pauseScanning()
        #expect(navi.isPaused)
        for _ in 0..<5 { #expect(round(Self.shop, -65).isEmpty) }
        #expect(round(Self.exit, -50).isEmpty && navi.isArmed("exit") && !navi.isArmed("stairs"))
        #expect(navi.heading == 90 && navi.deviceState.lastAnchor == "front-desk")
        // Resumed: the armed exit fires at once.
        navi.resumeScanning()
        #expect(round(Self.exit, -50).map(\.anchor) == ["exit"] && navi.heading == 270)
        #expect(!navi.isArmed("stairs"))
    }

    static let exit = UUID(uuidString: "99999999-2222-3333-4444-555555555555")!

    /// Live: with a clock, a round ends on time, so an immediate sighting sets the location a
    /// round later though no scan follows; a beacon added while scanning is ranged from then
    /// on; a source whose radio can be paused is paused and resumed with the plugin.
    @Test func liveRoundsEndOnTimeAndPausingStopsTheRadio() async throws {
        let navi = NaviBeacon()
        let clock = ManualClock()
        let feed = ScanFeed()
        let radio = PausableScans(feed, pace: .live(clock))
        let scanning = Task { try await navi.startScanning(radio) }   // live, as the source says
        feed.send(Self.round(10, Self.desk, rssi: -50))     // no beacon added yet: nothing to react to
        try await feed.taken()
        await clock.advance(by: .seconds(1))                   // that round ends: nothing fires
        #expect(navi.location == nil)
        navi.addBeacon(identifier: "front-desk", uuid: Self.desk, latitude: 41.3551, longitude: 2.1322, heading: 90, floor: 0)
        feed.send(Self.round(11, Self.desk, rssi: -50))
        try await feed.taken()
        #expect(navi.location == nil)                          // the round is still open
        await clock.advance(by: .seconds(1))                   // it ends with no scan after it
        try await LiveWait.until { navi.location != nil }
        #expect(navi.location == GeoCoordinate(latitude: 41.3551, longitude: 2.1322) && navi.heading == 90)
        navi.pauseScanning()
        #expect(radio.pauses.value == ["pause"])
        navi.resumeScanning()
        #expect(radio.pauses.value == ["pause", "resume"])
        feed.finish()
        try await scanning.value
    }

    /// With a venue, the beacon's spot sets the device's position in the motion track, as
    /// NaviBeacon set its motion engine's: the fixes that follow start from it (and its floor),
    /// where a plugin without that beacon, on the same scans, is far from it.
    @Test func aBeaconsSpotRestartsTheMotionTrack() throws {
        let origin = GeoCoordinate(latitude: 41.3551, longitude: 2.1322)
        let frame = LocalFrame(origin: origin)
        let corners = [(0.0, 0.0), (20, 0), (20, 20), (0, 20)]
        let venue = Venue(origin: Venue.Origin(latitude: origin.latitude, longitude: origin.longitude),
                          beacons: corners.enumerated().map { index, corner in
                              Venue.Beacon(id: "b\(index)", iBeacon: IBeaconIdentity(uuid: Self.shop, major: 1, minor: UInt16(index)),
                                           x: corner.0, y: corner.1, floor: 0)
                          })
        let spot = frame.coordinate(for: PlanarPoint(x: 2, y: 2))
        // The venue's four beacons heard alike (the middle of the room), the desk beacon right there.
        func scan(_ time: Double, desk: Bool) -> Scan {
            var readings = (0..<4).map { Reading(beacon: .iBeacon(IBeaconIdentity(uuid: Self.shop, major: 1, minor: UInt16($0))), rssi: -80) }
            if desk { readings.append(Reading(beacon: .iBeacon(IBeaconIdentity(uuid: Self.desk, major: 7, minor: 1)), rssi: -40)) }
            return Scan(time: time, readings: readings)
        }
        let anchored = NaviBeacon(venue: venue)
            .addBeacon(identifier: "front-desk", uuid: Self.desk, latitude: spot.latitude, longitude: spot.longitude, heading: nil, floor: 0)
        let plain = NaviBeacon(venue: venue)
        for navi in [anchored, plain] {
            navi.process(scan(0, desk: true))
            navi.process(scan(1, desk: true))     // the round of second 0 ends: the desk is immediate
            navi.process(scan(1.5, desk: false))
        }
        let here = try #require(anchored.fix), there = try #require(plain.fix)
        #expect(anchored.location == spot)
        let fromSpot = { (fix: Fix) in hypot(fix.point.x - 2, fix.point.y - 2) }
        #expect(fromSpot(there) > 8, "\(there.point)")              // the middle of the room: 11 m away
        #expect(fromSpot(here) < fromSpot(there) - 5, "\(here.point) against \(there.point)")
        #expect(here.floor == 0)
    }

    /// Adding the same UUID again replaces the beacon (and re-arms it).
    @Test func addingTheSameUUIDAgainReplacesTheBeacon() {
        let navi = NaviBeacon(rangingInterval: 0)
        navi.addBeacon(identifier: "old", uuid: Self.desk, latitude: 1, longitude: 1, heading: nil, floor: nil)
        navi.addBeacon(identifier: "new", uuid: Self.desk, latitude: 2, longitude: 2, heading: nil, floor: nil)
        #expect(navi.process(Self.round(1, Self.desk, rssi: -50)).map(\.anchor) == ["new"])
        #expect(navi.location == GeoCoordinate(latitude: 2, longitude: 2))
    }
}

/// A stream of scans whose radio can be paused, at the pace it is given: it records the calls.
struct PausableScans: PacedScans, PausableScanning {
    let base: ScanFeed
    let pace: ScanPace
    let pauses = LockedValue<[String]>([])

    init(_ base: ScanFeed, pace: ScanPace = .replay) {
        self.base = base
        self.pace = pace
    }

    func makeAsyncIterator() -> ScanFeed.AsyncIterator { base.makeAsyncIterator() }
    func pauseScanning() { pauses.withValue { $0.append("pause") } }
    func resumeScanning() { pauses.withValue { $0.append("resume") } }
}
