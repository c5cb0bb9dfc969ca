import ArgumentParser
import Foundation
import Whereabouts

/// `whereabouts train`
struct TrainCommand: LongWorkCommand {
    static let configuration = CommandConfiguration(
        commandName: "train",
        abstract: "Train a room classifier on scans labelled with places, and save it.",
        discussion: HelpText.fitting("""
        Learns from the scans of the recording that have truth.place (a recording in FORMATS.md §2, \
        or Bluenet training data: a JSON array of {"devices", "timestamp"} entries with --place, or \
        an object from place id to such arrays) and writes a versioned model file (FORMATS.md §6) \
        that `whereabouts classify` reads. Every setting of the default classifier is chosen by \
        cross-validation on contiguous blocks of each place's scans. With --format bluenet, writes \
        the training scans in Bluenet's training format (FORMATS.md §7) instead of a model.

        Classifiers: \(PlaceClassifierKind.valueList).

        Examples:
          whereabouts train --venue venue.json --recording survey.jsonl -o model.json
          whereabouts train --venue venue.json --recording survey.jsonl --classifier knn -o knn.json
          whereabouts train --venue venue.json --recording survey.jsonl --format bluenet -o training.json
          whereabouts train --venue venue.json --recording kitchen.json --place kitchen -o model.json
        """)
    )

    @Option(name: .long, help: ArgumentHelp("The venue (beacon ids, place floors).", valueName: "venue.json"))
    var venue: String

    @Option(name: .long, help: ArgumentHelp("Scans with truth.place (.jsonl), or Bluenet training data (.json).", valueName: "recording"))
    var recording: String

    @Option(name: .shortAndLong, help: ArgumentHelp("Write the model (or the Bluenet data) here.", valueName: "model.json"))
    var output: String

    @Option(name: .long, help: ArgumentHelp("The classifier.", valueName: "name"))
    var classifier: PlaceClassifierKind = .default

    @Option(name: .long, help: ArgumentHelp("What to write.", valueName: "format"))
    var format: OutputFormat = .model

    @Option(name: .long, help: ArgumentHelp("The place of every entry of a Bluenet training array.", valueName: "id"))
    var place: String?

    @OptionGroup var recordings: RecordingOptions

    @OptionGroup var progressOptions: ProgressOptions

    func work() throws {
        let venueValue = try VenueOptions.read(at: venue)
        let scans = try readScans(venue: venueValue)
        let set = PlaceTrainingSet(scans: scans, venue: venueValue)
        guard !set.samples.isEmpty else {
            throw CommandFailure("\(recording): no scan has truth.place, so there is nothing to learn from"
                                 + " (for a Bluenet training array, name its place with --place).")
        }
        let url = URL(fileURLWithPath: output)
        do {
            if format == .bluenet {
                try Data(JSONWriter().string(from: BluenetTrainingData.encodeByPlace(scans, venue: venueValue)).utf8).write(to: url, options: .atomic)
                Terminal.error("Wrote \(output): \(set.samples.count.counted("scan")) of \(set.labels.count.counted("place")) in Bluenet's training format.")
                return
            }
            let model = PlaceModel.train(classifier, on: set)
            try PlaceModelFile.write(model, to: url)
            var note = "Wrote \(output): \(classifier.rawValue) classifier of \(set.labels.count.counted("place")) and \(set.samples.count.counted("scan"))"
            if let accuracy = model.validationAccuracy { note += String(format: ", grouped cross-validation accuracy %.3f", accuracy) }
            if let smoothing = model.smoothing { note += String(format: " (temperature %g, switching %g)", smoothing.temperature, smoothing.switching) }
            if model.candidateAccuracies.count > 1 {
                // Which model the default chose, and what each scored held out.
                let chosen = if case .forest = model.classifier { "random forest" } else { "naive Bayes" }
                let scores = model.candidateAccuracies.sorted { $0.key.rawValue < $1.key.rawValue }
                    .map { String(format: "%@ %.3f", $0.key.rawValue, $0.value) }.joined(separator: ", ")
                note += "; chose the \(chosen) (\(scores))"
            }
            Terminal.error(note + ".")
        } catch let error as CommandFailure {
            throw error
        } catch {
            throw CommandFailure("\(output): cannot write: \(error.localizedDescription)")
        }
    }

    /// What `train` writes.
    enum OutputFormat: String, CaseIterable, ExpressibleByArgument {
        /// A trained model (FORMATS.md §6).
        case model
        /// The training scans in Bluenet's training format (FORMATS.md §7).
        case bluenet

        /// What each value writes, for the help.
        static var allValueDescriptions: [String: String] {
            ["model": "the trained model", "bluenet": "the training data in Bluenet's format"]
        }
    }

    /// The training scans: a recording, or Bluenet training data (told apart by the first character).
    private func readScans(venue: Venue) throws -> [Scan] {
        guard FileManager.default.fileExists(atPath: recording) else { throw CommandFailure("\(recording): no such file (the recording)") }
        let url = URL(fileURLWithPath: recording)
        let data: Data
        do { data = try Data(contentsOf: url) } catch { throw CommandFailure("\(recording): cannot read: \(error.localizedDescription)") }
        let first = data.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        let isBluenet = first == UInt8(ascii: "[") || (first == UInt8(ascii: "{") && !data.contains(0x0A) && !Self.looksLikeScan(data))
        if isBluenet {
            return try BluenetTrainingData.decode(data, file: recording, place: place, venue: venue)
        }
        let reader = try RecordingReader.open(recording, lenient: recordings.lenient)
        var scans: [Scan] = []
        while let scan = try reader.next() {
            var scan = scan
            if let place, scan.truth?.place == nil {
                var truth = scan.truth ?? GroundTruth()
                truth.place = place
                scan.truth = truth
            }
            scans.append(scan)
        }
        reader.warnAboutSkippedLines()
        return scans
    }

    /// Whether a one-line JSON object is a recording line (it has "readings").
    private static func looksLikeScan(_ data: Data) -> Bool {
        (try? JSONParser.parse(data))?["readings"] != nil
    }
}
