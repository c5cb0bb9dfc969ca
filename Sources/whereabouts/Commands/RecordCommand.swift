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

        For a site survey, say where you stand: --at-place names the venue's place (every scan \
        gets truth.place, for `train` and `eval` of rooms), --at X,Y[,FLOOR] the spot in the \
        venue's units (truth.x, y and floor, for `calibrate`, fingerprints and `eval`). Stand \
        still for 30–60 s at each spot, one file a spot, then join the files in the order they \
        were recorded (`cat survey-*.jsonl > survey.jsonl`).

        Examples:
          whereabouts record --adapter hci0 -o visit.jsonl
          whereabouts record --adapter hci0 --venue venue.json --duration 600 -o survey.jsonl
          whereabouts record --btsnoop btsnoop_hci.log --venue venue.json -o visit.jsonl
          whereabouts record --adapter hci0 --venue venue.json --duration 45 \\
              --at-place kitchen --at 3.5,2,0 -o survey-kitchen.jsonl
        """)
    )

    @OptionGroup var source: SightingSourceOptions

    @Option(name: .long, help: ArgumentHelp("Name the venue's beacons by their ids.", valueName: "venue.json"))
    var venue: String?

    @Option(name: .shortAndLong, help: ArgumentHelp("The recording to write.", valueName: "recording.jsonl"))
    var output: String

    @Option(name: .customLong("at-place"), help: ArgumentHelp(
        "Where you stand, as one of the venue's places: each scan's truth.place (needs --venue).", valueName: "place"))
    var atPlace: String?

    @Option(name: .customLong("at"), help: ArgumentHelp(
        "Where you stand, in the venue's units and optionally its floor level: each scan's truth.x, y (and floor).",
        valueName: "x,y[,floor]"))
    var at: String?

    func validate() throws {
        if atPlace != nil, venue == nil { throw ValidationError("--at-place names one of the venue's places: give --venue too.") }
        if let at { _ = try Self.spot(at) }
    }

    /// `X,Y` or `X,Y,FLOOR`: finite coordinates and an integer floor level.
    static func spot(_ text: String) throws -> (x: Double, y: Double, floor: Int?) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard (2...3).contains(parts.count), let x = Double(parts[0]), let y = Double(parts[1]), x.isFinite, y.isFinite else {
            throw ValidationError("--at takes X,Y or X,Y,FLOOR in the venue's units, e.g. --at 3.5,2 or --at 3.5,2,1; found \"\(text)\".")
        }
        guard parts.count == 3 else { return (x, y, nil) }
        guard let floor = Int(parts[2]) else {
            throw ValidationError("--at: the floor is a level of the venue (a whole number), found \"\(parts[2])\".")
        }
        return (x, y, floor)
    }

    /// The truth every scan gets, checked against the venue: its place and floor must exist.
    private func truth(in venue: Venue?) throws -> GroundTruth? {
        guard atPlace != nil || at != nil else { return nil }
        var truth = GroundTruth()
        if let at {
            let spot = try Self.spot(at)
            truth.x = spot.x
            truth.y = spot.y
            truth.floor = spot.floor
        }
        if let atPlace, let venue {
            guard let place = venue.places.first(where: { $0.id == atPlace }) else {
                let known = venue.places.map(\.id)
                let hint = NearestName.suggestion(for: atPlace, among: known).map { " Did you mean \"\($0)\"?" } ?? ""
                throw ValidationError("--at-place: the venue has no place \"\(atPlace)\".\(hint) Its places: "
                                      + (known.isEmpty ? "none" : known.prefix(20).joined(separator: ", ") + (known.count > 20 ? ", …" : "")) + ".")
            }
            truth.place = place.id
            if let floor = truth.floor, floor != place.floor {
                throw ValidationError("--at says floor \(floor), but the place \"\(place.id)\" is on floor \(place.floor).")
            }
            truth.floor = place.floor
        }
        if let venue, let floor = truth.floor, !venue.floors.isEmpty, !venue.floors.contains(where: { $0.level == floor }) {
            throw ValidationError("--at: the venue has no floor \(floor) (its levels: \(venue.floors.map { String($0.level) }.joined(separator: ", "))).")
        }
        return truth
    }

    mutating func run() async throws {
        let venueValue = try venue.map(VenueOptions.read(at:))
        let directory = venueValue.map(BeaconDirectory.init)
        let truth = try truth(in: venueValue)
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
            if let truth { scan.truth = truth }
            readings += scan.readings.count
            try writer.write(scan)
        }
        try writer.finish()
        if let summary = sightings.summary { Terminal.error(summary) }
        Terminal.error("Wrote \(output): \(writer.scansWritten.counted("scan")), \(readings.counted("reading"))"
                       + (venueValue == nil ? "" : " (\(named) of the venue's beacons)")
                       + (truth == nil ? "" : ", each with its truth (\(Self.describe(truth)))") + ".")
    }

    /// The truth in words, e.g. "place kitchen, x 3.5, y 2, floor 0".
    private static func describe(_ truth: GroundTruth?) -> String {
        guard let truth else { return "" }
        var parts: [String] = []
        if let place = truth.place { parts.append("place \(place)") }
        if let x = truth.x, let y = truth.y { parts.append("x \(x.formatted(3)), y \(y.formatted(3))") }
        if let floor = truth.floor { parts.append("floor \(floor)") }
        return parts.joined(separator: ", ")
    }
}
