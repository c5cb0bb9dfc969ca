import Foundation
import Testing
@testable import Whereabouts

/// ``FixedLagLocators``: many devices' fixes, each reported `lag` seconds of scans late.
@Suite struct FixedLagLocatorsTests {
    static let preset = SimulationPreset.espresenseRoom
    static let venue = PositioningVenue(preset.venue)
    static let solver = Multilateration(venue: venue)
    static let configuration = LocatorConfiguration(filter: nil, tracking: .stopAndGo)

    /// The preset room's walk of `seed` by `device`, its second half a track of its own.
    static func walk(seed: UInt64, device: String = "phone") -> [Scan] {
        let scans = Array(preset.simulator(seed: seed))
        let half = ((scans.first?.time ?? 0) + (scans.last?.time ?? 0)) / 2
        return scans.map { scan in
            var scan = scan
            scan.device = device
            scan.track = scan.time < half ? "first" : "second"
            return scan
        }
    }

    static func locators(lag: Double) -> FixedLagLocators {
        FixedLagLocators(venue: venue, solver: solver, configuration: configuration, lag: lag)
    }

    @Test func oneDevicesFixesAreEachTracksLaggedSmoothing() {
        let scans = Self.walk(seed: 4)
        var locators = Self.locators(lag: 1)
        var streamed: [Fix] = []
        for scan in scans { streamed += locators.locate(scan) }
        streamed += locators.finish()
        // The same as smoothing each track on its own, one second late.
        var reference: [Fix] = []
        for track in ["first", "second"] {
            var locator = Locator(venue: Self.venue, solver: Self.solver, configuration: Self.configuration)
            reference += locator.smoothedFixes(for: scans.filter { $0.track == track }, lag: 1).compactMap { $0 }
        }
        #expect(Set(scans.map(\.track)).count == 2 && !reference.isEmpty)
        #expect(streamed.count == reference.count)
        let same = streamed == reference
        #expect(same, "the streamed fixes differ from the tracks' smoothing")
        #expect(locators.calls == scans.count && locators.fixes == reference.count)
        #expect(locators.pendingCount == 0 && locators.deviceCount == 1)
    }

    @Test func eachFixWaitsForItsLagAndNoLonger() {
        let scans = Self.walk(seed: 5)
        let lag = 1.5
        var locators = Self.locators(lag: lag)
        var reported = 0
        var located: [Double] = []   // the times of the fixes of the scans so far, from the plain pipeline
        var plain = DeviceLocators(venue: Self.venue, solver: Self.solver,
                                  configuration: LocatorConfiguration(filter: nil, tracking: nil))
        for scan in scans {
            if let fix = plain.locate(scan) { located.append(fix.time) }
            let out = locators.locate(scan)
            // Nothing before its time: every fix out is `lag` old, or its track has ended.
            #expect(out.allSatisfy { $0.time + lag <= scan.time || scan.track == "second" })
            reported += out.count
            // Nothing later either: every fix of this track that is `lag` old is out.
            let due = located.filter { $0 + lag <= scan.time }.count
            #expect(reported >= due, "at \(scan.time): \(reported) out, \(due) due")
            #expect(reported == located.count - locators.pendingCount)
        }
        reported += locators.finish().count
        #expect(reported == located.count)
    }

    @Test func noLagIsTheOnlineTracker() throws {
        let scans = Self.walk(seed: 6)
        var delayed = Self.locators(lag: 0)
        var online = DeviceLocators(venue: Self.venue, solver: Self.solver, configuration: Self.configuration)
        for scan in scans {
            let fix = online.locate(scan)
            let out = delayed.locate(scan)
            #expect(out.count == (fix == nil ? 0 : 1))
            guard let fix, let report = out.first else { continue }
            #expect(report.time == fix.time && report.beacons == fix.beacons)
            #expect(report.point.planar.distance(to: fix.point.planar) < 1e-9)
            #expect(abs(report.accuracy - fix.accuracy) < 1e-9)
        }
        #expect(delayed.finish().isEmpty)
    }

    @Test func aSilentDevicesFixesComeOutAsTimeGoesOn() {
        // Device "a" is heard for its first 10 s only, "b" all along: "a"'s last fixes come out
        // once "b"'s scans are a second past them, not at the end.
        let start = Self.walk(seed: 7).first?.time ?? 0
        let a = Self.walk(seed: 7, device: "a").filter { $0.time < start + 10 }
        let b = Self.walk(seed: 8, device: "b").filter { $0.track == "first" }
        let scans = (a + b).sorted { $0.time < $1.time }
        let lastOfA = a.last?.time ?? 0
        var locators = Self.locators(lag: 1)
        var outOfA: [Fix] = []
        for scan in scans {
            let out = locators.locate(scan)
            outOfA += out.filter { $0.device == "a" }
            if scan.time >= lastOfA + 1 {
                #expect(outOfA.count == a.count, "at \(scan.time)")
                break
            }
        }
        let inOrder = outOfA.map(\.time) == a.map(\.time)
        #expect(!b.isEmpty && inOrder, "device a's fixes, all and in order")
        // Without any scan, letting the clock run on does the same.
        var quiet = Self.locators(lag: 1)
        var early: [Fix] = []
        for scan in a { early += quiet.locate(scan) }
        #expect(early.count < a.count)
        early += quiet.advance(to: lastOfA + 0.5)
        #expect(early.count < a.count)
        early += quiet.advance(to: lastOfA + 1)
        #expect(early.count == a.count && quiet.pendingCount == 0)
        #expect(quiet.finish().isEmpty)
    }

    @Test func randomStreamsLoseNoFixAndNeverGiveNaN() {
        // Random devices, tracks, clocks that stall, jump and go back, readings of any strength:
        // every fix the plain pipeline gives comes out once, finite, with its device.
        let beacons = Self.preset.venue.beacons.map(\.id)
        for seed in UInt64(1)...20 {
            var random = SeededRandom(seed: seed)
            var time = 0.0
            var scans: [Scan] = []
            for _ in 0..<200 {
                let step = random.nextUniform()
                time += step < 0.1 ? 0 : step < 0.15 ? -3 * random.nextUniform() : step < 0.2 ? 20 : 0.5 * random.nextUniform()
                let device = ["a", "b", "c"][Int(random.nextUniform() * 3) % 3]
                let track = random.nextUniform() < 0.05 ? "t\(Int(random.nextUniform() * 3))" : nil
                let readings = beacons.filter { _ in random.nextUniform() < 0.6 }.map { beacon in
                    Reading(beacon: .id(beacon), rssi: -30 - 90 * random.nextUniform())
                }
                scans.append(Scan(time: time, device: device, track: track, readings: readings))
            }
            var plain = DeviceLocators(venue: Self.venue, solver: Self.solver, configuration: LocatorConfiguration(filter: nil))
            let located = scans.compactMap { plain.locate($0) }
            for lag in [0, 0.7, 3] {
                var locators = Self.locators(lag: lag)
                var out: [Fix] = []
                for scan in scans { out += locators.locate(scan) }
                out += locators.advance(to: time + 100)
                #expect(locators.pendingCount == 0)
                out += locators.finish()
                #expect(out.count == located.count, "seed \(seed), lag \(lag)")
                #expect(out.allSatisfy { $0.point.x.isFinite && $0.point.y.isFinite && $0.accuracy.isFinite && $0.accuracy > 0 })
                for device in ["a", "b", "c"] {
                    let mine = out.filter { $0.device == device }.map(\.time)
                    #expect(mine == located.filter { $0.device == device }.map(\.time), "seed \(seed), lag \(lag), \(device)")
                }
            }
        }
    }
}
