import Foundation
import Testing
@testable import Whereabouts

/// ``MonitorPipeline`` and ``ScanPipeline``: per-device hubs, events in order, the end of input.
@Suite struct MonitorPipelineTests {
    static let uuid = UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0") ?? UUID()
    static let venue = Venue(beacons: [Venue.Beacon(id: "b1", iBeacon: IBeaconIdentity(uuid: uuid, major: 1, minor: 1), x: 0, y: 0)])

    private func scan(_ time: Double, _ device: String) -> Scan {
        Scan(time: time, device: device, readings: [Reading(beacon: .id("b1"), rssi: -60)])
    }

    /// (device, topic, time, place) of the enters and exits.
    private func changes(_ events: [DeviceEvent]) -> [String] {
        events.compactMap { item in
            let device = item.device ?? "-"
            switch item.event.kind {
            case .enterRegion(let id), .exitRegion(let id): return "\(device) \(item.event.topic) \(id) \(item.event.time)"
            case .enterLocation(_, let place), .exitLocation(_, let place): return "\(device) \(item.event.topic) \(place) \(item.event.time)"
            case .advertisements, .currentLocation: return nil
            }
        }
    }

    @Test func eachDeviceHasItsHubAndTheEndLetsEveryExitFallDue() async {
        var monitor = MonitorPipeline(venue: Self.venue)
        #expect(monitor.regions == [BeaconRegion(uuid: Self.uuid, referenceId: Self.uuid.uuidString)])
        var events: [DeviceEvent] = []
        let kitchen = PlaceEstimate(place: "kitchen", probability: 0.9)
        events += await monitor.process(scan(0, "a"), estimate: kitchen)
        events += await monitor.process(scan(1, "a"), estimate: kitchen)
        events += await monitor.process(scan(1.5, "b"), estimate: nil)
        events += await monitor.process(scan(2, "a"), estimate: kitchen)   // the third vote: a enters the kitchen
        let live = changes(events)
        let region = Self.uuid.uuidString
        #expect(live == ["a enterRegion \(region) 0.0", "b enterRegion \(region) 1.5", "a enterLocation kitchen 2.0"])
        #expect(monitor.deviceCount == 2)
        // The end: time runs to 2 + 30 s; a leaves its place before its region (a tie), then b its region.
        let end = changes(await monitor.finish())
        #expect(end == ["a exitLocation kitchen 32.0", "a exitRegion \(region) 32.0", "b exitRegion \(region) 31.5"])
    }

    @Test func regionsCanBeGivenAndAVenueWithoutUUIDsHasNone() {
        let plain = Venue(beacons: [Venue.Beacon(id: "x", x: 0, y: 0)])
        #expect(MonitorPipeline(venue: plain).regions.isEmpty)
        let region = BeaconRegion(uuid: Self.uuid, major: 1, referenceId: "hall")
        #expect(MonitorPipeline(venue: plain, regions: [region]).regions == [region])
    }

    @Test func theScanPipelineIsTheWatchChainOfTwoDevices() async {
        // Two visitors of the bundled example, interleaved.
        let preset = SimulationPreset.example
        var scans: [Scan] = []
        for (seed, device) in [(UInt64(42), "anna"), (43, "ben")] {
            scans += preset.simulator(seed: seed).prefix(400).map { scan in
                var scan = scan
                scan.device = device
                return scan
            }
        }
        scans.sort { $0.time < $1.time }
        let setup = PositioningAlgorithm.default.setup(venue: preset.venue)
        var pipeline = ScanPipeline(setup: setup, places: .containment(PlaceContainment(venue: preset.venue)),
                                    monitor: MonitorPipeline(venue: preset.venue))
        var events: [DeviceEvent] = []
        for scan in scans { events += await pipeline.process(scan) }
        events += await pipeline.finish()

        // The same chain wired by hand: one locator set, one hub per device, the end's advance and flush.
        var locators = DeviceLocators(setup: setup)
        let containment = PlaceContainment(venue: preset.venue)
        var hubs: [String: EventHub] = [:]
        var order: [String] = []
        var expected: [DeviceEvent] = []
        for scan in scans {
            let device = scan.device ?? ""
            if hubs[device] == nil {
                let hub = EventHub(venue: preset.venue)
                await hub.watch(uuid: SimulationPreset.exampleUUID, referenceId: SimulationPreset.exampleUUID.uuidString)
                hubs[device] = hub
                order.append(device)
            }
            guard let hub = hubs[device] else { continue }
            expected += await hub.process(scan).map { DeviceEvent(device: device, event: $0) }
            if let fix = locators.locate(scan) {
                expected += await hub.process(containment.estimate(for: fix), at: scan.time).map { DeviceEvent(device: device, event: $0) }
            }
        }
        let end = (scans.last?.time ?? 0) + 30
        for device in order {
            guard let hub = hubs[device] else { continue }
            expected += await hub.advance(to: end).map { DeviceEvent(device: device, event: $0) }
            expected += await hub.flush().map { DeviceEvent(device: device, event: $0) }
        }
        #expect(changes(events).contains { $0.hasPrefix("ben enterLocation") })
        #expect(events.count == expected.count)
        let same = events == expected
        #expect(same, "the scan pipeline's events differ from the hand-wired chain's")
    }

    @Test func aClassifierSourceNeedsNoFixesAndKeepsABeliefPerDevice() throws {
        func scan(_ rssi: Double, _ place: String? = nil, device: String = "a") -> Scan {
            Scan(time: 0, device: device, readings: [Reading(beacon: .id("b1"), rssi: rssi)],
                 truth: place.map { GroundTruth(place: $0) })
        }
        let training = (0..<5).flatMap { _ in [scan(-50, "near"), scan(-80, "far")] }
        let classifier = NearestNeighbourPlaceClassifier(training: PlaceTrainingSet(scans: training, venue: Self.venue), k: 1)
        let smoothing = PlaceSmoothing(temperature: 1, switching: 0.1)
        var source = PlaceSource.classifier(PlaceTracker(classifier: classifier, smoothing: smoothing))
        var reference = PlaceTracker(classifier: classifier, smoothing: smoothing)
        #expect(!source.needsFixes)
        #expect(PlaceSource.containment(PlaceContainment(venue: Self.venue)).needsFixes)
        for (rssi, device) in [(-50.0, "a"), (-51, "a"), (-80, "b"), (-79, "a"), (-81, "b")] {
            let estimate = source.estimate(for: scan(rssi, device: device), fix: nil)
            let expected = reference.classify(scan(rssi, device: device)).map { PlaceEstimate(place: $0.place, probability: $0.probability) }
            #expect(estimate == expected && estimate != nil)
        }
        // Containment needs a fix, and gives nothing without one.
        var containment = PlaceSource.containment(PlaceContainment(venue: Self.venue))
        #expect(containment.estimate(for: scan(-50), fix: nil) == nil)
    }
}
