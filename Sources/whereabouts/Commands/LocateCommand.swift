import ArgumentParser
import Foundation
import Whereabouts

/// `whereabouts locate`
struct LocateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "locate",
        abstract: "Locate every scan of a recording and write the fixes, one JSON object a line.",
        discussion: """
        Each line of the output is one fix: t, device, x, y, z, floor, accuracy (the radius expected \
        to hold the truth 68 % of the time), latitude/longitude when the venue has an origin, method \
        and the beacons used. Scans that cannot be located get no line. Each device has its own \
        locator, started afresh whenever its track changes. Reads and writes in constant memory \
        (with --smooth, it holds each device's open track, and writes a track's fixes once it has \
        ended; with --lag S, each fix comes out once the scans of the next S seconds came in, \
        live scans too); give "-" as the recording to read standard input. Instead of a recording, \
        --adapter locates live scans (Linux) and --btsnoop the advertising reports of a btsnoop capture.

        Algorithms: \(PositioningInputs.algorithmNames).

        Examples:
          whereabouts locate --venue venue.json --recording walk.jsonl | head -3
          whereabouts locate --venue venue.json --recording walk.jsonl -o fixes.jsonl
          cat walk.jsonl | whereabouts locate --venue venue.json --recording -
          whereabouts locate --venue venue.json --adapter hci0
          whereabouts locate --venue venue.json --btsnoop btsnoop_hci.log -o fixes.jsonl
          whereabouts locate --venue venue.json --recording walk.jsonl --rssi-filter none --tracking stop-and-go
          whereabouts locate --venue venue.json --recording walk.jsonl --rssi-filter none --tracking stop-and-go --smooth
          whereabouts locate --venue venue.json --recording walk.jsonl --rssi-filter none --tracking stop-and-go --lag 1
          whereabouts locate --venue venue.json --adapter hci0 --rssi-filter none --tracking stop-and-go --lag 1
        """
    )

    @Option(name: .long, help: ArgumentHelp("The venue.", valueName: "venue.json"))
    var venue: String

    @OptionGroup var source: SightingSourceOptions

    @Option(name: .long, help: ArgumentHelp("A recording with truth for the algorithms that learn.", valueName: "train.jsonl"))
    var train: String?

    @Option(name: .long, help: ArgumentHelp("The algorithm: \(PositioningInputs.algorithmNames).", valueName: "name"))
    var algorithm: String = PositioningInputs.defaultAlgorithm.rawValue

    @OptionGroup var pipeline: PipelineOptions

    @Option(name: .shortAndLong, help: ArgumentHelp("Write the fixes here (default: standard output).", valueName: "fixes.jsonl"))
    var output: String?

    @Flag(name: .long, help: "Skip malformed lines of the recordings (counted) instead of stopping at the first.")
    var lenient = false

    func validate() throws {
        if pipeline.smooth, source.adapter != nil {
            throw ValidationError("--smooth needs a recording or a capture: it waits for each track to end, and a live scan has no end (--lag S smooths live scans S seconds late).")
        }
    }

    func run() async throws {
        let chosen = try PositioningInputs.algorithms(algorithm, allowingAll: false)
        let venueValue = try PositioningInputs.venue(venue)
        let reader = try source.open(lenient: lenient)
        let training = try PositioningInputs.training(train, for: chosen, lenient: lenient)
        guard let algorithm = chosen.first else { return }
        let setup = algorithm.setup(venue: venueValue, training: training, configuration: pipeline.configuration)
        if let choice = pipeline.choice(of: setup, units: venueValue.units.rawValue) { Terminal.error(choice) }
        let engine = LocationEngine(setup: setup, timing: pipeline.timing)

        let writer = try output.map { try FixWriter(url: URL(fileURLWithPath: $0)) } ?? FixWriter(handle: FileHandle.standardOutput)
        var progress = Progress("locating", total: reader.progressTotal)
        var fixes = engine.fixes(from: reader).makeAsyncIterator()
        while let fix = try await fixes.next() {
            try writer.write(fix)
            progress.update(reader.bytesRead)
        }
        try writer.finish()
        progress.finish()
        reader.recordingReader.map(PositioningInputs.warnAboutSkippedLines)
        if let summary = reader.summary { Terminal.error(summary) }
        if let output {
            let statistics = fixes.statistics
            Terminal.error("Wrote \(output): \(writer.fixesWritten) fixes of \(statistics.scans) scans"
                           + (statistics.unlocated > 0 ? " (\(statistics.unlocated) not located)" : "")
                           + ", \(statistics.devices) device\(statistics.devices == 1 ? "" : "s"), \(algorithm.rawValue).")
        }
    }
}

/// A failure the command explains in one sentence (printed as `Error: …`, exit status 1).
struct CommandFailure: Error, CustomStringConvertible {
    /// What went wrong and, where possible, what to do.
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// What `locate` and `eval` share: reading the venue, the recordings and the algorithm names.
enum PositioningInputs {
    /// The algorithm used when none is named.
    static var defaultAlgorithm: PositioningAlgorithm { PositioningAlgorithm.allCases[0] }

    /// Every algorithm's name, comma-separated.
    static var algorithmNames: String { PositioningAlgorithm.allCases.map(\.rawValue).joined(separator: ", ") }

    /// The algorithms a name selects: one, or (with `allowingAll`) every one for `all`.
    static func algorithms(_ name: String, allowingAll: Bool) throws -> [PositioningAlgorithm] {
        if allowingAll, name == "all" { return PositioningAlgorithm.allCases }
        guard let algorithm = PositioningAlgorithm(rawValue: name) else {
            throw ValidationError("Unknown algorithm \"\(name)\". Algorithms: \(algorithmNames)\(allowingAll ? ", or all" : "").")
        }
        return [algorithm]
    }

    /// The venue at `path`, or an error naming the file and the problem.
    static func venue(_ path: String) throws -> Venue {
        guard FileManager.default.fileExists(atPath: path) else { throw CommandFailure("\(path): no such file (the venue)") }
        return try VenueFile.read(from: URL(fileURLWithPath: path))
    }

    /// A reader of the recording at `path` (`-` for standard input).
    static func reader(_ path: String, lenient: Bool) throws -> RecordingReader {
        let options = RecordingReader.Options(lenient: lenient)
        if path == "-" { return RecordingReader(handle: FileHandle.standardInput, options: options) }
        guard FileManager.default.fileExists(atPath: path) else { throw CommandFailure("\(path): no such file (the recording)") }
        return try RecordingReader(url: URL(fileURLWithPath: path), options: options)
    }

    /// The training scans, read once for every algorithm; an error when an algorithm that learns
    /// has none.
    static func training(_ path: String?, for algorithms: [PositioningAlgorithm], lenient: Bool) throws -> [Scan] {
        guard let path else {
            if let learner = algorithms.first(where: \.requiresTraining) {
                throw CommandFailure("The algorithm \"\(learner.rawValue)\" learns from a recording with truth: give --train train.jsonl.")
            }
            return []
        }
        guard FileManager.default.fileExists(atPath: path) else { throw CommandFailure("\(path): no such file (the training recording)") }
        let reader = try RecordingReader(url: URL(fileURLWithPath: path), options: .init(lenient: lenient))
        var progress = Progress("reading \(path)", total: URL(fileURLWithPath: path).fileSize)
        var scans: [Scan] = []
        while let scan = try reader.next() {
            scans.append(scan)
            progress.update(reader.bytesRead)
        }
        progress.finish()
        warnAboutSkippedLines(reader)
        if !scans.contains(where: { $0.truth != nil }), algorithms.contains(where: \.requiresTraining) {
            throw CommandFailure("\(path): no scan has truth, so there is nothing to learn from.")
        }
        return scans
    }

    /// Writes a warning when a lenient reader skipped lines.
    static func warnAboutSkippedLines(_ reader: RecordingReader) {
        guard reader.skippedLines > 0 else { return }
        Terminal.error("warning: \(reader.name): skipped \(reader.skippedLines) malformed line\(reader.skippedLines == 1 ? "" : "s")"
                       + " (first: \(reader.problems.first.map(String.init(describing:)) ?? "?"))")
    }
}
