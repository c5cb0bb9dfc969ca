import Foundation
import Testing
@testable import Whereabouts

/// A room classifier inserted in a hub: A before t = 3, B from then on.
private struct SwitchingClassifier: PlaceClassifier {
    let labels = [PlaceLabel(id: "A"), PlaceLabel(id: "B")]
    func logScores(for scan: Scan, into scores: inout [Double]) -> Bool {
        scores = scan.time < 3 ? [0, -50] : [-50, 0]
        return true
    }
}

/// Why a place changed: the monitor's rule with its own numbers, and the scan behind it.
@Suite("Place changes explained")
struct PlaceChangeTests {
    @Test func theMonitorRecordsEachChangeWithItsRule() {
        var monitor = PlaceMonitor()
        #expect(monitor.lastChange == nil)
        for time in [0.0, 1, 2] { _ = monitor.observe(PlaceEstimate(place: "A", probability: 0.9), at: time) }
        #expect(monitor.lastChange == PlaceMonitor.Change(time: 2, from: nil, to: "A", rule: .votes(count: 3, firstVote: 0)))
        // A slow scanner: two votes 4 s apart (at least 3 s) switch.
        _ = monitor.observe(PlaceEstimate(place: "B", probability: 0.9), at: 10)
        #expect(monitor.lastChange?.to == "A", "one vote changed nothing")
        _ = monitor.observe(PlaceEstimate(place: "B", probability: 0.9), at: 14)
        #expect(monitor.lastChange == PlaceMonitor.Change(time: 14, from: "A", to: "B", rule: .votes(count: 2, firstVote: 10)))
        // A vote for the current place starts the count again: the run that wins begins at 22.
        _ = monitor.observe(PlaceEstimate(place: "C", probability: 0.9), at: 20)
        _ = monitor.observe(PlaceEstimate(place: "B", probability: 0.9), at: 21)
        for time in [22.0, 23, 24] { _ = monitor.observe(PlaceEstimate(place: "C", probability: 0.9), at: time) }
        #expect(monitor.lastChange == PlaceMonitor.Change(time: 24, from: "B", to: "C", rule: .votes(count: 3, firstVote: 22)))
        // No place wins like any place.
        for time in [25.0, 26, 27] { _ = monitor.observe(PlaceEstimate(place: nil, probability: 0.8), at: time) }
        #expect(monitor.lastChange == PlaceMonitor.Change(time: 27, from: "C", to: nil, rule: .votes(count: 3, firstVote: 25)))
        // A belief's majority, at once.
        _ = monitor.observe(PlaceEstimate(place: "D", probability: 0.7, isBelief: true), at: 30)
        #expect(monitor.lastChange == PlaceMonitor.Change(time: 30, from: nil, to: "D", rule: .belief(probability: 0.7)))
        // Silence: the exit falls due 30 s after the last observation.
        #expect(monitor.advance(to: 59).isEmpty)
        #expect(monitor.lastChange?.to == "D")
        #expect(monitor.advance(to: 75) == [PlaceEvent(.exit, place: "D", time: 60)])
        #expect(monitor.lastChange == PlaceMonitor.Change(time: 60, from: "D", to: nil, rule: .timeout(lastObservation: 30)))
    }

    @Test func anExplanationKeepsTheStrongestValidReadings() {
        let rssis: [Double] = [-80, -60, 0, -70, .nan, -60, -90, -65, 5, -75, -85, -95, -55]
        let readings = rssis.enumerated().map { Reading(beacon: .id("b\($0.offset)"), rssi: $0.element) }
        let change = PlaceMonitor.Change(time: 1, from: nil, to: "A", rule: .belief(probability: 0.6))
        let explanation = PlaceChangeExplanation(change: change, readings: readings)
        // Strongest first, equals in the order they came (b1 before b5), invalid ones (0, NaN, +5) out, 8 kept.
        #expect(explanation.readings.map(\.beacon) == ["b12", "b1", "b5", "b7", "b3", "b9", "b0", "b10"].map(BeaconReference.id))
        #expect(PlaceChangeExplanation.maximumReadings == 8)
    }

    /// A hub's step can make two changes: an inserted classifier's last batch falling due with
    /// the exit of its place by timeout. Only the latest is kept, so only its exit is explained.
    @Test func twoChangesInOneStepExplainOnlyTheLatest() async throws {
        let uuid = try #require(UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"))
        var monitor = MonitorPipeline(venue: nil, configuration: EventHub.Configuration(placeMonitor: .firstAnswer),
                                      regions: [BeaconRegion(uuid: uuid, referenceId: "campus")], explainsPlaceChanges: true)
        await monitor.hub(for: "phone").insertClassifier(SwitchingClassifier())
        var events: [DeviceEvent] = []
        for time in [0.0, 1, 2, 3] {
            let reading = Reading(beacon: .iBeacon(IBeaconIdentity(uuid: uuid, major: 1, minor: 1)), rssi: -70)
            events += await monitor.process(Scan(time: time, device: "phone", readings: [reading]), estimate: nil)
        }
        // The batch of t = 0 entered A when it fell due (at the scan of t = 1).
        #expect(events.filter(\.changesPlace).map(\.explanation?.change) == [
            PlaceMonitor.Change(time: 0, from: nil, to: "A", rule: .votes(count: 1, firstVote: 0))])
        // The batch of t = 3 falls due with the exit of B, 30 s after it, in one step.
        let step = await monitor.advance(to: 40).filter(\.changesPlace)
        #expect(step.map(\.event) == [MonitoringEvent(time: 3, kind: .exitLocation(region: "campus", location: "A")),
                                      MonitoringEvent(time: 3, kind: .enterLocation(region: "campus", location: "B")),
                                      MonitoringEvent(time: 33, kind: .exitLocation(region: "campus", location: "B"))])
        #expect(step.map(\.explanation?.change) == [nil, nil, PlaceMonitor.Change(time: 33, from: "B", to: nil,
                                                                                   rule: .timeout(lastObservation: 3))])
    }

    @Test func aPipelineThatExplainsGivesEachChangeItsRuleAndScan() async {
        func scan(_ time: Double) -> Scan {
            Scan(time: time, device: "phone", readings: [Reading(beacon: .id("weak"), rssi: -90), Reading(beacon: .id("strong"), rssi: -60)])
        }
        let estimate = PlaceEstimate(place: "kitchen", probability: 0.9)
        func fix(_ time: Double) -> Fix {
            Fix(time: time, device: "phone", point: SpatialPoint(x: 1, y: 2, z: 0), floor: 0, accuracy: 1.5, method: "test")
        }
        for explains in [false, true] {
            var monitor = MonitorPipeline(venue: nil, explainsPlaceChanges: explains)
            var events: [DeviceEvent] = []
            for time in [10.0, 11, 12] { events += await monitor.process(scan(time), estimate: estimate, fix: fix(time)) }
            events += await monitor.finish()
            let changes = events.filter(\.changesPlace)
            #expect(changes.map(\.event) == [MonitoringEvent(time: 12, kind: .enterLocation(region: nil, location: "kitchen")),
                                             MonitoringEvent(time: 42, kind: .exitLocation(region: nil, location: "kitchen"))])
            #expect(events.filter { !$0.changesPlace }.allSatisfy { $0.explanation == nil })
            guard explains else {
                #expect(changes.allSatisfy { $0.explanation == nil })
                continue
            }
            #expect(changes.first?.explanation == PlaceChangeExplanation(
                change: PlaceMonitor.Change(time: 12, from: nil, to: "kitchen", rule: .votes(count: 3, firstVote: 10)),
                estimate: estimate, fix: fix(12), readings: scan(12).readings))
            #expect(changes.first?.explanation?.readings.map(\.beacon) == [.id("strong"), .id("weak")])
            #expect(changes.last?.explanation == PlaceChangeExplanation(
                change: PlaceMonitor.Change(time: 42, from: "kitchen", to: nil, rule: .timeout(lastObservation: 12))))
        }
    }
}
