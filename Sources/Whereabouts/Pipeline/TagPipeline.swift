/// Fixed receivers' reports in; each tag's fixes and the places it enters and leaves out: a
/// ``FusedPipeline`` whose tag scans are located by a ``FixPipeline`` and followed through the
/// venue's places by a ``ScanPipeline``, as `whereabouts fuse` and the server's receivers
/// endpoint run it.
///
/// The tags are located from the receivers that heard them (``Venue/receiversAsBeacons()``) with
/// the same solvers, filters and monitors as a phone from beacons. Driven by a live
/// ``ScanTimeline``, a tag's fixes come out at most an interval and a lateness after it was heard, and
/// its exits the exit timeout after the last receiver heard it, while the receivers stay silent.
///
/// ```swift
/// var pipeline = TagPipeline(venue: venue)   // the default algorithm on the receivers
/// var timeline = ScanTimeline(scans: reports, pace: .live(ContinuousClock()))
/// try await timeline.run(&pipeline) { outputs in
///     for output in outputs {
///         switch output {
///         case .fix(let fix): print(fix.device ?? "-", fix.point.x, fix.point.y)
///         case .event(let item): print(item.device ?? "-", item.event.topic)
///         }
///     }
/// }
/// ```
public struct TagPipeline: TimedStage, Sendable {
    /// What the pipeline gives out.
    public enum Output: Sendable {
        /// A tag's fix (its ``Fix/device`` is the tag's name).
        case fix(Fix)
        /// A tag's event: a place entered or left, a region's change.
        case event(DeviceEvent)
    }

    /// How the reports are fused and the tags followed.
    public struct Configuration: Sendable {
        /// How the receivers' reports become tag scans.
        public var fusion: ReceiverFusion.Configuration
        /// When the fixes come out.
        public var timing: FixPipeline.Timing
        /// Seconds without a located scan before a tag's place is left.
        public var exitTimeout: Double
        /// The share of a fix's probability a place needs for the scan to vote for it (see
        /// ``PlaceMonitor/Configuration/minimumProbability``). A setup whose fixes carry their
        /// posterior's mass in each place (``PositioningAlgorithm/posterior``) gives beliefs,
        /// whose place is entered once it holds half of it, or this share when lower
        /// (``PlaceMonitor/Configuration/beliefMajority``).
        public var placeVote: Double
        /// Whether places entered and left are given out (fixes only when `false`).
        public var raisesEvents: Bool
        /// Whether each place entered or left comes with why (``DeviceEvent/explanation``: the
        /// place monitor's rule, the tag scan's fix and the receivers that heard it).
        public var explainsPlaceChanges: Bool

        /// A configuration; by default tag scans each second, fixes at once, places left after
        /// 30 s without a fix, unexplained.
        public init(fusion: ReceiverFusion.Configuration = ReceiverFusion.Configuration(), timing: FixPipeline.Timing = .immediate,
                    exitTimeout: Double = 30, placeVote: Double = 0.6, raisesEvents: Bool = true,
                    explainsPlaceChanges: Bool = false) {
            self.fusion = fusion
            self.timing = timing
            self.exitTimeout = exitTimeout
            self.placeVote = placeVote
            self.raisesEvents = raisesEvents
            self.explainsPlaceChanges = explainsPlaceChanges
        }
    }

    private var stages: FusedPipeline<Outputs>

    /// A pipeline over `venue`'s receivers, locating with `setup` (made on
    /// ``Venue/receiversAsBeacons()``).
    public init(venue: Venue, setup: PositioningSetup, configuration: Configuration = Configuration()) {
        let tagVenue = venue.receiversAsBeacons()
        let events = configuration.raisesEvents ? ScanPipeline(
            setup: setup, places: .containment(PlaceContainment(venue: tagVenue)),
            monitor: MonitorPipeline(venue: tagVenue, configuration: EventHub.Configuration(
                regionExitTimeout: configuration.exitTimeout,
                placeMonitor: PlaceMonitor.Configuration(minimumProbability: configuration.placeVote,
                                                         exitTimeout: configuration.exitTimeout)),
                explainsPlaceChanges: configuration.explainsPlaceChanges)) : nil
        stages = FusedPipeline(fusion: ReceiverFusion(venue: venue, configuration: configuration.fusion),
                               then: Outputs(fixes: FixPipeline(setup: setup, timing: configuration.timing), events: events))
    }

    /// A pipeline over `venue`'s receivers with the default algorithm, untrained.
    public init(venue: Venue, configuration: Configuration = Configuration()) {
        self.init(venue: venue, setup: PositioningAlgorithm.allCases[0].setup(venue: venue.receiversAsBeacons()),
                  configuration: configuration)
    }

    /// What the fusion took in and dropped so far.
    public var statistics: ReceiverFusion.Statistics { stages.fusion.statistics }

    /// Takes in one receiver's report: the fixes and events due by its arrival.
    public mutating func process(_ report: Scan) async -> [Output] {
        await stages.process(report)
    }

    /// Lets time run on to `time`: the tag scans' fixes and the events due by then.
    public mutating func advance(to time: Double) async -> [Output] {
        await stages.advance(to: time)
    }

    /// When the next tag scan or event falls due.
    public func nextDeadline() async -> Double? {
        await stages.nextDeadline()
    }

    /// The end of the input: what is still held.
    public mutating func finish() async -> [Output] {
        await stages.finish()
    }

    /// Each tag scan's fix, and the tags' events.
    struct Outputs: TimedStage, Sendable {
        var fixes: FixPipeline
        var events: ScanPipeline?

        mutating func process(_ scan: Scan) async -> [Output] {
            var outputs = fixes.process(scan).map(Output.fix)
            if var pipeline = events {
                outputs += await pipeline.process(scan).map(Output.event)
                events = pipeline
            }
            return outputs
        }

        mutating func advance(to time: Double) async -> [Output] {
            var outputs = fixes.advance(to: time).map(Output.fix)
            if var pipeline = events {
                outputs += await pipeline.advance(to: time).map(Output.event)
                events = pipeline
            }
            return outputs
        }

        func nextDeadline() async -> Double? {
            let own = fixes.nextDeadline()
            guard let theirs = await events?.nextDeadline() else { return own }
            return min(own ?? theirs, theirs)
        }

        mutating func finish() async -> [Output] {
            var outputs = fixes.finish().map(Output.fix)
            if var pipeline = events {
                outputs += await pipeline.finish().map(Output.event)
                events = pipeline
            }
            return outputs
        }
    }
}
