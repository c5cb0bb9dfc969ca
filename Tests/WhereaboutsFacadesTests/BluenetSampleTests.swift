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
        let scanning = Task { try await bluenet.startScanning(feed, clock: clock) }
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

    @Test func badTrainingDataIsRefused() {
        var classifier = BasicClassifier()
        #expect(throws: BluenetError.self) { try classifier.loadTrainingData("x", referenceId: "r", trainingData: "this is garbage") }
    }
}
