import ArgumentParser
import Foundation
import Whereabouts

/// `whereabouts locate`
struct LocateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "locate",
        abstract: "Locate every scan of a recording and write the fixes, one JSON object a line.",
        discussion: HelpText.fitting("""
        Each line of the output is one fix: t, device, x, y, z, floor, accuracy (the radius expected \
        to hold the truth 68 % of the time), latitude/longitude when the venue has an origin, method \
        and the beacons used; with --algorithm posterior, places: each room's probability. Scans \
        that cannot be located get no line. Each device has its own \
        locator, started afresh whenever its track changes. Reads and writes in constant memory \
        (with --smooth, it holds each device's open track, and writes a track's fixes once it has \
        ended; with --lag S, each fix comes out once the scans of the next S seconds came in, \
        live scans too); give "-" as the recording to read standard input. Instead of a recording, \
        --adapter locates live scans (Linux) and --btsnoop the advertising reports of a btsnoop capture.

        A live source (an adapter, standard input or a FIFO, a capture at --pace recorded) runs on \
        the wall clock between scans: each fix is written as soon as it is due (with --lag, S \
        seconds after its scan even when no scan follows), to standard output or straight into -o FILE.

        Algorithms: \(PositioningAlgorithm.valueList).

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
        """)
    )

    @OptionGroup var positioning: PositioningOptions

    @OptionGroup var source: SightingSourceOptions

    @OptionGroup var pipeline: PipelineOptions

    @Option(name: .shortAndLong, help: ArgumentHelp("Write the fixes here (default: standard output).", valueName: "fixes.jsonl"))
    var output: String?

    func validate() throws {
        if pipeline.smooth, source.adapter != nil {
            throw ValidationError("--smooth needs a recording or a capture: it waits for each track to end, and a live scan has no end (--lag S smooths live scans S seconds late).")
        }
    }

    @OptionGroup var progressOptions: ProgressOptions

    func run() async throws {
        progressOptions.apply()
        try await ProgressLine.showingWork { try await work() }
    }

    private func work() async throws {
        let algorithm = positioning.algorithm
        let venueValue = try positioning.venue.read()
        let reader = try source.open(lenient: positioning.recordings.lenient)
        let training = try positioning.readTraining()
        let setup = algorithm.setup(venue: venueValue, training: training, configuration: pipeline.configuration)
        if let choice = pipeline.choice(of: setup, units: venueValue.units.rawValue) { Terminal.error(choice) }
        var fixes = FixPipeline(setup: setup, timing: pipeline.timing)

        let live = reader.isLive
        let writer = try output.map { path in
            // Live, the fixes go straight into the file, each as it comes; a replay's file appears whole at the end.
            live ? try FixWriter(appendingTo: URL(fileURLWithPath: path)) : try FixWriter(url: URL(fileURLWithPath: path))
        } ?? FixWriter(handle: FileHandle.standardOutput)
        var progress = Progress("locating", total: reader.size)
        var timeline = ScanTimeline(source: reader)
        try await timeline.run(&fixes) { due in
            for fix in due { try writer.write(fix) }
            if live, !due.isEmpty { try writer.flush() }
            progress.update(reader.bytesRead)
        }
        try writer.finish()
        progress.finish()
        reader.recordingReader?.warnAboutSkippedLines()
        if let summary = reader.summary { Terminal.error(summary) }
        try reader.recordingReader?.requireScans(toDo: "locate")
        if let output {
            let statistics = fixes.statistics
            Terminal.error("Wrote \(output): \(writer.fixesWritten.counted("fix", "fixes")) of \(statistics.scans.counted("scan"))"
                           + (statistics.unlocated > 0 ? " (\(statistics.unlocated) not located)" : "")
                           + ", \(statistics.devices.counted("device")), \(algorithm.rawValue).")
        }
    }
}
