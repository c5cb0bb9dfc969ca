import ArgumentParser
import Foundation
import Logging
import WhereaboutsServer

/// `whereabouts import`
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Bring a location history from OwnTracks Recorder, GPX or Google Takeout into a user's stream.",
        discussion: HelpText.fitting("""
        Stores every position of a history as a position/wgs84 event of --user, in --stream \
        (made when missing). The format is told by the files at PATH (or by --format):
          owntracks  an OwnTracks Recorder store — its rec/USER folder, one device's folder, or \
        a YYYY-MM.rec file — as OwnTracks' HTTP mode stores each location (accuracy, altitude, \
        speed, bearing; the device, tid and battery in clientData);
          gpx        .gpx files: every track point with its time (elevation, and speed and course \
        where written); waypoints and routes are passed over;
          takeout    Google's location history: Takeout's Records.json, its Semantic Location \
        History folder, or the phone's own Timeline.json (Android or iOS); visits are stored as \
        positions that last the visit.
        Each event's id comes from the position itself, so importing the same history again \
        adds nothing. What is not a position is passed over; a record that cannot be one is \
        named with its file and line and skipped. Works on the same store as `serve` \
        (--data-dir or --database) while it runs.

        Examples:
          whereabouts import /var/spool/owntracks/recorder/store/rec/jane --user jane
          whereabouts import ~/Downloads/rides --user jane --stream rides
          whereabouts import "Takeout/Location History/Records.json" --user jane --database postgres://…
        """))

    @Argument(help: ArgumentHelp("The history: a file, or a folder holding some.", valueName: "path"))
    var path: String

    @Option(name: .long, help: ArgumentHelp("The user whose stream the positions go to.", valueName: "name"))
    var user: String

    @Option(name: .long, help: ArgumentHelp("The stream the positions go to.", valueName: "id"))
    var stream = "position"

    @Option(name: .long, help: ArgumentHelp("The history's format: owntracks, gpx or takeout (default: told by its files).",
                                            valueName: "format"))
    var format: LocationHistoryImport.Format?

    @OptionGroup var store: StoreOptions

    func validate() throws {
        guard FileManager.default.fileExists(atPath: path) else { throw ValidationError("\(path): no such file or folder.") }
        if let format {
            guard !LocationHistoryImport.files(at: path, format: format).isEmpty else {
                throw ValidationError("\(path) holds no \(format) file (\(Self.pattern(of: format))).")
            }
        } else if LocationHistoryImport.Format.of(path: path) == nil {
            throw ValidationError(LocationHistoryImport.ImportError.nothingToRead(path).description)
        }
    }

    func run() async throws {
        let started = Date()
        var lastShown = Date.distantPast
        let format = format ?? LocationHistoryImport.Format.of(path: path) ?? .ownTracksRecorder
        let report = try await store.withStore(label: "whereabouts.import") { eventStore in
            try await LocationHistoryImport.run(at: path, format: format, into: eventStore, user: user, stream: stream) { report in
                guard Date().timeIntervalSince(lastShown) >= 1 else { return }
                lastShown = Date()
                Terminal.error("\(report.positions.counted("position")) read from \(report.files.counted("file")) so far…")
            }
        }
        for refusal in report.refusals { Terminal.error("\(refusal)") }
        if report.refused > report.refusals.count {
            Terminal.error("… and \((report.refused - report.refusals.count).counted("more refused record"))")
        }
        let seconds = max(Date().timeIntervalSince(started), 1e-3)
        Terminal.error("Imported \(report.imported.counted("position")) into \(user)'s \(stream) from \(report.files.counted("\(format) file")) "
            + "(\(report.existing) there already, \(report.passedOver) other records passed over, \(report.refused) refused) "
            + "in \(String(format: "%.1f", seconds)) s, \(Int(Double(report.positions) / seconds)) positions/s.")
    }

    static func pattern(of format: LocationHistoryImport.Format) -> String {
        switch format {
        case .ownTracksRecorder: "*.rec"
        case .gpx: "*.gpx"
        case .googleTakeout: "*.json"
        }
    }
}

extension LocationHistoryImport.Format: ExpressibleByArgument {}
