import ArgumentParser
import Foundation
import Whereabouts

/// What the commands that locate share: the venue, a training recording, the algorithm, and
/// whether malformed lines are skipped. `locate`, `watch` and `rank` include these options.
struct PositioningOptions: ParsableArguments {
    /// `--venue`.
    @OptionGroup var venue: VenueOptions

    /// `--train`: a recording with truth, for the algorithms that learn.
    @Option(name: .long, help: ArgumentHelp("A recording with truth for the algorithms that learn.", valueName: "train.jsonl"))
    var train: String?

    /// `--algorithm`.
    @Option(name: .long, help: ArgumentHelp("The algorithm.", valueName: "name"))
    var algorithm: PositioningAlgorithm = .default

    /// `--lenient`.
    @OptionGroup var recordings: RecordingOptions

    /// Reads the training scans for the algorithm; an error when it learns and `--train` is missing.
    func readTraining() throws -> [Scan] {
        try Self.readTraining(train, for: [algorithm], lenient: recordings.lenient)
    }

    /// The training scans at `path`, read once for every algorithm; an error when an algorithm
    /// that learns has none.
    static func readTraining(_ path: String?, for algorithms: [PositioningAlgorithm], lenient: Bool) throws -> [Scan] {
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
        reader.warnAboutSkippedLines()
        if !scans.contains(where: { $0.truth != nil }), algorithms.contains(where: \.requiresTraining) {
            throw CommandFailure("\(path): no scan has truth, so there is nothing to learn from.")
        }
        return scans
    }
}
