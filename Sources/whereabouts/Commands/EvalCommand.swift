import ArgumentParser
import Foundation
import Whereabouts

/// `whereabouts eval`
struct EvalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eval",
        abstract: "Score a positioning algorithm against a recording with ground truth.",
        discussion: """
        Locates every scan of the test recording and reports the horizontal error against its truth \
        (mean, median, p75, p95, max), how many scans were located, floor accuracy, and how often the \
        truth lay inside the reported accuracy radius (which promises 68 %).

        Examples:
          whereabouts eval --venue venue.json --test test.jsonl
          whereabouts eval --venue venue.json --test test.jsonl --train train.jsonl --json
        """
    )

    @Option(name: .long, help: ArgumentHelp("The venue.", valueName: "venue.json"))
    var venue: String

    @Option(name: .long, help: ArgumentHelp("The recording to score, with truth.", valueName: "test.jsonl"))
    var test: String

    @Option(name: .long, help: ArgumentHelp("A recording with truth to train and calibrate on.", valueName: "train.jsonl"))
    var train: String?

    @Option(name: .long, help: ArgumentHelp("The algorithm: \(PositioningAlgorithm.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "name"))
    var algorithm: String = PositioningAlgorithm.allCases[0].rawValue

    @Flag(name: .long, help: "Print the report as JSON (FORMATS.md §3).")
    var json = false

    func run() throws {
        guard let chosen = PositioningAlgorithm(rawValue: algorithm) else {
            throw ValidationError("Unknown algorithm \"\(algorithm)\". Algorithms: \(PositioningAlgorithm.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        let venueURL = URL(fileURLWithPath: venue)
        let venueValue = try VenueFile.read(from: venueURL)
        var training: [Scan] = []
        if let train {
            let reader = try RecordingReader(url: URL(fileURLWithPath: train))
            while let scan = try reader.next() { training.append(scan) }
        }
        let positioning = PositioningVenue(venueValue)
        let solver = chosen.solver(for: positioning, training: training)
        var locators: [String: Locator] = [:]
        var evaluation = Evaluation()
        let reader = try RecordingReader(url: URL(fileURLWithPath: test))
        while let scan = try reader.next() {
            let key = "\(scan.device ?? "")\u{1F}\(scan.track ?? "")"
            var locator = locators[key] ?? Locator(venue: positioning, solver: solver)
            let fix = locator.locate(scan)
            locators[key] = locator
            evaluation.add(truth: scan.truth, fix: fix)
        }
        let dataset = venueURL.deletingLastPathComponent().lastPathComponent
        let report = evaluation.report(dataset: dataset, algorithm: chosen.rawValue, units: venueValue.units)
        if json {
            print(JSONWriter().string(from: report.json))
        } else {
            print(JSONWriter(indent: 2).string(from: report.json))
        }
    }
}
