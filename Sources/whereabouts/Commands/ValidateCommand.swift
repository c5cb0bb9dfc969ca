import ArgumentParser
import Foundation
import Whereabouts

/// `whereabouts validate`
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check venues and recordings against the formats.",
        discussion: HelpText.fitting("""
        Each FILE is recognised by its content: a JSON object with "beacons" is a venue, JSON Lines \
        with "t" and "readings" are a recording. Every problem is listed with its file, line and key; \
        the exit status is 1 when any file has one.

        With --venue, recordings are also checked against the venue: every reading must name one of \
        its beacons, and truth floors and places must exist in it.

        A key the format does not know is ignored when the file is read (files from newer writers \
        stay readable), and reported here as a warning with its line and column, and with the \
        known key it most likely meant ("did you mean \"txPower\"?"); with --strict it fails the file.

        Examples:
          whereabouts validate Examples/venue.json Examples/visit.jsonl
          whereabouts validate --venue Examples/venue.json Examples/visit.jsonl
          whereabouts validate --strict venue.json
        """)
    )

    @Option(name: .long, help: ArgumentHelp("A venue to check recordings against.", valueName: "venue.json"))
    var venue: String?

    @Argument(help: ArgumentHelp("Venue (.json) and recording (.jsonl) files.", valueName: "file"))
    var files: [String]

    @Flag(name: .long, help: "Fail a file that holds keys its format does not know (misspelt keys, most often).")
    var strict = false

    func validate() throws {
        if files.isEmpty && venue == nil { throw ValidationError("Name at least one file to check.") }
    }

    func run() throws {
        var failures = 0
        var checkVenue: Venue?
        if let venue {
            let url = URL(fileURLWithPath: venue)
            do {
                var unknownKeys: [UnknownKey] = []
                let value = try VenueFile.read(from: url, unknownKeys: &unknownKeys)
                print(describe(value, path: venue, unknownKeys: unknownKeys))
                InputFiles.warn(about: unknownKeys)
                if strict, !unknownKeys.isEmpty { throw ExitCode(1) }
                checkVenue = value
            } catch let exit as ExitCode {
                throw exit
            } catch {
                Terminal.error("error: \(error)")
                throw ExitCode(1)
            }
        }
        for path in files {
            let url = URL(fileURLWithPath: path)
            switch FileKind.of(url) {
            case .missing:
                Terminal.error("error: \(path): no such file")
                failures += 1
            case .venue:
                do {
                    var unknownKeys: [UnknownKey] = []
                    let value = try VenueFile.read(from: url, unknownKeys: &unknownKeys)
                    print(describe(value, path: path, unknownKeys: unknownKeys))
                    InputFiles.warn(about: unknownKeys)
                    if strict, !unknownKeys.isEmpty { failures += 1 }
                } catch {
                    Terminal.error("error: \(error)")
                    failures += 1
                }
            case .recording:
                if !validateRecording(url, path: path, venue: checkVenue) { failures += 1 }
            }
        }
        if failures > 0 {
            Terminal.error("\(failures) of \(files.count.counted("file")) failed validation.")
            throw ExitCode(1)
        }
    }

    private func describe(_ venue: Venue, path: String, unknownKeys: [UnknownKey]) -> String {
        let placed = venue.beacons.filter { $0.x != nil }.count
        let floors = max(venue.floors.count, 1)
        return "\(path): venue\(venue.name.map { " \"\($0)\"" } ?? ""): \(floors.counted("floor")), "
            + "\(venue.beacons.count.counted("beacon")) (\(placed) with a position), \(venue.places.count.counted("place")), units \(venue.units.rawValue)"
            + verdict(problems: 0, unknownKeys: unknownKeys)
    }

    /// " — valid", with the unknown keys it ignored (which fail it with --strict).
    private func verdict(problems: Int, unknownKeys: [UnknownKey]) -> String {
        guard problems == 0 else { return "" }
        if unknownKeys.isEmpty { return " — valid" }
        let ignored = unknownKeys.count.counted("unknown key")
        return strict ? " — not valid with --strict: \(ignored) (below)" : " — valid, \(ignored) ignored (below)"
    }

    private func validateRecording(_ url: URL, path: String, venue: Venue?) -> Bool {
        let reader: RecordingReader
        do {
            // The summary checks the time order itself, counting the scan that breaks it.
            reader = try RecordingReader(url: url, options: .init(lenient: true, problemsKept: 20, checksTimeOrder: false))
        } catch {
            Terminal.error("error: \(error)")
            return false
        }
        var summary = RecordingSummary(venue: venue)
        var progress = Progress("checking \(path)", total: url.fileSize)
        do {
            while let scan = try reader.next() {
                summary.add(scan, line: reader.lineNumber)
                progress.update(reader.bytesRead)
            }
        } catch {
            progress.finish()
            Terminal.error("error: \(error)")
            return false
        }
        progress.finish()
        let problems = reader.problems + summary.problems.map { $0.located(file: path) }
        let problemCount = reader.skippedLines + summary.problemCount
        var line = "\(path): recording: \(summary.scans.counted("scan")), \(summary.readings.counted("reading"))"
        if summary.emptyScans > 0 { line += " (\(summary.emptyScans.counted("scan")) heard nothing)" }
        let devices = summary.scansPerDevice.keys.compactMap { $0 }
        if !devices.isEmpty { line += ", \(devices.count.counted("device"))" }
        if !summary.tracks.isEmpty { line += ", \(summary.tracks.count.counted("track"))" }
        if let range = summary.timeRange {
            line += ", \((range.upperBound - range.lowerBound).formatted(1)) s"
        }
        if summary.scansWithPosition > 0 { line += ", \(summary.scansWithPosition) with true position" }
        if summary.scansWithPlace > 0 { line += ", \(summary.scansWithPlace) with true place" }
        if summary.receiverReports > 0 { line += ", \(summary.receiverReports.counted("receiver's report", "receivers' reports"))" }
        if reader.skippedReadings > 0 { line += "; \(reader.skippedReadings.counted("invalid reading")) (rssi ≥ 0) skipped" }
        print(line + verdict(problems: problemCount, unknownKeys: reader.unknownKeys))
        for problem in problems { Terminal.error("error: \(problem)") }
        InputFiles.warn(about: reader.unknownKeys)
        if problemCount > problems.count { Terminal.error("… and \(problemCount - problems.count) more problems") }
        if !summary.unknownReceivers.isEmpty {
            Terminal.error("\(path): \(summary.unknownReceivers.values.reduce(0, +).counted("report")) of \(summary.unknownReceivers.count.counted("receiver")) the venue does not have")
        }
        if !summary.unknownBeacons.isEmpty {
            Terminal.error("\(path): \(summary.unknownBeacons.values.reduce(0, +).counted("reading")) of \(summary.unknownBeacons.count.counted("beacon")) the venue does not have")
        }
        return problemCount == 0 && !(strict && !reader.unknownKeys.isEmpty)
    }
}
