/// A source of scans with the time that passes between them: what moves a ``TimedStage`` on.
///
/// - ``ScanPace/replay``: the scans' own clock and nothing else. Time moves only with the scans, and
///   what is still pending falls due at the end of the input (the stage's `finish()`), so a
///   replay as fast as possible gives the same output every time.
/// - ``ScanPace/live(_:)``: the scans come as they happen (a Bluetooth adapter, a recording read
///   from a pipe, a capture replayed at its own pace), and silence moves time too. When the
///   stage's next deadline falls due before another scan comes, the timeline gives
///   ``PipelineInput/time(_:)`` — a region's exit, a ranging round's end, a fixed-lag fix are
///   given out on time while the source stays open. The timeline sleeps on the injected clock
///   until then (no polling), so a silent pipeline costs nothing; tests pass a ``ManualClock``
///   and move it without sleeping.
///
/// Live time is the scans' clock carried on by the injected one: the latest scan's time (its
/// ``Scan/arrival`` when it has one) plus the time elapsed since it came in. A live source stamped with the wall clock thus runs on the
/// wall clock, and one stamped otherwise (an old recording piped in) still gives its exits the
/// timeout after its last scan. A scan already waiting always comes before the passing of time,
/// so a recording piped in faster than it is processed gives exactly the replay's output.
///
/// ```swift
/// var pipeline = ScanPipeline(setup: setup, places: places, monitor: MonitorPipeline(venue: venue))
/// var timeline = ScanTimeline(scans: scanner, pace: .live(ContinuousClock()))
/// try await timeline.run(&pipeline) { events in
///     for event in events { print(event.device ?? "-", event.event.topic) }   // as they happen
/// }
/// ```
public struct ScanTimeline<Scans: AsyncSequence> where Scans.Element == Scan {
    /// How time moves (``ScanPace``, the one pace every part shares).
    public typealias Pace = ScanPace

    /// How time moves.
    public private(set) var pace: Pace

    private enum Backing {
        /// Replayed: the scans' iterator, read in place.
        case replay(Scans.AsyncIterator)
        /// Live: the scans read by a task of their own into a mailbox.
        case live(ScanMailbox, LiveClock, reader: Task<Void, Never>)
        case ended
    }

    private var backing: Backing
    /// When to wake and what time to give (live).
    private var schedule = LiveSchedule()

    /// A timeline over `scans` at a pace. A live timeline starts reading the scans at once, in a
    /// task of its own that waits while 1,024 scans are queued (a bound on a source faster than
    /// its pipeline) and stops when the scans end or on ``cancel()``.
    public init(scans: sending Scans, pace: Pace) {
        self.pace = pace
        switch pace {
        case .replay:
            backing = .replay(scans.makeAsyncIterator())
        case .live(let clock):
            let mailbox = ScanMailbox()
            let liveClock = LiveClock(clock)
            // The scans were sent here: from now on only the reading task moves them on.
            var iterator = scans.makeAsyncIterator()
            let source = ScanReading { try await iterator.next() }
            let reader = Task {
                do {
                    while !Task.isCancelled, let scan = try await source.next() {
                        await mailbox.send(scan, arrival: liveClock.elapsed())
                    }
                    mailbox.finish(throwing: nil)
                } catch {
                    mailbox.finish(throwing: error)
                }
            }
            backing = .live(mailbox, liveClock, reader: reader)
        }
    }

    /// The next scan, or the passing of time once `deadline` (seconds on the scans' clock) falls
    /// due with no scan; `nil` at the end of the scans. A replay ignores the deadline. A deadline
    /// no later than the last time given is ignored too (the stage had nothing due after all),
    /// so that a stage can never make the timeline spin.
    /// It runs in the caller's isolation (`isolation`), so that a timeline held by an actor or
    /// by an iterator moved on in one is never sent anywhere else.
    public mutating func next(deadline: Double?, isolation: isolated (any Actor)? = #isolation) async throws -> PipelineInput? {
        switch backing {
        case .replay(var iterator):
            backing = .ended
            let scan = try await iterator.next(isolation: isolation)
            backing = scan == nil ? .ended : .replay(iterator)
            return scan.map(PipelineInput.scan)
        case .live(let mailbox, let clock, let reader):
            var timer: (@Sendable () async -> Void)?
            if let wake = schedule.wakeUp(for: deadline) {
                // A wake-up already past returns at once (some test clocks wait for their next
                // advance even for the present instant; ``ManualClock`` does not, and decides
                // that under its own lock, so a late timer cannot miss an advance).
                timer = { if wake > clock.elapsed() { try? await clock.sleep(until: wake) } }
            }
            switch await mailbox.receive(timer: timer) {
            case .scan(let scan, let arrival):
                // A report from elsewhere (a fixed receiver's) is on the timeline's clock when it
                // arrived, not on its receiver's.
                schedule.scanArrived(time: scan.arrival ?? scan.time, at: arrival)
                return .scan(scan)
            case .timeout:
                if Task.isCancelled {
                    reader.cancel()
                    backing = .ended
                    return nil
                }
                guard let deadline, let time = schedule.timeToGive(for: deadline, at: clock.elapsed()) else {
                    return try await next(deadline: nil, isolation: isolation)
                }
                return .time(time)
            case .end(let error):
                backing = .ended
                if let error { throw error }
                return nil
            }
        case .ended:
            return nil
        }
    }

    /// Runs `stage` over the timeline until the scans end, handing `emit` what it gives out as it
    /// comes: each scan's output, what falls due with time (live), and at the end what the stage
    /// still holds (``TimedStage/finish()``).
    public mutating func run<Stage: TimedStage>(_ stage: inout Stage, emit: ([Stage.Output]) async throws -> Void) async throws {
        let live = pace.isLive
        do {
            while let input = try await next(deadline: live ? await stage.nextDeadline() : nil) {
                switch input {
                case .scan(let scan): try await emit(await stage.process(scan))
                case .time(let time): try await emit(await stage.advance(to: time))
                }
            }
        } catch {
            cancel()
            throw error
        }
        try await emit(await stage.finish())
    }

    /// Stops reading a live source (its reading task is cancelled).
    public mutating func cancel() {
        if case .live(let mailbox, _, let reader) = backing {
            reader.cancel()
            mailbox.finish(throwing: nil)
        }
        backing = .ended
    }
}

/// A source's next scan, moved to the one task that reads it (the scans were given to the
/// timeline with `sending`, so no other code holds them).
private final class ScanReading: @unchecked Sendable {
    let next: () async throws -> Scan?

    init(_ next: @escaping () async throws -> Scan?) {
        self.next = next
    }
}

/// A clock reduced to what a timeline needs, elapsed time since it was made and sleeping until a
/// later elapsed time, so that any `Clock<Duration>` (its instants hidden) can be stored.
package struct LiveClock: Sendable {
    /// The time elapsed since the clock was made.
    package let elapsed: @Sendable () -> Duration
    /// Sleeps until that much time has elapsed since the clock was made.
    let sleep: @Sendable (Duration) async throws -> Void

    package init(_ clock: any Clock<Duration>) {
        self.init(opening: clock)
    }

    private init<C: Clock<Duration>>(opening clock: C) {
        let start = clock.now
        elapsed = { start.duration(to: clock.now) }
        sleep = { try await clock.sleep(until: start.advanced(by: $0), tolerance: nil) }
    }

    package func sleep(until elapsed: Duration) async throws {
        try await sleep(elapsed)
    }
}

extension ScanTimeline where Scans == AsyncStream<Scan> {
    /// A live timeline whose scans are handed to it (``ScanInbox/offer(_:)``) rather than read
    /// from a sequence: for scans that come to a server in requests. A scan's arrival on the
    /// timeline's clock is when it was offered, and once `offer` returns it comes before any
    /// passing of time — so a test that offers a scan and then moves a ``ManualClock`` gets exact
    /// times. At most `capacity` scans wait for the stage; more are refused, not queued.
    ///
    /// ```swift
    /// let (timeline, inbox) = ScanTimeline.makeInbox(clock: ContinuousClock())
    /// // in the request handler:
    /// if !inbox.offer(report) { /* 1,024 wait already: refuse it */ }
    /// ```
    public static func makeInbox(clock: any Clock<Duration>, capacity: Int = 1_024) -> (ScanTimeline, ScanInbox) {
        let mailbox = ScanMailbox(capacity: capacity)
        let liveClock = LiveClock(clock)
        var timeline = ScanTimeline(scans: AsyncStream { $0.finish() }, pace: .replay)
        timeline.backing = .live(mailbox, liveClock, reader: Task {})
        timeline.pace = .live(clock)
        return (timeline, ScanInbox(mailbox: mailbox, clock: liveClock))
    }
}

/// The way into a timeline made by ``ScanTimeline/makeInbox(clock:capacity:)``: scans offered
/// by whoever has them, ended by ``finish()``.
public struct ScanInbox: Sendable {
    let mailbox: ScanMailbox
    let clock: LiveClock

    /// Hands `scan` to the timeline, arrived now on its clock; `false` (the scan not taken) when
    /// the timeline's capacity of scans wait already or the inbox was finished.
    @discardableResult
    public func offer(_ scan: Scan) -> Bool {
        mailbox.offer(scan, arrival: clock.elapsed())
    }

    /// No more scans: the timeline ends after those waiting (its stage's `finish()` follows).
    public func finish() {
        mailbox.finish(throwing: nil)
    }
}

extension ScanTimeline where Scans: PacedScans {
    /// A timeline over a source at the source's own pace (live for an adapter, a pipe or a
    /// capture replayed at its recorded pace; a replay for a file).
    public init(source: Scans) {
        self.init(scans: source, pace: source.pace)
    }
}
