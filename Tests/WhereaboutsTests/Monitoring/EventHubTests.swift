import Foundation
import Testing
@testable import Whereabouts

@Suite("Event hub")
struct EventHubTests {
    static let uuid = UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0") ?? UUID()

    private func scan(_ time: Double, _ minors: [UInt16], rssi: Double = -70) -> Scan {
        Scan(time: time, readings: minors.map {
            Reading(beacon: .iBeacon(IBeaconIdentity(uuid: Self.uuid, major: 1, minor: $0)), rssi: rssi)
        })
    }

    private func topics(_ events: [MonitoringEvent]) -> [String] { events.map(\.topic) }

    @Test func scriptedSightingsGiveBluenetEventsInOrder() async {
        let hub = EventHub(configuration: .init(regionExitTimeout: 10))
        await hub.watch(uuid: Self.uuid, referenceId: "campus")
        var events = await hub.process(scan(0, [1, 2]))
        #expect(events == [MonitoringEvent(time: 0, kind: .enterRegion(referenceId: "campus"))])
        #expect(events[0].payload == .string("campus"))
        // Half a second later: still gathering the batch. At t = 1 the batch of t = 0 and 0.5 goes out.
        #expect(await hub.process(scan(0.5, [3])).isEmpty)
        events = await hub.process(scan(1, [1]))
        #expect(topics(events) == ["iBeaconAdvertisement"])
        guard case .advertisements(let packets) = events.first?.kind else { Issue.record("no batch"); return }
        #expect(packets.map(\.identity.minor) == [1, 2, 3])
        let first: JSONValue = .object([("uuid", .string("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")), ("major", .number(1)),
                                        ("minor", .number(1)), ("rssi", .number(-70)), ("referenceId", .string("campus")),
                                        ("idString", .string("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0_Maj:1_Min:1"))])
        if case .array(let items) = events[0].payload { #expect(items.first == first) } else { Issue.record("not an array") }

        // Places: three votes for "lobby", then three for "hall": exit before enter, with the region.
        var placeTopics: [String] = []
        for (offset, place) in ["lobby", "lobby", "lobby", "hall", "hall", "hall"].enumerated() {
            placeTopics += topics(await hub.process(PlaceEstimate(place: place, probability: 0.9), at: 1 + Double(offset)))
        }
        let expected = ["enterLocation", "currentLocation",            // t = 3: entered lobby
                        "currentLocation", "currentLocation",           // t = 4, 5: hall's first votes
                        "exitLocation", "enterLocation", "currentLocation"]   // t = 6
        #expect(placeTopics == expected)
        let location = await hub.process(PlaceEstimate(place: "hall"), at: 7)
        #expect(location.first?.payload == .object([("region", .string("campus")), ("location", .string("hall"))]))

        // Silence: the last batch (t = 1) goes out at the next time step, the region exits 10 s after t = 1.
        events = await hub.advance(to: 20)
        #expect(events.map(\.kind) == [.advertisements([BeaconPacket(identity: IBeaconIdentity(uuid: Self.uuid, major: 1, minor: 1), rssi: -70, referenceId: "campus")]),
                                       .exitRegion(referenceId: "campus")])
        #expect(events.last?.time == 11)
        // After the region is gone, location events carry no region.
        let after = await hub.process(PlaceEstimate(place: "hall"), at: 21)
        #expect(after.first?.payload == .object([("region", .null), ("location", .string("hall"))]))
    }

    @Test func thePlaceIsLeftBeforeTheRegionWhenBothFallDueTogether() async {
        let hub = EventHub()
        await hub.watch(uuid: Self.uuid, referenceId: "campus")
        await hub.process(scan(0, [1]))
        for _ in 0..<3 { await hub.process(PlaceEstimate(place: "lobby"), at: 0) }   // three votes: entered at 0
        // Nothing for 100 s: both exits fell due at 0 + 30 = 30; the place's first, still naming the region.
        let events = await hub.advance(to: 100).filter { $0.topic != "iBeaconAdvertisement" }
        #expect(events == [MonitoringEvent(time: 30, kind: .exitLocation(region: "campus", location: "lobby")),
                           MonitoringEvent(time: 30, kind: .exitRegion(referenceId: "campus"))])
    }

    @Test func topicSubscribersGetPayloadsUntilTheyUnsubscribe() async {
        let hub = EventHub(configuration: .init(regionExitTimeout: 5))
        await hub.watch(uuid: Self.uuid, referenceId: "campus")
        let entered = Collected<JSONValue>(), exited = Collected<JSONValue>()
        let unsubscribeEnter = hub.on("enterRegion") { entered.append($0) }
        _ = hub.on("exitRegion") { exited.append($0) }
        await hub.process(scan(0, [1]))
        await hub.advance(to: 10)              // exit at 5
        unsubscribeEnter()
        await hub.process(scan(20, [1]))       // a fresh enter, but nobody listens to it any more
        await hub.advance(to: 30)              // exit at 25
        #expect(entered.values == [.string("campus")])
        #expect(exited.values == [.string("campus"), .string("campus")])
    }

    @Test func pauseResumeAndForceClear() async {
        let hub = EventHub()
        await hub.watch(uuid: Self.uuid, referenceId: "campus")
        #expect(topics(await hub.process(scan(0, [1]))) == ["enterRegion"])
        await hub.pause()
        #expect(await hub.process(scan(1, [1])).isEmpty)                       // ignored while paused
        #expect(await hub.process(PlaceEstimate(place: "lobby"), at: 1).isEmpty)
        await hub.resume()
        await hub.resume()                                                     // a second resume does nothing
        #expect(topics(await hub.process(scan(2, [1]))) == ["enterRegion"])   // entered again after resume
        #expect(await hub.process(scan(3, [1])).filter { $0.topic == "enterRegion" }.isEmpty)
        await hub.forceClearActiveRegion()
        #expect(topics(await hub.process(scan(4, [1]))).contains("enterRegion"))   // a fresh enter
        // Place enters fire again after a resume too.
        for t in 5...7 { await hub.process(PlaceEstimate(place: "lobby"), at: Double(t)) }
        #expect(await hub.currentPlace == "lobby")
        await hub.pause()
        await hub.resume()
        var placeTopics: [String] = []
        for t in 8...10 { placeTopics += topics(await hub.process(PlaceEstimate(place: "lobby"), at: Double(t))) }
        #expect(placeTopics == ["enterLocation", "currentLocation"])
    }

    @Test func stopWatchingClearAndTheTypedStream() async {
        let hub = EventHub()
        let stream = await hub.events()
        await hub.watch(uuid: Self.uuid, referenceId: "campus")
        await hub.process(scan(0, [1]))
        await hub.stopWatching(uuid: Self.uuid)
        #expect(await hub.process(scan(5, [1])).isEmpty)                    // no longer tracked
        await hub.watch(BeaconRegion(uuid: Self.uuid, major: 1, minor: 2, referenceId: "desk"))
        #expect(await hub.process(scan(6, [1])).isEmpty)                    // minor 1 is not the desk
        #expect(topics(await hub.process(scan(7, [2]))) == ["enterRegion"])
        await hub.stopWatchingAll()
        #expect(await hub.watchedRegions.isEmpty)
        #expect(await hub.process(scan(8, [2])).isEmpty)
        var iterator = stream.makeAsyncIterator()
        let first = await iterator.next(), second = await iterator.next()
        #expect(first == MonitoringEvent(time: 0, kind: .enterRegion(referenceId: "campus")))
        #expect(second == MonitoringEvent(time: 7, kind: .enterRegion(referenceId: "desk")))
    }

    @Test func venueIdsResolveToIdentitiesAndInvalidReadingsAreDropped() async {
        let identity = IBeaconIdentity(uuid: Self.uuid, major: 3, minor: 1)
        let venue = Venue(beacons: [Venue.Beacon(id: "h3-1", iBeacon: identity, x: 0, y: 0)])
        let hub = EventHub(venue: venue)
        await hub.watch(uuid: Self.uuid, referenceId: "campus")
        #expect(await hub.process(Scan(time: 0, readings: [Reading(beacon: .id("h3-1"), rssi: 0)])).isEmpty)   // rssi 0: dropped
        #expect(topics(await hub.process(Scan(time: 1, readings: [Reading(beacon: .id("h3-1"), rssi: -60)]))) == ["enterRegion"])
        let batch = await hub.flush()
        #expect(batch.first?.time == 1)
        if case .advertisements(let packets) = batch.first?.kind { #expect(packets.map(\.rssi) == [-60]) } else { Issue.record("no batch") }
    }
}
