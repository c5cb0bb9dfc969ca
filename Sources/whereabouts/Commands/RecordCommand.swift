import ArgumentParser
import Foundation
import Whereabouts
import WhereaboutsBluetooth

/// `whereabouts record`
struct RecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record the beacons heard, live or from a capture, as a recording (FORMATS.md §2).",
        discussion: HelpText.fitting("""
        Every advertising report event that holds a beacon becomes one scan line: its time and \
        one reading per beacon (RSSI and the advertised power at 1 m). With --venue, beacons \
        of the venue are named by their id ("beacon": "23"); the others keep their advertised \
        identity. A live recording runs until Ctrl-C (or --duration) and the file is complete \
        either way: it is written atomically when recording stops.

        Examples:
          whereabouts record --adapter hci0 -o visit.jsonl
          whereabouts record --adapter hci0 --venue venue.json --duration 600 -o survey.jsonl
          whereabouts record --btsnoop btsnoop_hci.log --venue venue.json -o visit.jsonl
        """)
    )

    @OptionGroup var source: SightingSourceOptions

    @Option(name: .long, help: ArgumentHelp("Name the venue's beacons by their ids.", valueName: "venue.json"))
    var venue: String?

    @Option(name: .shortAndLong, help: ArgumentHelp("The recording to write.", valueName: "recording.jsonl"))
    var output: String

    mutating func run() async throws {
        let venueValue = try venue.map(VenueOptions.read(at:))
        let directory = venueValue.map(BeaconDirectory.init)
        let sightings = try source.open(defaultPace: .fast, allowingRecording: false)
        let writer = try RecordingWriter(url: URL(fileURLWithPath: output))
        if sightings.isLive { Terminal.error("Recording with \(sightings.name) to \(output)… press Ctrl-C to stop.") }
        var readings = 0, named = 0
        while var scan = try await sightings.next() {
            if let directory, let venueValue {
                for index in scan.readings.indices {
                    guard let beacon = directory.index(for: scan.readings[index].beacon) else { continue }
                    scan.readings[index].beacon = .id(venueValue.beacons[beacon].id)
                    named += 1
                }
            }
            readings += scan.readings.count
            try writer.write(scan)
        }
        try writer.finish()
        if let summary = sightings.summary { Terminal.error(summary) }
        Terminal.error("Wrote \(output): \(writer.scansWritten.counted("scan")), \(readings.counted("reading"))"
                       + (venueValue == nil ? "" : " (\(named) of the venue's beacons)") + ".")
    }
}
