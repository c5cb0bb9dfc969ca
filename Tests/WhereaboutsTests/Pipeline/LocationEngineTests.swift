import Foundation
import Testing
@testable import Whereabouts

/// A venue of four beacons at the corners of a 10 × 10 m square, −59 dBm at 1 m, n = 2, heights unknown.
private let square = Venue(beacons: [
    Venue.Beacon(id: "a", x: 0, y: 0), Venue.Beacon(id: "b", x: 10, y: 0),
    Venue.Beacon(id: "c", x: 0, y: 10), Venue.Beacon(id: "d", x: 10, y: 10),
])

/// The noise-free RSSI at `d` metres: −59 − 20·log10(d).
private func rssi(_ d: Double) -> Double { -59 - 20 * log10(d) }

private func scan(at time: Double, device: String?, track: String? = nil, near beacon: String) -> Scan {
    Scan(time: time, device: device, track: track, readings: [Reading(beacon: .id(beacon), rssi: rssi(1))])
}

@Suite("Location engine")
struct LocationEngineTests {
    @Test func locatorBuildsObservationsFromRecentBeacons() {
        let venue = PositioningVenue(square)
        var locator = Locator(venue: venue, solver: WeightedCentroid(venue: venue),
                              configuration: LocatorConfiguration(filter: nil, beaconTimeout: 5))
        _ = locator.observe(Scan(time: 0, readings: [Reading(beacon: .id("a"), rssi: rssi(2))]))
        // 3 s later "b" is heard: "a" still counts (kept 5 s) ...
        let both = locator.observe(Scan(time: 3, readings: [Reading(beacon: .id("b"), rssi: rssi(4)), Reading(beacon: .id("zz"), rssi: -50)]))
        #expect(both.signals.map(\.beaconIndex) == [0, 1])   // strongest first; the unknown beacon is ignored
        // Range from −59 − 20·log10(2): d = 10^((−59 − rssi)/20) = 2 m.
        #expect(abs((both.ranges.first?.distance ?? 0) - 2) < 1e-9)
        // ... but not 6 s after it was last heard.
        let later = locator.observe(Scan(time: 6.5, readings: [Reading(beacon: .id("b"), rssi: rssi(4))]))
        #expect(later.signals.map(\.beaconIndex) == [1])
    }

    @Test func locatorsKeepDevicesAndTracksApart() {
        let venue = PositioningVenue(square)
        var pool = DeviceLocators(venue: venue, solver: WeightedCentroid(venue: venue))
        // Device 1 hears "a" only, device 2 "d" only: each fix sits on its own device's beacon.
        let one = pool.locate(scan(at: 0, device: "1", near: "a"))
        let two = pool.locate(scan(at: 0.5, device: "2", near: "d"))
        let oneAgain = pool.locate(scan(at: 1, device: "1", near: "a"))
        #expect(one?.point.planar == PlanarPoint(x: 0, y: 0))
        #expect(two?.point.planar == PlanarPoint(x: 10, y: 10))
        #expect(oneAgain?.point.planar == PlanarPoint(x: 0, y: 0))
        #expect(two?.device == "2")
        // A new track of device 1 starts afresh: "a" from the first track is not remembered.
        let newTrack = pool.locate(scan(at: 1.5, device: "1", track: "second", near: "d"))
        #expect(newTrack?.point.planar == PlanarPoint(x: 10, y: 10))
        #expect(pool.deviceCount == 2)
    }

    @Test func locatorsFollowRunsAndSwitchesOfDevices() {
        let venue = PositioningVenue(square)
        var pool = DeviceLocators(venue: venue, solver: WeightedCentroid(venue: venue),
                                 configuration: LocatorConfiguration(filter: nil, beaconTimeout: 5))
        // Device "1" hears "a" twice in a row, then no-name hears "d", then "1" hears "b": its
        // locator still remembers "a" (midway between a and b), the no-name one only "d".
        _ = pool.locate(scan(at: 0, device: "1", near: "a"))
        _ = pool.locate(scan(at: 0.5, device: "1", near: "a"))
        let anonymous = pool.locate(scan(at: 1, device: nil, near: "d"))
        let one = pool.locate(scan(at: 1.5, device: "1", near: "b"))
        let anonymousAgain = pool.locate(scan(at: 2, device: nil, near: "c"))
        #expect(anonymous?.point.planar == PlanarPoint(x: 10, y: 10))
        #expect(one?.point.planar == PlanarPoint(x: 5, y: 0))
        #expect(anonymousAgain?.point.planar == PlanarPoint(x: 5, y: 10))
        #expect(pool.deviceCount == 2)
        #expect(pool.trackStarts == 2)
        #expect(pool.calls == 5)
        // A new track of the device just seen starts afresh too.
        let restarted = pool.locate(scan(at: 2.5, device: nil, track: "next", near: "a"))
        #expect(restarted?.point.planar == PlanarPoint(x: 0, y: 0))
        #expect(pool.trackStarts == 3)
    }

    @Test func engineStreamsFixesOfARecording() async throws {
        let preset = SimulationPreset.espresenseRoom
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("engine-\(UUID()).jsonl")
        defer { try? FileManager.default.removeItem(at: url) }
        let writer = try RecordingWriter(url: url)
        for scan in preset.simulator(seed: 3) { try writer.write(scan) }
        try writer.finish()

        let engine = LocationEngine(configuration: .init(venue: preset.venue))
        var fixes: [Fix] = []
        for try await fix in engine.fixes(from: try RecordingReader(url: url)) { fixes.append(fix) }
        #expect(fixes.count == preset.simulator(seed: 3).scanCount)
        for fix in fixes {
            #expect(fix.point.x.isFinite && fix.point.y.isFinite && fix.accuracy.isFinite)
            #expect(fix.device == "phone")
            #expect(fix.floor == 0)
        }
        // Every fix lies within the venue's bounds (the 6 × 4 m room and a margin), nearly all in the room.
        let bounds = try #require(PositioningVenue(preset.venue).bounds)
        #expect(fixes.allSatisfy { bounds.contains($0.point.planar) })
        let inRoom = fixes.filter { (0...6).contains($0.point.x) && (0...4).contains($0.point.y) }.count
        #expect(Double(inRoom) >= 0.9 * Double(fixes.count))
        // The stream had its own pipeline: the engine's shared state is untouched, and process() works on its own.
        let first = try #require(preset.simulator(seed: 3).first { _ in true })
        let direct = await engine.process(first)
        #expect(direct == fixes.first)
    }

    @Test func engineStreamsFixesALagLate() async throws {
        let preset = SimulationPreset.espresenseRoom
        let scans = Array(preset.simulator(seed: 3))
        let configuration = LocatorConfiguration(filter: nil, tracking: .stopAndGo)
        let engine = LocationEngine(configuration: .init(venue: preset.venue, locator: configuration))
        let stream = AsyncStream<Scan> { continuation in
            for scan in scans { continuation.yield(scan) }
            continuation.finish()
        }
        var fixes: [Fix] = []
        for await fix in engine.fixes(from: stream, lag: 1) { fixes.append(fix) }
        // Every scan's fix, in order, the last ones after the scans ended: those of FixedLagLocators.
        #expect(fixes.count == scans.count)
        let inOrder = fixes.map(\.time) == scans.map(\.time)
        #expect(inOrder, "one fix per scan, in order")
        let pipeline = PositioningAlgorithm.allCases[0].setup(venue: preset.venue, configuration: configuration).makeLocators()
        var reference = FixedLagLocators(venue: pipeline.venue, solver: pipeline.solver, configuration: pipeline.configuration, lag: 1)
        let expected = scans.flatMap { reference.locate($0) } + reference.finish()
        let same = fixes == expected
        #expect(same, "the engine's fixes differ from FixedLagLocators'")
        // Not the live fixes: the lag changes where they are.
        var live: [Fix] = []
        for await fix in engine.fixes(from: AsyncStream<Scan> { continuation in
            for scan in scans { continuation.yield(scan) }
            continuation.finish()
        }) { live.append(fix) }
        let differ = live != fixes
        #expect(live.count == fixes.count && differ)
    }

    /// Live, a fixed lag's fix comes out a lag after its scan although no later scan comes (a
    /// replay would hold it until the next scan or the end).
    @Test func liveFixesComeALagAfterTheirScanWithoutAnother() async throws {
        let engine = LocationEngine(configuration: .init(venue: square, locator: LocatorConfiguration(filter: nil, tracking: .stopAndGo)))
        let clock = ManualClock()
        let (scans, input) = AsyncStream.makeStream(of: Scan.self)
        let times = LockedValue<[Double]>([])
        let locating = Task {
            for await fix in engine.fixes(from: scans, lag: 1, pace: .live(clock)) { times.withValue { $0.append(fix.time) } }
        }
        input.yield(Scan(time: 100, device: "phone", readings: ["a", "b", "c", "d"].map { Reading(beacon: .id($0), rssi: rssi(7)) }))
        try await ScanTimelineTests.waitUntilSleeping(clock)
        // The timer is set for the lag: one second after the scan came in.
        #expect(clock.nextDeadline == ManualClock.Instant(offset: .seconds(1)))
        #expect(times.value.isEmpty)
        await clock.advance(to: clock.nextDeadline ?? ManualClock.Instant(offset: .seconds(1)))
        try await ScanTimelineTests.wait { times.value == [100] }
        input.finish()
        await locating.value
        #expect(times.value == [100])
    }
}
