import ArgumentParser
import Foundation
import Whereabouts

/// `whereabouts eval`
struct EvalCommand: LongWorkCommand {
    static let configuration = CommandConfiguration(
        commandName: "eval",
        abstract: "Score positioning algorithms against a recording with ground truth.",
        discussion: HelpText.fitting("""
        Locates every scan of the test recording and reports the horizontal error against its truth \
        (mean, median, p75, p95, max, in venue units), how many scans were located (the others count \
        as not located, never as zero error), how often the truth lay inside the reported accuracy \
        radius (which promises 68 %), floor and place accuracy when the truth has them (the predicted \
        place is the circle or polygon place holding the most of the fix's accuracy Gaussian, or the nearest place \
        within its accuracy radius when none holds 1 %), and the solver's own throughput (reading excluded). \
        When the truth names places, a rooms report gives the default algorithm's place accuracy by that rule and, \
        for comparison, by the place containing the fix's point alone, and what a live place monitor (its \
        hysteresis, fed with those places, voting at --place-vote) reports. \
        With --train scans that have truth.place, the room classifier (--classifier; default: default, unless \
        --algorithm is named) is trained on them and scored too: place and floor accuracy and how many scans got a place; on a \
        venue whose beacons have no positions, only classifiers run. --json prints the report of FORMATS.md §3; with \
        --algorithm all, every algorithm runs over the same single pass and the output is a table \
        (or a JSON array). --plot writes an SVG with the error CDF of each algorithm and a map of \
        truth against the first algorithm's estimates. --smooth scores the offline smoother instead \
        of the online pipeline (each fix also learns from the scans after it); --lag S scores a live \
        pipeline that reports each fix S seconds late, smoothed with the scans of those seconds. \
        --fuse scores fixed receivers locating tags: the recording holds the receivers' reports \
        (FORMATS.md §8, as `simulate --receivers` writes them), fused into each tag's scans as \
        `whereabouts fuse` does, each scan's truth taken from the reports' around its time.

        Algorithms: \(PositioningAlgorithm.valueList).

        Examples:
          whereabouts eval --venue venue.json --test test.jsonl
          whereabouts eval --venue v.json --test test.jsonl --train train.jsonl --json
          whereabouts eval --venue v.json --test test.jsonl --algorithm all --plot r.svg
          whereabouts eval --venue v.json --test walk.jsonl --rssi-filter none --tracking stop-and-go
          whereabouts eval --venue v.json --test walk.jsonl --rssi-filter none --tracking stop-and-go --smooth
          whereabouts eval --venue v.json --test walk.jsonl --rssi-filter none --tracking stop-and-go --lag 1
          whereabouts eval --venue receivers.json --test reports.jsonl --fuse
        """)
    )

    @OptionGroup var venue: VenueOptions

    @Option(name: .long, help: ArgumentHelp("The recording to score, with truth (\"-\" for standard input).", valueName: "test.jsonl"))
    var test: String

    @Option(name: .long, help: ArgumentHelp("A recording with truth to train and calibrate on.", valueName: "train.jsonl"))
    var train: String?

    @Option(name: .long, help: ArgumentHelp("The algorithm, or all.", valueName: "name"))
    var algorithm: AlgorithmChoice?

    @Option(name: .long, help: ArgumentHelp("The room classifier, all, or none (default: default when the training scans have truth.place and no --algorithm is named).", valueName: "name"))
    var classifier: ClassifierChoice?

    @Flag(name: .long, help: "Print the report as JSON (FORMATS.md §3); an array with --algorithm all.")
    var json = false

    @OptionGroup var pipeline: PipelineOptions

    @Option(name: .long, help: ArgumentHelp("Write an SVG plot of the errors and a map here.", valueName: "report.svg"))
    var plot: String?

    @OptionGroup var recordings: RecordingOptions

    @Flag(name: .long, help: "The recording holds fixed receivers' reports (FORMATS.md §8): fuse them into each tag's scans first, as `whereabouts fuse` does, and locate the tags from the venue's receivers.")
    var fuse = false

    @OptionGroup var fusion: FusionOptions

    @OptionGroup var placeVote: PlaceVoteOption
    @OptionGroup var roomBelief: RoomBeliefOption

    @OptionGroup var progressOptions: ProgressOptions

    func validate() throws {
        try roomBelief.validate(with: placeVote)
    }

    func work() throws {
        let algorithm = self.algorithm ?? .algorithm(.default)
        var algorithms = algorithm.algorithms
        if algorithm == .all, train == nil {
            let learners = algorithms.filter(\.requiresTraining)
            algorithms.removeAll(where: \.requiresTraining)
            if !learners.isEmpty {
                Terminal.error("note: without --train, leaving out \(learners.map(\.rawValue).joined(separator: ", ")) (they learn from a recording with truth)")
            }
        }
        let venueURL = URL(fileURLWithPath: venue.path)
        let venueFile = try venue.read()
        if fuse, venueFile.receivers.isEmpty {
            throw CommandFailure("\(venue.path) lists no receivers, so there is nothing to fuse: --fuse needs the venue's \"receivers\" (FORMATS.md §1).")
        }
        // Fused, the tags are located from the receivers as a phone is from beacons.
        let venueValue = fuse ? venueFile.receiversAsBeacons() : venueFile
        var fused = fuse ? ReceiverFusion(venue: venueFile, configuration: fusion.configuration) : nil
        let reader = try RecordingReader.open(test, lenient: recordings.lenient)
        if self.algorithm == nil, !venueValue.beacons.contains(where: { $0.x != nil }) { algorithms = [] }
        let training = try PositioningOptions.readTraining(train, for: algorithms, lenient: recordings.lenient)
        // Without --classifier, the default classifier runs when the training scans have places,
        // unless an --algorithm was named (then only positioning, as asked).
        let classifierChoice = classifier ?? (self.algorithm == nil ? nil : .noClassifier)
        var places = try PlaceInputs.evaluations(classifierChoice, training: training, venue: venueValue)
        if algorithms.isEmpty, places.isEmpty {
            throw CommandFailure("\(venue.path): no beacon has a position, so there is nothing to locate; "
                                 + "give --train with truth.place to score a room classifier.")
        }

        var run = EvaluationRun(venue: venueValue, algorithms: algorithms, training: training, configuration: pipeline.configuration,
                                timing: pipeline.timing)
        run.placeMonitor = roomBelief.monitor(placeVote: placeVote.placeVote)
        run.placeBelief = roomBelief.belief
        for entry in run.entries {
            if let choice = pipeline.choice(of: entry.pipeline.setup, units: venueValue.units.rawValue) { Terminal.error(choice) }
        }
        var progress = Progress("evaluating", total: test == "-" ? 0 : URL(fileURLWithPath: test).fileSize)
        while let report = try reader.next() {
            for scan in fused?.process(report) ?? [report] {
                run.add(scan)
                for index in places.indices { places[index].add(scan) }
            }
            progress.update(reader.bytesRead)
        }
        for scan in fused?.finish() ?? [] {
            run.add(scan)
            for index in places.indices { places[index].add(scan) }
        }
        run.finish()
        progress.finish()
        reader.warnAboutSkippedLines()
        guard run.scans > 0 else { throw CommandFailure("\(test): the recording holds no scan, so there is nothing to score.") }
        guard run.scansWithTruth > 0 else {
            throw CommandFailure("\(test): none of its \(run.scans) scans has a truth (x/y, floor or place), so there is nothing "
                                 + "to score against; use `whereabouts locate` to get fixes without truth.")
        }

        let dataset = venueURL.deletingLastPathComponent().lastPathComponent
        let placeReports = places.map { $0.report(dataset: dataset, units: venueValue.units) }
        let rooms = run.roomsReport(dataset: dataset)
        var reports = run.reports(dataset: dataset) + placeReports
        // One positioning report stays one JSON object (FORMATS.md §3); the rooms record joins an array.
        let isArray = algorithm == .all || reports.count > 1
        if let rooms, isArray || !json { reports.insert(rooms, at: run.entries.count) }
        if let plot, !run.entries.isEmpty {
            let svg = EvaluationPlot(run: run, venue: venueValue, dataset: dataset).svg
            do {
                try Data(svg.utf8).write(to: URL(fileURLWithPath: plot), options: .atomic)
            } catch {
                throw CommandFailure("\(plot): cannot write the plot: \(error.localizedDescription)")
            }
        }
        if json {
            let value: JSONValue = isArray ? .array(reports.map(\.json)) : reports.first?.json ?? .null
            print(JSONWriter().string(from: value))
        } else if algorithm == .all, !run.entries.isEmpty {
            print("\(dataset): \(run.scans) scans, \(run.scansWithPosition) with a true position")
            print(EvaluationReport.table(run.reports(dataset: dataset)))
            for report in [rooms].compactMap({ $0 }) + placeReports { print(report.summary) }
        } else {
            for report in reports { print(report.summary) }
        }
        if let plot { Terminal.error(run.entries.isEmpty ? "note: no positioning algorithm ran, so \(plot) was not written." : "Wrote \(plot).") }
    }
}
