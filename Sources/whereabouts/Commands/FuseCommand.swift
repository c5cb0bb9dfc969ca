import ArgumentParser
import Foundation
import Whereabouts
import WhereaboutsBluetooth

/// `whereabouts fuse`
struct FuseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fuse",
        abstract: "Locate moving tags from what fixed receivers heard: one position per tag, and its places entered and left.",
        discussion: HelpText.fitting("""
        The recording holds the receivers' reports (FORMATS.md §8): each line is what one receiver \
        heard, its "device" the receiver's id in the venue's "receivers", its readings the tags, \
        "t" the receiver's clock and "arrival" (optional) when the report came in. For every \
        --interval in which some receiver heard a tag, the tag gets one scan with a reading per \
        receiver that heard it within --window (the mean of its sightings in the last --averaging \
        seconds, or else its latest), dated when those sightings were heard and given out \
        --lateness seconds after the interval so that late reports still count (by default a scan \
        every 0.75 s averaging 2 s, 0.1 s late: every sighting is in a fix within a second of \
        arriving); each receiver's clock is put on the \
        fusion's by its reports' arrival. The tag is then located from the \
        receivers as a phone is from beacons (the receivers are its beacons, their rssiOffset \
        shifting the venue's txPower), and its place goes through the place monitor as in `watch`.

        Output, one JSON object a line: each fix as `locate` writes it (the tag as "device"), and \
        each place entered or left as `watch --json` writes it ({"t", "device", "topic", "data"}); \
        --no-events leaves the events out; --why gives each of them a "why" member, as `watch --why \
        --json` does (the readings are the receivers that heard the tag). A report from a receiver the venue does not list, a \
        duplicate, a report too late for any scan still to come or stamped ahead of its receiver's clock is \
        counted and dropped; the counts are printed at the end (standard error).

        Time: a file is a replay (its "arrival", or "t", is the clock); standard input or a FIFO \
        is live: a report without "arrival" is stamped when it is read, and a tag's scans, fixes \
        and exits fall due on the wall clock while the receivers are silent.

        Algorithms: \(PositioningAlgorithm.valueList).

        Examples:
          whereabouts fuse --venue venue.json --recording reports.jsonl
          whereabouts fuse --venue venue.json --recording reports.jsonl --no-events --window 5
          mosquitto_sub -t 'reports/#' | whereabouts fuse --venue venue.json --recording -
        """)
    )

    @OptionGroup var positioning: PositioningOptions

    @OptionGroup var pipeline: PipelineOptions

    @Option(name: .long, help: ArgumentHelp("The receivers' reports (\"-\" for standard input).", valueName: "reports.jsonl"))
    var recording: String

    @OptionGroup var fusion: FusionOptions

    @OptionGroup var tags: TagsFileOption

    @Option(name: .long, help: ArgumentHelp("Seconds without a located scan before a tag's place is left.", valueName: "seconds"))
    var exitTimeout: Double = 30

    @OptionGroup var placeVote: PlaceVoteOption

    @Flag(name: .long, help: "Write the fixes only, not the places entered and left.")
    var noEvents = false

    @Flag(name: .long, help: "Say why each place was entered or left: the rule, the tag scan's fix and the receivers that heard it.")
    var why = false

    @Flag(name: .long, help: "Write the tags' fused scans (a recording, FORMATS.md §2, with the receivers as beacons) instead of fixes and events.")
    var scans = false

    func validate() throws {
        guard exitTimeout > 0, exitTimeout.isFinite else { throw ValidationError("--exit-timeout must be a positive number of seconds.") }
        if why, noEvents || scans {
            throw ValidationError("--why explains the places entered and left, which \(noEvents ? "--no-events" : "--scans") leaves out.")
        }
    }

    func run() async throws {
        let venueValue = try tags.adding(to: positioning.venue.read())
        guard !venueValue.receivers.isEmpty else {
            throw CommandFailure("\(positioning.venue.path) lists no receivers: `fuse` locates tags from fixed receivers, "
                                 + "listed in the venue's \"receivers\" (FORMATS.md §1); `locate` locates a listener from beacons.")
        }
        let receiverFusion = ReceiverFusion(venue: venueValue, configuration: fusion.configuration)
        if scans {
            var stage = FusionOnly(fusion: receiverFusion)
            try await drive(&stage) { ScanCoding.line(for: $0) }
            Terminal.error(Self.summary(stage.fusion.statistics))
            return
        }
        let tagVenue = venueValue.receiversAsBeacons()
        let setup = positioning.algorithm.setup(venue: tagVenue, training: try positioning.readTraining(), configuration: pipeline.configuration)
        if let choice = pipeline.choice(of: setup, units: tagVenue.units.rawValue) { Terminal.error(choice) }
        var stages = TagPipeline(venue: venueValue, setup: setup, configuration: TagPipeline.Configuration(
            fusion: fusion.configuration, timing: pipeline.timing, exitTimeout: exitTimeout, placeVote: placeVote.placeVote,
            raisesEvents: !noEvents, explainsPlaceChanges: why))
        let explanations = PlaceChangeText(names: BeaconNames(venue: tagVenue))
        try await drive(&stages) { output in
            switch output {
            case .fix(let fix): FixCoding.line(for: fix, decimalPlaces: 3)
            case .event(let item):
                WatchCommand.isChange(item.event)
                    ? WatchCommand.jsonLine(item.event, device: item.device ?? "", why: item.explanation.map(explanations.json)) : nil
            }
        }
        Terminal.error(Self.summary(stages.statistics))
    }

    /// Reads the reports through `stage` — a file as a replay, standard input or a FIFO live —
    /// writing the line of each output as it comes (`nil`: none).
    private func drive<Stage: TimedStage>(_ stage: inout Stage, line: (Stage.Output) -> String?) async throws {
        let reader = try SightingSourceOptions.openRecording(recording, lenient: positioning.recordings.lenient)
        let live = reader.isLive
        var out = TextOutput(live: live)
        var timeline = ScanTimeline(scans: ArrivalStamped(reader: reader, live: live), pace: reader.pace)
        try await timeline.run(&stage) { outputs in
            for output in outputs { if let text = line(output) { out.line(text) } }
        }
        out.flush()
        reader.recordingReader?.warnAboutSkippedLines()
        try reader.recordingReader?.requireScans(toDo: "fuse")
    }

    /// `Fused 1204 sightings into 310 tag scans; dropped: 3 duplicates, 1 late, 12 from receivers the venue does not list (C, D).`
    static func summary(_ statistics: ReceiverFusion.Statistics) -> String {
        var dropped: [String] = []
        if statistics.duplicates > 0 { dropped.append(statistics.duplicates.counted("duplicate")) }
        if statistics.late > 0 { dropped.append("\(statistics.late) late") }
        if statistics.future > 0 { dropped.append("\(statistics.future) stamped ahead of their receiver's clock") }
        if statistics.flooded > 0 { dropped.append("\(statistics.flooded) pushed out by a flooding receiver") }
        if statistics.unknownReceiver > 0 {
            dropped.append("\(statistics.unknownReceiver) from receivers the venue does not list (\(statistics.unknownReceivers.joined(separator: ", ")))")
        }
        if statistics.notTags > 0 { dropped.append("\(statistics.notTags) of venue beacons or with an invalid RSSI") }
        if statistics.tagsEvicted > 0 { dropped.append("\(statistics.tagsEvicted.counted("tag")) forgotten to stay within memory") }
        return "Fused \(statistics.sightings.counted("sighting")) into \(statistics.scans.counted("tag scan"))"
            + (dropped.isEmpty ? "." : "; dropped: " + dropped.joined(separator: ", ") + ".")
    }
}

/// The fusion alone, as a stage: its output is the tag scans.
struct FusionOnly: TimedStage, Sendable {
    var fusion: ReceiverFusion

    mutating func process(_ scan: Scan) -> [Scan] { fusion.process(scan) }
    mutating func advance(to time: Double) -> [Scan] { fusion.advance(to: time) }
    func nextDeadline() -> Double? { fusion.nextDeadline() }
    mutating func finish() -> [Scan] { fusion.finish() }
}

/// A live source's reports stamped with their arrival (the wall clock) when they came without
/// one, so that the fusion and the timeline run on the clock they were read by.
struct ArrivalStamped: AsyncSequence, Sendable {
    typealias Element = Scan
    let reader: ScanSource
    let live: Bool

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: ScanSource.AsyncIterator
        let live: Bool

        mutating func next() async throws -> Scan? {
            guard var scan = try await base.next() else { return nil }
            if live, scan.arrival == nil { scan.arrival = Date().timeIntervalSince1970 }
            return scan
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: reader.makeAsyncIterator(), live: live) }
}
