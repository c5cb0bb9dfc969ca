import Testing
@testable import Whereabouts

/// ``FixPipeline``: each timing gives exactly the fixes of the stage it stands for.
@Suite struct FixPipelineTests {
    static let preset = SimulationPreset.espresenseRoom
    static let configuration = LocatorConfiguration(filter: nil, tracking: .stopAndGo)
    static let setup = PositioningAlgorithm.multilateration.setup(venue: preset.venue, configuration: configuration)

    /// Two devices' walks, interleaved by time, each split into two tracks.
    static var scans: [Scan] {
        var scans: [Scan] = []
        for (seed, device) in [(UInt64(6), "phone"), (7, "watch")] {
            let walk = Array(preset.simulator(seed: seed))
            let half = ((walk.first?.time ?? 0) + (walk.last?.time ?? 0)) / 2
            scans += walk.map { scan in
                var scan = scan
                scan.device = device
                scan.track = scan.time < half ? "first" : "second"
                return scan
            }
        }
        return scans.sorted { $0.time < $1.time }
    }

    @Test func immediateTimingIsTrackLocators() {
        let scans = Self.scans
        var pipeline = FixPipeline(setup: Self.setup)
        var reference = DeviceLocators(setup: Self.setup)
        var fixes: [Fix] = []
        for scan in scans { fixes += pipeline.add(scan) }
        fixes += pipeline.finish()
        let expected = scans.compactMap { reference.locate($0) }
        #expect(!expected.isEmpty)
        let same = fixes == expected
        #expect(same, "the immediate pipeline's fixes differ from DeviceLocators'")
        let statistics = pipeline.statistics
        #expect(statistics.scans == scans.count && statistics.fixes == expected.count)
        #expect(statistics.devices == 2 && statistics.trackStarts == 4)
        #expect(pipeline.pendingCount == 0)
    }

    @Test func fixedLagTimingIsFixedLagLocators() {
        let scans = Self.scans
        var pipeline = FixPipeline(setup: Self.setup, timing: .fixedLag(seconds: 1))
        var reference = FixedLagLocators(setup: Self.setup, lag: 1)
        var fixes: [Fix] = []
        var expected: [Fix] = []
        for scan in scans {
            pipeline.add(scan) { fixes.append($0) }
            expected += reference.locate(scan)
            // Both held back the same fixes so far.
            #expect(pipeline.pendingCount == reference.pendingCount)
        }
        pipeline.advance(to: (scans.last?.time ?? 0) + 0.5) { fixes.append($0) }
        expected += reference.advance(to: (scans.last?.time ?? 0) + 0.5)
        pipeline.finish { fixes.append($0) }
        expected += reference.finish()
        #expect(fixes.count == expected.count && !fixes.isEmpty)
        let same = fixes == expected
        #expect(same, "the fixed-lag pipeline's fixes differ from FixedLagLocators'")
        #expect(pipeline.statistics.fixes == fixes.count && pipeline.pendingCount == 0)
    }

    @Test func wholeTrackTimingSmoothsEachTrackOnceItEnds() {
        let scans = Self.scans
        var pipeline = FixPipeline(setup: Self.setup, timing: .wholeTrack())
        var located: [(Scan?, Fix?)] = []
        for scan in scans { pipeline.add(scan, located: { located.append(($0, $1)) }) }
        // Each device's first track ended when its second began; the second tracks are still open.
        let beforeEnd = located.count
        #expect(pipeline.pendingCount == scans.count - beforeEnd && beforeEnd > 0)
        pipeline.finish(located: { located.append(($0, $1)) })
        #expect(located.count == scans.count, "every scan comes out exactly once")
        // Per track, the fixes are the track's own offline smoothing.
        for device in ["phone", "watch"] {
            for track in ["first", "second"] {
                let trackScans = scans.filter { $0.device == device && $0.track == track }
                var locator = Locator(venue: Self.setup.venue, solver: Self.setup.solver, configuration: Self.setup.configuration)
                let expected = locator.smoothedFixes(for: trackScans)
                let got = located.filter { $0.0?.device == device && $0.0?.track == track }
                #expect(got.map { $0.0 } == trackScans)
                let same = got.map { $0.1 } == expected
                #expect(same, "\(device) \(track): the whole-track fixes differ from the track's smoothing")
            }
        }
        // With a lookahead, the same as the fixed lag's offline counterpart.
        var lagged = FixPipeline(setup: Self.setup, timing: .wholeTrack(lookahead: 1))
        var laggedFixes: [Fix] = []
        for scan in scans { lagged.add(scan) { laggedFixes.append($0) } }
        lagged.finish { laggedFixes.append($0) }
        let phoneFirst = scans.filter { $0.device == "phone" && $0.track == "first" }
        var locator = Locator(venue: Self.setup.venue, solver: Self.setup.solver, configuration: Self.setup.configuration)
        let expected = locator.smoothedFixes(for: phoneFirst, lag: 1).compactMap { $0 }
        let got = laggedFixes.filter { fix in phoneFirst.contains { $0.time == fix.time && $0.device == fix.device } }
        #expect(got == expected)
    }

    @Test func theSolverReportsItsChosenPipelineAsAValue() throws {
        var configuration = LocatorConfiguration()
        configuration.choosesFilterAndTracking = true
        let chosen = PositioningAlgorithm.default.setup(venue: Self.preset.venue, configuration: configuration)
        let validated = try #require(chosen.chosenPipeline)
        // The locators run what the solver chose.
        #expect(validated.filter == chosen.configuration.filter)
        #expect(validated.tracking?.model == chosen.configuration.tracking?.model)
        // Without leave to choose, or with a solver that validates nothing, there is no choice.
        #expect(PositioningAlgorithm.default.setup(venue: Self.preset.venue).chosenPipeline == nil)
        #expect(PositioningAlgorithm.multilateration.setup(venue: Self.preset.venue, configuration: configuration).chosenPipeline == nil)
        #expect(Multilateration(venue: PositioningVenue(Self.preset.venue)).validatedSettings == nil)
    }
}
