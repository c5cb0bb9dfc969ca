/// The fixes of a sequence of scans through a ``FixPipeline`` of its own (see
/// ``LocationEngine/fixes(from:)``): scans that give no fix are skipped; when the scans end, the
/// fixes the pipeline still holds back follow.
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

    /// Makes an iterator that locates scans as they come.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: scans.makeAsyncIterator(), pipeline: pipeline)
    }

    /// Locates the scans of the base iterator one by one.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: Scans.AsyncIterator
        var pipeline: FixPipeline
        /// Fixes due and not handed out yet, from `nextReady`.
        var ready: [Fix] = []
        var nextReady = 0
        var finished = false

        init(base: Scans.AsyncIterator, pipeline: FixPipeline) {
            self.base = base
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
                if let scan = try await base.next(isolation: actor) {
                    pipeline.add(scan) { due.append($0) }
                } else {
                    finished = true
                    pipeline.finish { due.append($0) }
                }
                ready = due
            }
        }

        /// The next fix, or `nil` when the scans end.
        public mutating func next() async throws(Scans.Failure) -> Fix? {
            try await next(isolation: nil)
        }
    }
}

extension FixSequence: Sendable where Scans: Sendable {}
