import Foundation
import Testing
@testable import Whereabouts

/// ``ScanTimeline``: a replay moves with its scans only; a live source also moves with the clock,
/// so that exits, rounds and delayed fixes fall due while the source is silent. Every live test
/// runs on a ``ManualClock``, moved by hand: nothing sleeps.
@Suite struct ScanTimelineTests {
    // MARK: Harness

    /// A stage run live over a stream the test feeds, with a test clock; its output collected.
    final class LiveRun<Output: Sendable>: Sendable {
        /// How long (real time) to wait for the pipeline's tasks: they may wait that long for a
        /// thread while the rest of the suite keeps both cores busy.
        static var patience: Duration { ScanTimelineTests.patience }
        let clock = ManualClock()
        let input: AsyncStream<Scan>.Continuation
        let outputs = LockedValue<[Output]>([])
        let ended = LockedValue(false)
        private let task: Task<Void, any Error>

        /// Scans the stage has taken in.
        let processed = LockedValue(0)
        private let fed = LockedValue(0)

        init<Stage: TimedStage & Sendable>(_ stage: Stage) where Stage.Output == Output {
            let (scans, input) = AsyncStream.makeStream(of: Scan.self)
            self.input = input
            let clock = clock, outputs = outputs, ended = ended
            var counted = Counted(stage: stage, processed: processed)
            task = Task {
                var timeline = ScanTimeline(scans: scans, pace: .live(clock))
                try await timeline.run(&counted) { due in outputs.withValue { $0 += due } }
                ended.value = true
            }
        }

        /// Feeds a scan and waits until the stage has taken it in and the timeline sleeps until
        /// its next deadline. (A timer registered only after the clock moved on fires at once, so
        /// the outcome does not depend on how soon it is registered.)
        func feed(_ scan: Scan) async throws {
            let count = fed.withValue { count in
                count += 1
                return count
            }
            input.yield(scan)
            let deadline = ContinuousClock.now + Self.patience
            while processed.value < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
            #expect(processed.value == count)
            try await waitUntilSleeping()
        }

        /// Waits (in real time, at most `patience`) until the timeline sleeps on the test clock.
        func waitUntilSleeping() async throws {
            let deadline = ContinuousClock.now + Self.patience
            while ContinuousClock.now < deadline {
                if clock.sleeperCount > 0 { return }   // a sleep is registered
                try await Task.sleep(for: .milliseconds(1))
            }
            Issue.record("the timeline never slept on the clock")
        }

        /// Waits (in real time, at most `patience`) until `condition` holds of the outputs.
        func wait(until condition: ([Output]) -> Bool) async throws {
            let deadline = ContinuousClock.now + Self.patience
            while ContinuousClock.now < deadline {
                if condition(outputs.value) { return }
                try await Task.sleep(for: .milliseconds(1))
            }
            Issue.record("the outputs never met the condition: \(outputs.value.count) outputs")
        }

        /// Moves the clock on and lets what fell due come out.
        func advance(by duration: Duration) async {
            await clock.advance(by: duration)
        }

        /// Moves the clock on, then waits until the timeline has settled: what fell due came out,
        /// or the timeline sleeps again until a later instant (nothing fell due). A timer that
        /// fires early gives its output here; one that fires late still sleeps: either way the
        /// outputs read after it are the timeline's whole answer for that instant.
        func advanceAndSettle(by duration: Duration) async throws {
            let before = outputs.value.count
            await clock.advance(by: duration)
            let deadline = ContinuousClock.now + Self.patience
            while ContinuousClock.now < deadline {
                if outputs.value.count > before || ended.value { return }
                if clock.sleeperCount > 0, let next = clock.nextDeadline, next > clock.now { return }
                try await Task.sleep(for: .milliseconds(1))
            }
            Issue.record("the timeline neither gave anything nor slept again")
        }

        /// The instant the timeline's timer is armed for, as time since the clock's start.
        var armed: Duration? { clock.nextDeadline?.offset }

        /// Whether the timer is armed for `instant`: at it, or at most a microsecond before (the
        /// timeline rounds its waits down to whole microseconds, never later than a deadline).
        func isArmed(for instant: Duration) -> Bool {
            guard let armed else { return false }
            return armed <= instant && armed >= instant - .microseconds(1)
        }

        /// Ends the input and waits for the run to finish.
        func close() async throws {
            input.finish()
            try await task.value
        }
    }

    /// How long (real time) to wait for a live pipeline's tasks: they may wait that long for a
    /// thread while the rest of the suite keeps both cores busy. Only a failing test waits it out.
    static let patience = Duration.seconds(300)

    /// A stage that counts the scans it takes in.
    struct Counted<Stage: TimedStage & Sendable>: TimedStage, Sendable {
        var stage: Stage
        let processed: LockedValue<Int>

        mutating func process(_ scan: Scan) async -> [Stage.Output] {
            let output = await stage.process(scan)
            processed.withValue { $0 += 1 }
            return output
        }

        mutating func advance(to time: Double) async -> [Stage.Output] { await stage.advance(to: time) }
        func nextDeadline() async -> Double? { await stage.nextDeadline() }
        mutating func finish() async -> [Stage.Output] { await stage.finish() }
    }

    static let uuid = SimulationPreset.exampleUUID

    /// (topic, place or region, time) of the enters and exits.
    static func changes(_ events: [DeviceEvent]) -> [String] {
        events.compactMap { item in
            switch item.event.kind {
            case .enterRegion(let id), .exitRegion(let id): "\(item.event.topic) \(id == uuid.uuidString ? "region" : id) \(item.event.time)"
            case .enterLocation(_, let place), .exitLocation(_, let place): "\(item.event.topic) \(place) \(item.event.time)"
            case .advertisements, .currentLocation: nil
            }
        }
    }

    // MARK: Replay

    /// A replay gives the scans and nothing else, whatever the deadline.
    @Test func aReplayMovesWithItsScansOnly() async throws {
        let scans = (0..<5).map { Scan(time: Double($0) * 10, readings: []) }
        var timeline = ScanTimeline(scans: AsyncStream { continuation in
            for scan in scans { continuation.yield(scan) }
            continuation.finish()
        }, pace: .replay)
        var inputs: [PipelineInput] = []
        while let input = try await timeline.next(deadline: 1) { inputs.append(input) }
        #expect(inputs == scans.map(PipelineInput.scan))
    }

    // MARK: Exits on time

    /// A visitor walks in and falls silent while the source stays open: enterRegion and
    /// enterLocation come with the scans, then exactly at last scan + timeout the place's and the
    /// region's exits (the place first, as at the end of a replay), once, before the input ends;
    /// they are exactly the events a replay gives only at its end.
    @Test func silenceLetsTheExitsFallDueOnceWhileTheSourceStaysOpen() async throws {
        let preset = SimulationPreset.example
        let scans = Array(preset.simulator(seed: 42).prefix(40))
        let configuration = EventHub.Configuration(regionExitTimeout: 4, placeMonitor: PlaceMonitor.Configuration(exitTimeout: 4))
        func pipeline() -> ScanPipeline {
            ScanPipeline(setup: PositioningAlgorithm.default.setup(venue: preset.venue),
                         places: .containment(PlaceContainment(venue: preset.venue)),
                         monitor: MonitorPipeline(venue: preset.venue, configuration: configuration))
        }
        // The replay: the exits come from finish(), at the end of the input.
        var replay = pipeline()
        var replayed: [DeviceEvent] = []
        for scan in scans { replayed += await replay.process(scan) }
        let replayedEnd = Self.changes(await replay.finish())
        let last = try #require(scans.last?.time)
        #expect(replayedEnd.first == "exitLocation \(replayedEnd.first?.split(separator: " ")[1] ?? "") \(last + 4)")
        #expect(replayedEnd.contains("exitRegion region \(last + 4)"))

        let run = LiveRun(pipeline())
        for scan in scans { try await run.feed(scan) }
        let beforeSilence = Self.changes(run.outputs.value)
        #expect(beforeSilence == Self.changes(replayed))
        #expect(beforeSilence.contains { $0.hasPrefix("enterRegion") } && beforeSilence.contains { $0.hasPrefix("enterLocation") })
        // Every scan came at the clock's start: the timer is armed for the last advertisement
        // batch's end, 1 s, then for the exits, 4 s.
        #expect(run.isArmed(for: .seconds(1)), "\(String(describing: run.armed))")
        try await run.advanceAndSettle(by: .seconds(1))
        #expect(Self.changes(run.outputs.value) == beforeSilence)
        #expect(run.isArmed(for: .seconds(4)), "\(String(describing: run.armed))")
        let outputsBefore = run.outputs.value.count

        // 3.9 s of silence: nothing yet, and the timer still armed for 4 s.
        try await run.advanceAndSettle(by: .milliseconds(2_900))
        #expect(run.outputs.value.count == outputsBefore)
        #expect(run.isArmed(for: .seconds(4)))
        // At 4 s: both exits, dated last scan + 4, the place's first.
        try await run.advanceAndSettle(by: .milliseconds(100))
        #expect(Self.changes(run.outputs.value).last?.hasSuffix(" \(last + 4)") == true)
        #expect(Array(Self.changes(run.outputs.value).dropFirst(beforeSilence.count)) == replayedEnd)
        // More silence, then the end of the input: no exit twice.
        await run.advance(by: .seconds(60))
        try await run.close()
        #expect(Array(Self.changes(run.outputs.value).dropFirst(beforeSilence.count)) == replayedEnd)
        #expect(Self.changes(run.outputs.value).filter { $0.hasPrefix("exitRegion") }.count == 1)
    }

    // MARK: Rounds and delays on time

    /// An anchor reached at t = 100 fires when its round ends, at 101, with no scan after it.
    @Test func aRangingRoundClosesOnTime() async throws {
        let identity = IBeaconIdentity(uuid: Self.uuid, major: 1, minor: 1)
        let anchor = AnchorBeacon(id: "desk", beacon: .iBeacon(identity), point: PlanarPoint(x: 1, y: 2))
        let run = LiveRun(AnchorPipeline(anchors: [anchor]))
        // −40 dBm at the default −59 dBm and n = 2: 0.11 m, immediate.
        try await run.feed(Scan(time: 100, device: "phone", readings: [Reading(beacon: .iBeacon(identity), rssi: -40)]))
        #expect(run.isArmed(for: .seconds(1)))                 // the round's end
        await run.advance(by: .milliseconds(400))
        try await run.feed(Scan(time: 100.4, device: "phone", readings: [Reading(beacon: .iBeacon(identity), rssi: -41)]))
        #expect(run.isArmed(for: .seconds(1)))
        try await run.advanceAndSettle(by: .milliseconds(500))
        #expect(run.outputs.value.isEmpty && run.isArmed(for: .seconds(1)))
        try await run.advanceAndSettle(by: .milliseconds(100))
        #expect(run.outputs.value.map(\.fix.anchor) == ["desk"] && run.outputs.value.first?.device == "phone")
        #expect(run.outputs.value.first?.fix.time == 100.4)      // the sighting that fired it
        #expect(run.outputs.value.first?.state.point == PlanarPoint(x: 1, y: 2))
        try await run.close()
        #expect(run.outputs.value.count == 1)
    }

    /// A fixed lag of 2 s gives a fix out 2 s after its scan, though no scan follows.
    @Test func aFixedLagFixIsReleasedOnTime() async throws {
        let preset = SimulationPreset.example
        let setup = PositioningAlgorithm.default.setup(venue: preset.venue)
        let scan = try #require(preset.simulator(seed: 7).prefix(100).first { scan in
            var immediate = setup.makePipeline()
            return !immediate.add(scan).isEmpty
        })
        let run = LiveRun(FixPipeline(setup: setup, timing: .fixedLag(seconds: 2)))
        try await run.feed(scan)
        #expect(run.isArmed(for: .seconds(2)))
        try await run.advanceAndSettle(by: .milliseconds(1_990))
        #expect(run.outputs.value.isEmpty && run.isArmed(for: .seconds(2)))
        try await run.advanceAndSettle(by: .milliseconds(10))
        #expect(run.outputs.value.count == 1)
        #expect(run.outputs.value.first?.time == scan.time)
        try await run.close()
        #expect(run.outputs.value.count == 1)
    }

    /// Hekaerge's order after silence: the nearest beacon's place first while it is heard; a
    /// second after the round closes with no scan, the empty round forgets the position and the
    /// order is the input order again, while the source stays open.
    @Test func theRankingFallsBackToTheInputOrderAfterSilence() async throws {
        let identity = IBeaconIdentity(uuid: Self.uuid, major: 1, minor: 2)
        let venue = Venue(beacons: [Venue.Beacon(id: "b", iBeacon: identity, x: 50, y: 0)],
                          places: [Venue.Place(id: "west", shape: .circle(center: PlanarPoint(x: 0, y: 0), radius: 2, coordinate: nil)),
                                   Venue.Place(id: "east", shape: .circle(center: PlanarPoint(x: 50, y: 0), radius: 2, coordinate: nil))])
        let ranker = PlaceRanker(places: venue.places)
        let orders = LockedValue<[[String]]>([])
        await ranker.setChangeHandler { update in
            orders.withValue { $0.append(update.places.map(\.place.id) + (update.position == nil ? ["(no position)"] : [])) }
        }
        let clock = ManualClock()
        let (scans, input) = AsyncStream.makeStream(of: Scan.self)
        let following = Task { try await ranker.follow(scans, nearestBeaconIn: venue, clock: clock) }
        input.yield(Scan(time: 10, readings: [Reading(beacon: .iBeacon(identity), rssi: -50)]))
        try await Self.waitUntilSleeping(clock)
        #expect(orders.value.isEmpty)
        await clock.advance(by: .seconds(1))   // the round ends: east is nearest
        try await Self.wait { orders.value.count == 1 }
        #expect(orders.value == [["east", "west"]])
        await clock.advance(by: .milliseconds(990))
        #expect(orders.value.count == 1)
        await clock.advance(by: .milliseconds(10))   // a silent round: no position, the input order
        try await Self.wait { orders.value.count == 2 }
        #expect(orders.value.last == ["west", "east", "(no position)"])
        await clock.advance(by: .seconds(10))
        #expect(orders.value.count == 2)
        input.finish()
        try await following.value
    }

    // MARK: The timeline itself

    /// Scans already waiting come before the passing of time: a burst read faster than it is
    /// processed gives the scans only, as a replay would.
    @Test func waitingScansComeBeforeTime() async throws {
        let clock = ManualClock()
        let (scans, input) = AsyncStream.makeStream(of: Scan.self)
        for time in [0.0, 50, 100] { input.yield(Scan(time: time, readings: [])) }
        input.finish()
        var timeline = ScanTimeline(scans: scans, pace: .live(clock))
        var inputs: [PipelineInput] = []
        await clock.advance(by: .seconds(1_000))
        while let next = try await timeline.next(deadline: 1) { inputs.append(next) }
        #expect(inputs == [0.0, 50, 100].map { .scan(Scan(time: $0, readings: [])) })
    }

    /// Time given out is the latest scan's time plus the clock's time since it came; a deadline
    /// no later than the last time given is not waited for (a stage cannot make it spin).
    @Test func liveTimeRunsOnFromTheLatestScan() async throws {
        let clock = ManualClock()
        let (scans, input) = AsyncStream.makeStream(of: Scan.self)
        var timeline = ScanTimeline(scans: scans, pace: .live(clock))
        input.yield(Scan(time: 500, readings: []))
        #expect(try await timeline.next(deadline: nil) == .scan(Scan(time: 500, readings: [])))
        await clock.advance(by: .seconds(2))
        // The deadline (501) is past: it falls due at once, dated now (502).
        #expect(try await timeline.next(deadline: 501) == .time(502))
        // A deadline that is not later than that waits for a scan instead, with no timer.
        let feeder = Task {
            try await Task.sleep(for: .milliseconds(50))
            let sleeping = clock.sleeperCount > 0
            input.yield(Scan(time: 503, readings: []))
            return sleeping
        }
        #expect(try await timeline.next(deadline: 502) == .scan(Scan(time: 503, readings: [])))
        #expect(try await feeder.value == false)
        input.finish()
    }

    /// An inbox's scans come in the order offered, before any passing of time, dated when they
    /// were offered; beyond its capacity they are refused; finished, the timeline ends.
    @Test func anInboxTakesOfferedScans() async throws {
        let clock = ManualClock()
        var (timeline, inbox) = ScanTimeline.makeInbox(clock: clock, capacity: 2)
        #expect(timeline.pace.isLive)
        #expect(inbox.offer(Scan(time: 10, readings: [])))
        await clock.advance(by: .seconds(5))
        #expect(inbox.offer(Scan(time: 11, readings: [])))
        #expect(!inbox.offer(Scan(time: 12, readings: [])))
        // Both waiting scans come first, although the deadline (10.5) is long past.
        #expect(try await timeline.next(deadline: 10.5) == .scan(Scan(time: 10, readings: [])))
        #expect(try await timeline.next(deadline: 10.5) == .scan(Scan(time: 11, readings: [])))
        // The second was offered 5 s later on the clock: time runs on from it.
        await clock.advance(by: .seconds(1))
        #expect(try await timeline.next(deadline: 11.5) == .time(12))
        inbox.finish()
        #expect(!inbox.offer(Scan(time: 13, readings: [])))
        #expect(try await timeline.next(deadline: nil) == nil)
    }

    /// A failing source's error reaches the pipeline after the scans it gave.
    @Test func aSourceFailureIsThrownAfterItsScans() async throws {
        struct Broken: Error {}
        let (scans, input) = AsyncThrowingStream.makeStream(of: Scan.self)
        input.yield(Scan(time: 1, readings: []))
        input.finish(throwing: Broken())
        var timeline = ScanTimeline(scans: scans, pace: .live(ManualClock()))
        #expect(try await timeline.next(deadline: nil) == .scan(Scan(time: 1, readings: [])))
        await #expect(throws: Broken.self) { try await timeline.next(deadline: nil) }
    }

    // MARK: Waiting helpers

    static func waitUntilSleeping(_ clock: ManualClock) async throws {
        let deadline = ContinuousClock.now + Self.patience
        while ContinuousClock.now < deadline {
            if clock.sleeperCount > 0 { return }
            try await Task.sleep(for: .milliseconds(1))
        }
        Issue.record("nothing slept on the clock")
    }

    static func wait(until condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + Self.patience
        while ContinuousClock.now < deadline {
            if condition() { return }
            try await Task.sleep(for: .milliseconds(1))
        }
        Issue.record("the condition never held")
    }
}
