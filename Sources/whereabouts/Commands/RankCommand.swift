import ArgumentParser
import Foundation
import Whereabouts

/// `whereabouts rank`
struct RankCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rank",
        abstract: "Keep a venue's places ordered by distance from each fix, printing the order when it changes.",
        discussion: HelpText.fitting("""
        Locates every scan of the recording (as `locate` does) and ranks the venue's places by \
        Hekaerge's rules: the distance of a place is the distance from the fix to its centre minus \
        its radius (to its edge for a polygon; negative inside); inside two places of the same floor \
        the smaller comes first; otherwise the nearer; on a tie, or inside two places of different \
        floors, the place on the fix's floor first; otherwise the venue's order. A line is printed \
        whenever the order changes (per device; with --top, the order of the places shown): the time, the device, the fix and the places with \
        their distances. --json prints one JSON object a line instead: \
        {"t", "device", "x", "y", "floor", "places": [{"id", "floor", "distance"}, …]}.

        Algorithms: \(PositioningAlgorithm.valueList).

        Examples:
          whereabouts rank --venue Examples/venue.json --recording Examples/visit.jsonl
          whereabouts rank --venue venue.json --recording walk.jsonl --top 3
          whereabouts rank --venue venue.json --recording walk.jsonl --json | head -2
        """)
    )

    @OptionGroup var positioning: PositioningOptions

    @Option(name: .long, help: ArgumentHelp("The recording to locate (\"-\" for standard input).", valueName: "recording.jsonl"))
    var recording: String

    @Option(name: .long, help: ArgumentHelp("Print only the first N places of each order (default: all).", valueName: "N"))
    var top: Int?

    @Flag(name: .long, help: "Print one JSON object a line.")
    var json = false

    func validate() throws {
        if let top, top < 1 { throw ValidationError("--top must be at least 1.") }
    }

    func run() throws {
        let algorithm = positioning.algorithm
        let venueValue = try positioning.venue.read()
        if !venueValue.places.contains(where: { $0.shape.area != nil }) {
            throw CommandFailure("\(positioning.venue.path): the venue has no circle or polygon place to rank.")
        }
        let reader = try RecordingReader.open(recording, lenient: positioning.lenient)
        let training = try positioning.readTraining()
        var fixes = algorithm.setup(venue: venueValue, training: training).makePipeline()
        // With --top, a change below the places shown is no change.
        var rankings = RankingPipeline(places: venueValue.places, top: top)
        var out = TextOutput()
        while let scan = try reader.next() {
            fixes.add(scan) { fix in
                guard let places = rankings.update(with: fix) else { return }
                out.line(json ? Self.jsonLine(fix: fix, places: places) : Self.textLine(fix: fix, places: places))
            }
        }
        out.flush()
        reader.warnAboutSkippedLines()
        try reader.requireScans(toDo: "rank")
    }

    /// `1700000003 visitor (-79.2, 9.8) floor 0: hall3 -38.6, hall5 95.1, …`
    static func textLine(fix: Fix, places: [PlaceRanking.RankedPlace]) -> String {
        let list = places.map { "\($0.place.id) \(($0.distance ?? .nan).formatted(1))" }.joined(separator: ", ")
        return "\(fix.time.formatted(3)) \(fix.device ?? "-") (\(fix.point.x.formatted(1)), \(fix.point.y.formatted(1)))"
            + (fix.floor.map { " floor \($0)" } ?? "") + ": " + list
    }

    static func jsonLine(fix: Fix, places: [PlaceRanking.RankedPlace]) -> String {
        var members: [(key: String, value: JSONValue)] = [("t", .number(fix.time))]
        if let device = fix.device { members.append(("device", .string(device))) }
        members.append(("x", .number(fix.point.x.rounded(decimals: 3))))
        members.append(("y", .number(fix.point.y.rounded(decimals: 3))))
        if let floor = fix.floor { members.append(("floor", .number(Double(floor)))) }
        members.append(("places", .array(places.map { ranked in
            var place: [(key: String, value: JSONValue)] = [("id", .string(ranked.place.id)), ("floor", .number(Double(ranked.place.floor)))]
            if let distance = ranked.distance, distance.isFinite { place.append(("distance", .number(distance.rounded(decimals: 3)))) }
            return .object(place)
        })))
        return JSONWriter().string(from: .object(members))
    }
}
