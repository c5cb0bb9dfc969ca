import Testing
@testable import Whereabouts

@Suite struct TrackCollectorTests {
    static func scan(_ time: Double, _ device: String?, _ track: String? = nil) -> Scan {
        Scan(time: time, device: device, track: track, readings: [])
    }

    @Test func aTrackIsHandedOverWhenItsDeviceStartsAnother() {
        var collector = TrackCollector()
        #expect(collector.add(Self.scan(0, "a", "1")) == nil)
        #expect(collector.add(Self.scan(1, "b")) == nil)
        #expect(collector.add(Self.scan(2, "a", "1")) == nil)
        #expect(collector.pendingScans == 3)
        // Device a's track 2 ends its track 1; device b's open track is untouched.
        let ended = collector.add(Self.scan(3, "a", "2"))
        #expect(ended?.map(\.time) == [0, 2])
        #expect(collector.pendingScans == 2)
        #expect(collector.add(Self.scan(4, "b")) == nil)
        // A device without a name is one device too; going back to an earlier track is a new run.
        #expect(collector.add(Self.scan(5, nil)) == nil)
        #expect(collector.add(Self.scan(6, "a", "1"))?.map(\.time) == [3])
        // At the end: the open tracks in the order they started.
        #expect(collector.finish().map { $0.map(\.time) } == [[1, 4], [5], [6]])
        #expect(collector.pendingScans == 0)
        #expect(collector.finish().isEmpty)
    }

    @Test func smoothedTracksAreScoredScanByScan() {
        // The preset room, scored per track with the smoother: every scan counted and located once.
        let preset = SimulationPreset.espresenseRoom
        let scans = Array(preset.simulator(seed: 2))
        let configuration = LocatorConfiguration(filter: nil, tracking: .stopAndGo)
        var online = EvaluationRun(venue: preset.venue, algorithms: [.default], configuration: configuration)
        var smoothed = EvaluationRun(venue: preset.venue, algorithms: [.default], configuration: configuration, timing: .wholeTrack())
        for scan in scans {
            online.add(scan)
            smoothed.add(scan)
        }
        online.finish()
        smoothed.finish()
        #expect(smoothed.scans == scans.count && smoothed.scansWithPosition == online.scansWithPosition)
        let onlineReport = online.reports(dataset: "room")[0], smoothedReport = smoothed.reports(dataset: "room")[0]
        #expect(smoothedReport.located == onlineReport.located && smoothedReport.located == scans.count)
        #expect(smoothed.entries[0].statistics.scans == scans.count && smoothed.entries[0].statistics.devices == 1)
        #expect(smoothed.samples.count == online.samples.count)
        // The walk's moving stretches lose their lag.
        let onlineP95 = onlineReport.error?.p95 ?? 0, smoothedP95 = smoothedReport.error?.p95 ?? .infinity
        #expect(smoothedP95 < 0.8 * onlineP95, "p95: smoothed \(smoothedP95), online \(onlineP95)")
    }
}
