import Foundation
import Testing
import Whereabouts
import WhereaboutsFacades

// The seed's names, unqualified, as an app ported from it declares them.
typealias BluenetLocalization = BluenetFacade.BluenetLocalization
typealias BluenetError = BluenetFacade.BluenetError
typealias TrainingHelper = BluenetFacade.TrainingHelper
typealias BasicClassifier = BluenetFacade.BasicClassifier

/// Bluenet Localization's samples: subscribing and unsubscribing by topic, and the whole room
/// flow in the seed's order — track a region, collect training data per room with the
/// `TrainingHelper`, load it into the basic classifier, start indoor localization, walk from
/// room to room.
@Suite("Bluenet Localization sample")
struct BluenetSampleTests {
    static let uuidString = "01234567-89AB-CDEF-0123-456789ABCDEF"
    static let uuid = UUID(uuidString: uuidString)!

    /// Half a second of scan in a room: three beacons at the room's RSSIs, with a wobble of up
    /// to ±2 dB so that every beacon's spread is above zero.
    static func scan(at time: Double, _ room: [Double]) -> Scan {
        let wobble = [0.0, 1, -1, 2, -2, 1.5][Int((time * 2).rounded()) % 6]
        return Scan(time: time, readings: room.enumerated().map { index, rssi in
            Reading(beacon: .iBeacon(IBeaconIdentity(uuid: uuid, major: 1, minor: UInt16(index + 1))), rssi: rssi + wobble)
        })
    }
    static let kitchen: [Double] = [-55, -70, -82]
    static let hall: [Double] = [-81, -62, -57]

    /// Scans every half second from `start` (included) to `end` (excluded) in a room, then an
    /// empty scan at `end` (a ranging second that heard nothing), which closes the last batch.
    static func walk(_ bluenet: BluenetLocalization, in room: [Double], from start: Double, to end: Double) async {
        var time = start
        while time < end {
            await bluenet.process(scan(at: time, room))
            time += 0.5
        }
        await bluenet.process(Scan(time: end, readings: []))
    }

    /// Live (a clock given): the region is left the exit timeout after the last sighting while
    /// the source stays open, once, as the operating system told Bluenet.
    @Test func aSilentSourceLeavesTheRegionOnTime() async throws {
        let bluenet = BluenetLocalization(configuration: EventHub.Configuration(regionExitTimeout: 5, startsIndoorLocalization: false))
        let topics = Collected<String>()
        _ = bluenet.on("enterRegion") { _ in topics.append("enterRegion") }
        _ = bluenet.on("exitRegion") { _ in topics.append("exitRegion") }
        try await bluenet.trackIBeacon(uuid: Self.uuidString, referenceId: "home")
        let clock = ManualClock()
        let feed = ScanFeed()
        // The source says it is live (as an adapter or CoreLocation's ranging does): no clock argument.
        let scanning = Task { try await bluenet.startScanning(feed.paced(.live(clock))) }
        feed.send(Self.scan(at: 100, Self.kitchen))
        try await feed.taken()
        try await LiveWait.until { topics.values == ["enterRegion"] }
        await clock.advance(by: .milliseconds(4_900))
        #expect(topics.values == ["enterRegion"])
        await clock.advance(by: .milliseconds(100))
        try await LiveWait.until { topics.values == ["enterRegion", "exitRegion"] }
        await clock.advance(by: .seconds(60))
        feed.finish()
        try await scanning.value
        #expect(topics.values == ["enterRegion", "exitRegion"])
    }

    @Test func onReturnsAClosureThatUnsubscribes() async throws {
        let bluenet = BluenetLocalization()
        let entered = Collected<String>(), everyEnter = Collected<String>()
        let unsubscribe = bluenet.on("enterRegion") { data in
            if case .string(let referenceId) = data { entered.append(referenceId) }
        }
        _ = bluenet.on("enterRegion") { _ in everyEnter.append("enter") }
        try await bluenet.trackIBeacon(uuid: Self.uuidString, referenceId: "home")
        await bluenet.process(Self.scan(at: 0, Self.kitchen))
        await bluenet.forceClearActiveRegion()
        await bluenet.process(Self.scan(at: 1, Self.kitchen))          // a fresh enterRegion
        unsubscribe()
        await bluenet.forceClearActiveRegion()
        await bluenet.process(Self.scan(at: 2, Self.kitchen))          // emitted, but no longer heard
        #expect(entered.values == ["home", "home"])
        #expect(everyEnter.values.count == 3)
        await #expect(throws: BluenetError.invalidUUID("home")) { try await bluenet.trackIBeacon(uuid: "home", referenceId: "x") }
    }

    @Test func trainingThenClassifyingGivesEnterAndExitLocationInTheSeedsOrder() async throws {
        let bluenet = BluenetLocalization()
        let locationEvents = Collected<String>()
        for topic in ["enterLocation", "exitLocation"] {
            _ = bluenet.on(topic) { data in
                guard case .object(let members) = data else { return }
                let fields = Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
                if case .string(let location)? = fields["location"], case .string(let region)? = fields["region"] {
                    locationEvents.append("\(topic) \(region)/\(location)")
                }
            }
        }
        let current = Collected<Double>()
        let stop = bluenet.hub.subscribe { event in
            if case .currentLocation = event.kind { current.append(event.time) }
        }
        defer { stop() }
        try await bluenet.trackIBeacon(uuid: Self.uuidString, referenceId: "home")

        // Training: ten seconds in each room, one entry per advertisement batch.
        let helper = TrainingHelper(bluenetLocalization: bluenet)
        #expect(helper.finishCollectingTrainingData() == nil)   // never started
        helper.startCollectingTrainingData()
        await Self.walk(bluenet, in: Self.kitchen, from: 0, to: 10)
        let kitchenData = try #require(helper.finishCollectingTrainingData())
        helper.startCollectingTrainingData()
        await Self.walk(bluenet, in: Self.hall, from: 10, to: 20)
        let hallData = try #require(helper.finishCollectingTrainingData())

        // Bluenet's format: [{"devices": {idString: rssi, …}, "timestamp": t}, …], one entry a second.
        guard case .array(let entries) = try JSONParser.parse(kitchenData), case .object(let first)? = entries.first else {
            Issue.record("not an array of objects: \(kitchenData)")
            return
        }
        #expect(entries.count == 10)
        #expect(first.map(\.key) == ["devices", "timestamp"])
        if case .object(let devices)? = first.first(where: { $0.key == "devices" })?.value {
            #expect(devices.map(\.key) == (1...3).map { "\(Self.uuidString)_Maj:1_Min:\($0)" })
        } else {
            Issue.record("no devices")
        }

        var classifier = BasicClassifier()
        try classifier.loadTrainingData("kitchen", referenceId: "home", trainingData: kitchenData)
        try classifier.loadTrainingData("hall", referenceId: "home", trainingData: hallData)
        await bluenet.insertClassifier(classifier.classifier)

        // Indoor localization is off by default: no location events.
        await Self.walk(bluenet, in: Self.kitchen, from: 20, to: 25)
        #expect(locationEvents.values.isEmpty && current.values.isEmpty)

        // On: the kitchen is entered; walking to the hall leaves it before entering the hall.
        await bluenet.startIndoorLocalization()
        await Self.walk(bluenet, in: Self.kitchen, from: 25, to: 32)
        await Self.walk(bluenet, in: Self.hall, from: 32, to: 40)
        #expect(locationEvents.values == ["enterLocation home/kitchen", "exitLocation home/kitchen", "enterLocation home/hall"])
        #expect(current.values.allSatisfy { $0 >= 25 } && !current.values.isEmpty)

        // Off again: nothing more, wherever the device goes.
        await bluenet.stopIndoorLocalization()
        let heard = current.values.count
        await Self.walk(bluenet, in: Self.kitchen, from: 40, to: 48)
        #expect(locationEvents.values.count == 3 && current.values.count == heard)
    }

    static func identity(_ minor: Int) -> IBeaconIdentity { IBeaconIdentity(uuid: uuid, major: 1, minor: UInt16(minor)) }

    /// Bluenet's training JSON of a room: six seconds at the room's RSSIs, with a wobble.
    static func training(_ room: [Double]) -> String {
        let entries = [0.0, 1, -1, 2, -2, 1.5].enumerated().map { second, wobble in
            let devices = room.enumerated().map { "\"\(identity($0.offset + 1).description)\": \($0.element + wobble)" }
            return "{\"devices\": {\(devices.joined(separator: ", "))}, \"timestamp\": \(second)}"
        }
        return "[" + entries.joined(separator: ", ") + "]"
    }

    /// A library tracking the region, with the basic classifier of the kitchen and the hall and
    /// indoor localization on.
    static func localizing() async throws -> BluenetLocalization {
        let bluenet = BluenetLocalization()
        try await bluenet.trackIBeacon(uuid: uuidString, referenceId: "home")
        var classifier = BasicClassifier()
        try classifier.loadTrainingData("kitchen", referenceId: "home", trainingData: training(kitchen))
        try classifier.loadTrainingData("hall", referenceId: "home", trainingData: training(hall))
        await bluenet.insertClassifier(classifier.classifier)
        await bluenet.startIndoorLocalization()
        return bluenet
    }

    /// CoreLocation ranges each beacon once a second: a beacon heard three times in a second is
    /// one packet at the mean RSSI; and one beacon, however often heard, is fewer than three
    /// beacons, so the basic classifier gives no room.
    @Test func oneBeaconHeardThreeTimesIsOnePacketAndNoRoom() async throws {
        let bluenet = try await Self.localizing()
        let batches = Collected<[BeaconPacket]>()
        let stop = bluenet.hub.subscribe { event in
            if case .advertisements(let packets) = event.kind { batches.append(packets) }
        }
        defer { stop() }
        let rooms = Collected<String>()
        for topic in ["enterLocation", "currentLocation"] { _ = bluenet.on(topic) { _ in rooms.append(topic) } }
        for (index, rssi) in [-60.0, -64, -68].enumerated() {
            await bluenet.process(Scan(time: 100 + 0.3 * Double(index), readings: [Reading(beacon: .iBeacon(Self.identity(1)), rssi: rssi)]))
        }
        await bluenet.process(Scan(time: 101, readings: []))
        #expect(batches.values == [[BeaconPacket(identity: Self.identity(1), rssi: -64, referenceId: "home")]])
        #expect(rooms.values.isEmpty)
        // Three beacons in a second (each heard twice): a room, each beacon once in the batch.
        await bluenet.process(Self.scan(at: 102, Self.kitchen))
        await bluenet.process(Self.scan(at: 102.5, Self.kitchen))
        await bluenet.process(Scan(time: 103, readings: []))
        #expect(batches.values.last?.map(\.identity) == [1, 2, 3].map(Self.identity))
        #expect(rooms.values == ["enterLocation", "currentLocation"])
    }

    /// The room follows the classifier's answer of each second, as in Bluenet: `currentLocation`
    /// says it every second, and the first second in the hall leaves the kitchen.
    @Test func theRoomIsTheClassifiersAnswerOfEachSecond() async throws {
        let bluenet = try await Self.localizing()
        let events = Collected<String>()
        let stop = bluenet.hub.subscribe { event in
            switch event.kind {
            case .enterLocation(_, let location): events.append("enter \(location) \(event.time)")
            case .exitLocation(_, let location): events.append("exit \(location) \(event.time)")
            case .currentLocation(_, let location): events.append("\(location) \(event.time)")
            default: break
            }
        }
        defer { stop() }
        await Self.walk(bluenet, in: Self.kitchen, from: 0, to: 3)
        await Self.walk(bluenet, in: Self.hall, from: 3, to: 5)
        #expect(events.values == ["enter kitchen 0.0", "kitchen 0.0", "kitchen 1.0", "kitchen 2.0",
                                  "exit kitchen 3.0", "enter hall 3.0", "hall 3.0", "hall 4.0"])
    }

    /// Pausing or clearing the tracking turns the radio off ("your app may fall asleep"), and
    /// tracking again turns it on; with nothing tracked yet, the radio waits off.
    @Test func pausingAndClearingTheTrackingStopTheRadio() async throws {
        let bluenet = BluenetLocalization()
        let feed = ScanFeed()
        let radio = PausableScans(feed)
        let scanning = Task { try await bluenet.startScanning(radio, clock: ManualClock()) }
        try await LiveWait.until { radio.pauses.value == ["pause"] }
        try await bluenet.trackIBeacon(uuid: Self.uuidString, referenceId: "home")
        #expect(radio.pauses.value == ["pause", "resume"])
        await bluenet.pauseTracking()
        #expect(radio.pauses.value == ["pause", "resume", "pause"])
        await bluenet.resumeTracking()
        #expect(radio.pauses.value == ["pause", "resume", "pause", "resume"])
        try await bluenet.stopTrackingIBeacon(Self.uuidString)
        #expect(radio.pauses.value.last == "pause")
        try await bluenet.trackIBeacon(uuid: Self.uuidString, referenceId: "home")
        await bluenet.clearTrackedBeacons()
        #expect(radio.pauses.value == ["pause", "resume", "pause", "resume", "pause", "resume", "pause"])
        feed.finish()
        try await scanning.value
    }

    /// `requestLocation()` is where the venue's beacons last put the device, on the map; nothing
    /// needs asking on Linux.
    @Test func requestLocationIsTheLastPositionsCoordinates() async throws {
        let origin = GeoCoordinate(latitude: 41.3555, longitude: 2.1325)
        let corners = [(0.0, 0.0), (10, 0), (10, 10), (0, 10)]
        let venue = Venue(origin: Venue.Origin(latitude: origin.latitude, longitude: origin.longitude),
                          beacons: corners.enumerated().map { index, corner in
                              Venue.Beacon(id: "b\(index + 1)", iBeacon: Self.identity(index + 1), x: corner.0, y: corner.1, floor: 0)
                          })
        let bluenet = BluenetLocalization(venue: venue)
        #expect(await bluenet.requestLocationPermission() == .notNeeded)
        #expect(bluenet.requestLocation() == nil)
        try await bluenet.trackIBeacon(uuid: Self.uuidString, referenceId: "home")
        await bluenet.process(Scan(time: 0, readings: (1...4).map { Reading(beacon: .iBeacon(Self.identity($0)), rssi: -75) }))
        let coordinate = try #require(bluenet.requestLocation())
        let point = LocalFrame(origin: origin).planarPoint(for: coordinate)
        #expect(hypot(point.x - 5, point.y - 5) < 0.5, "\(point)")
        #expect(BluenetLocalization().requestLocation() == nil)   // no venue: no position
    }

    @Test func badTrainingDataIsRefused() {
        var classifier = BasicClassifier()
        #expect(throws: BluenetError.self) { try classifier.loadTrainingData("x", referenceId: "r", trainingData: "this is garbage") }
    }
}
