/// The fixes of a sequence of scans through a ``FixPipeline`` of its own (see
/// `LocationEngine.fixes(from:)`): scans that give no fix are skipped; when the scans end, the
/// fixes the pipeline still holds back follow.
///
/// At a live pace (``LocationEngine/fixes(from:pace:)``, or a source that knows its pace, such as
/// a Bluetooth adapter) the scans run on a ``ScanTimeline``, so that time passes between scans
/// too: a fixed lag's fix comes out `lag` seconds after its scan even when no later scan comes.
/// Replayed, time moves with the scans alone and the output is the same every time.
///
/// Its iterator tells what the pipeline did (``AsyncIterator/statistics``):
///
/// ```swift
/// var fixes = engine.fixes(from: reader).makeAsyncIterator()
/// while let fix = try await fixes.next() { try writer.write(fix) }
/// print(fixes.statistics.fixes, "of", fixes.statistics.scans)
/// ```
public struct FixSequence<Scans: AsyncSequence>: AsyncSequence where Scans.Element == Scan {
    /// Fixes.
    public typealias Element = Fix
    /// The scans' failure.
    public typealias Failure = Scans.Failure

    let scans: Scans
    let pipeline: FixPipeline
    /// Opens a live timeline over the scans; `nil` for a replay.
    let liveTimeline: (@Sendable () -> ScanTimeline<Scans>)?

    /// The fixes of `scans` replayed (time moves with the scans alone).
    init(scans: Scans, pipeline: FixPipeline) {
        self.scans = scans
        self.pipeline = pipeline
        liveTimeline = nil
    }

    /// The fixes of `scans` at `pace`.
    init(scans: Scans, pipeline: FixPipeline, pace: ScanPace) where Scans: Sendable {
        self.scans = scans
        self.pipeline = pipeline
        if pace.isLive {
            liveTimeline = { @Sendable () -> ScanTimeline<Scans> in ScanTimeline(scans: scans, pace: pace) }
        } else {
            liveTimeline = nil
        }
    }

    /// Makes an iterator that locates scans as they come (a live one starts reading the scans).
    public func makeAsyncIterator() -> AsyncIterator {
        if let liveTimeline {
            AsyncIterator(input: .live(liveTimeline()), pipeline: pipeline)
        } else {
            AsyncIterator(input: .replay(scans.makeAsyncIterator()), pipeline: pipeline)
        }
    }

    /// Locates the scans of the base iterator one by one.
    public struct AsyncIterator: AsyncIteratorProtocol {
        /// Where the scans come from.
        enum Input {
            /// The scans' own iterator: time moves with the scans.
            case replay(Scans.AsyncIterator)
            /// A live timeline: time also moves between scans.
            case live(ScanTimeline<Scans>)
            /// Held while the iterator or the timeline is taken out to move it on.
            case moving
        }

        var input: Input
        var pipeline: FixPipeline
        /// Fixes due and not handed out yet, from `nextReady`.
        var ready: [Fix] = []
        var nextReady = 0
        var finished = false

        init(input: Input, pipeline: FixPipeline) {
            self.input = input
            self.pipeline = pipeline
        }

        /// Scans taken in so far, fixes given out, devices and tracks seen, time spent locating.
        public var statistics: PipelineStatistics { pipeline.statistics }

        /// The next fix, or `nil` when the scans end and every fix held back is out.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(Scans.Failure) -> Fix? {
            while true {
                if nextReady < ready.count {
                    nextReady += 1
                    return ready[nextReady - 1]
                }
                ready.removeAll(keepingCapacity: true)
                nextReady = 0
                if finished { return nil }
                // The pipeline hands its fixes to a local buffer (it cannot append to `self.ready`
                // while `self.pipeline` changes); the buffer keeps its storage from scan to scan.
                var due = ready
                ready = []
                switch try await nextInput(isolation: actor) {
                case .scan(let scan)?:
                    pipeline.add(scan) { due.append($0) }
                case .time(let time)?:
                    pipeline.advance(to: time) { due.append($0) }
                case nil:
                    finished = true
                    pipeline.finish { due.append($0) }
                }
                ready = due
            }
        }

        /// The next scan, or (live) the passing of time to the pipeline's next deadline.
        private mutating func nextInput(isolation actor: isolated (any Actor)?) async throws(Scans.Failure) -> PipelineInput? {
            let taken = input
            input = .moving
            switch taken {
            case .replay(var base):
                defer { input = .replay(base) }
                return try await base.next(isolation: actor).map(PipelineInput.scan)
            case .live(var timeline):
                defer { input = .live(timeline) }
                do {
                    return try await timeline.next(deadline: pipeline.nextDueTime, isolation: actor)
                } catch let failure as Scans.Failure {
                    throw failure
                } catch {
                    // A live timeline fails only with its scans' own failure; anything else ends
                    // the scans.
                    return nil
                }
            case .moving:
                return nil
            }
        }

        /// The next fix, or `nil` when the scans end.
        public mutating func next() async throws(Scans.Failure) -> Fix? {
            try await next(isolation: nil)
        }
    }
}

extension FixSequence: Sendable where Scans: Sendable {}
