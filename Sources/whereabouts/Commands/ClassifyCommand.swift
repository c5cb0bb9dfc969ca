import ArgumentParser
import Foundation
import Whereabouts

/// `whereabouts classify`
struct ClassifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "classify",
        abstract: "Name the place (room) of every scan of a recording with a trained model.",
        discussion: HelpText.fitting("""
        Reads a model written by `whereabouts train` and classifies every scan, keeping one belief \
        per device and track when the model smooths streams. Each output line is one scan: t, device \
        (when the scan names one), place, probability, floor (when the places have floors). Scans \
        the model has no answer for (nothing heard; or, for the basic classifier, fewer than 3 \
        beacons it knows) get no line. A default model learns the RSSI offset of each phone its \
        survey did not use as it goes, and says at the end what it learnt. The format follows the \
        output file's extension (.jsonl, .json: JSON Lines; .tsv, .txt: a tab-separated table); \
        otherwise --json writes JSON Lines and the default is the table.

        Examples:
          whereabouts classify --model model.json --recording visit.jsonl
          whereabouts classify --model model.json --recording visit.jsonl -o places.jsonl
          whereabouts classify --model model.json --recording visit.jsonl --json | jq .place
        """)
    )

    @Option(name: .long, help: ArgumentHelp("The model (from `whereabouts train`).", valueName: "model.json"))
    var model: String

    @Option(name: .long, help: ArgumentHelp("The recording to classify (\"-\" for standard input).", valueName: "recording.jsonl"))
    var recording: String

    @Option(name: .shortAndLong, help: ArgumentHelp("Write the results here (default: standard output).", valueName: "out.jsonl"))
    var output: String?

    @Flag(name: .long, help: "Write JSON Lines ({\"t\", \"device\", \"place\", \"probability\", \"floor\"}) instead of a table.")
    var json = false

    @OptionGroup var recordings: RecordingOptions

    /// The formats an output file's extension names: true for JSON Lines.
    private static let extensions = ["jsonl": true, "json": true, "ndjson": true, "tsv": false, "txt": false, "tab": false]

    /// Whether the output is JSON Lines: as --json says, or as the output file is named.
    private var writesJSON: Bool {
        OutputFileFormat.named(by: output, among: Self.extensions) ?? json
    }

    func validate() throws {
        _ = try OutputFileFormat.resolve(asked: json ? true : nil, askedAs: "--json", output: output, among: Self.extensions,
                                         fallback: false) { $0 ? "JSON Lines" : "a tab-separated table" }
    }

    func run() throws {
        var tracker = try InputFiles.placeModel(at: model).tracker()
        let reader = try RecordingReader.open(recording, lenient: recordings.lenient)
        let writer = try output.map { try JSONLinesWriter(url: URL(fileURLWithPath: $0)) } ?? JSONLinesWriter(handle: FileHandle.standardOutput)
        let json = writesJSON
        var table = json ? "" : "t\tdevice\tplace\tprobability\tfloor\n"
        var written = 0
        while let scan = try reader.next() {
            guard let result = tracker.classify(scan) else { continue }
            written += 1
            if json {
                var members: [(key: String, value: JSONValue)] = [("t", .number(scan.time))]
                if let device = scan.device { members.append(("device", .string(device))) }
                members += [("place", .string(result.place)), ("probability", .number((result.probability * 10000).rounded() / 10000))]
                if let floor = result.floor { members.append(("floor", .number(Double(floor)))) }
                try writer.write(.object(members))
            } else {
                JSONWriter.appendNumber(scan.time, to: &table)
                table += "\t\(scan.device ?? "-")\t\(result.place)\t\(String(format: "%.4f", result.probability))\t\(result.floor.map(String.init) ?? "-")\n"
            }
        }
        if json {
            try writer.finish()
        } else if let output {
            do { try Data(table.utf8).write(to: URL(fileURLWithPath: output), options: .atomic) } catch {
                throw CommandFailure("\(output): cannot write: \(error.localizedDescription)")
            }
        } else {
            FileHandle.standardOutput.write(Data(table.utf8))
        }
        reader.warnAboutSkippedLines()
        if let output { Terminal.error("Wrote \(output): \(written) of \(reader.scansRead.counted("scan")) classified.") }
        if let summary = Self.learntOffsetSummary(tracker.learntOffsets) { Terminal.error(summary) }
    }

    /// One line on the offsets the tracker learnt (at most `listed` devices named), or `nil`
    /// when it learnt none.
    static func learntOffsetSummary(_ learnt: [(device: String?, estimate: PlaceOffsetEstimator.Estimate)], listed: Int = 8) -> String? {
        guard !learnt.isEmpty else { return nil }
        var parts = learnt.prefix(listed).map { device, estimate in
            "\(device ?? "(no device)") \(String(format: "%+.1f", estimate.offset)) dB (\(estimate.scans.counted("scan")))"
        }
        if learnt.count > listed { parts.append("and \(learnt.count - listed) more") }
        return "Learnt the RSSI offsets of phones the survey did not use: " + parts.joined(separator: ", ") + "."
    }
}
