import ArgumentParser
import Foundation
import Logging
import WhereaboutsServer

/// `whereabouts import`
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Bring a history from OwnTracks Recorder into a user's stream.",
        discussion: HelpText.fitting("""
        Reads an OwnTracks Recorder store — its rec/USER folder, one device's folder, or a single \
        YYYY-MM.rec file — and stores every location as a position/wgs84 event of --user, in \
        --stream (made when missing), with the fields OwnTracks' HTTP mode gives (accuracy, \
        altitude, speed, bearing; the device, tid and battery in clientData). Each event's id \
        comes from the device, the time and the fix, so importing the same store again adds \
        nothing. Other messages (transitions, waypoints) are passed over; a line that is not a \
        location is named with its file and line and skipped. Works on the same store as \
        `serve` (--data-dir or --database) while it runs.

        Examples:
          whereabouts import /var/spool/owntracks/recorder/store/rec/jane --user jane
          whereabouts import rec/jane/phone/2024-05.rec --user jane --stream owntracks --database postgres://…
        """))

    @Argument(help: ArgumentHelp("The Recorder store's folder (or a .rec file).", valueName: "path"))
    var path: String

    @Option(name: .long, help: ArgumentHelp("The user whose stream the locations go to.", valueName: "name"))
    var user: String

    @Option(name: .long, help: ArgumentHelp("The stream the locations go to.", valueName: "id"))
    var stream = "position"

    @OptionGroup var store: StoreOptions

    func validate() throws {
        guard FileManager.default.fileExists(atPath: path) else { throw ValidationError("\(path): no such file or folder.") }
        guard !OwnTracksRecorderImport.files(at: path).isEmpty else {
            throw ValidationError("\(path) holds no OwnTracks Recorder file (*.rec); give the store's rec/USER folder.")
        }
    }

    func run() async throws {
        let started = Date()
        var lastShown = Date.distantPast
        let report = try await store.withStore(label: "whereabouts.import") { eventStore in
            try await OwnTracksRecorderImport.run(at: path, into: eventStore, user: user, stream: stream) { report in
                guard Date().timeIntervalSince(lastShown) >= 1 else { return }
                lastShown = Date()
                Terminal.error("\(report.locations.counted("location")) read from \(report.files.counted("file")) so far…")
            }
        }
        for refusal in report.refusals { Terminal.error("\(refusal)") }
        if report.refused > report.refusals.count {
            Terminal.error("… and \((report.refused - report.refusals.count).counted("more refused line"))")
        }
        let seconds = max(Date().timeIntervalSince(started), 1e-3)
        Terminal.error("Imported \(report.imported.counted("location")) into \(user)'s \(stream) from \(report.files.counted("file")) "
            + "(\(report.existing) there already, \(report.otherMessages) other messages passed over, \(report.refused) refused) "
            + "in \(String(format: "%.1f", seconds)) s, \(Int(Double(report.locations) / seconds)) locations/s.")
    }
}
