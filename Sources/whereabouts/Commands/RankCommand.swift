import ArgumentParser
import Foundation
import Whereabouts

/// `whereabouts rank`
struct RankCommand: AsyncParsableCommand {
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
        their distances. When a scan hears beacons but gets no fix, the places are ranked from the strongest heard \
        beacon that has a position in the venue, as Hekaerge did (the line says "nearest beacon ID"). --json prints \
        one JSON object a line instead: {"t", "device", "x", "y", "floor", "source", "beacon", "places": [{"id", \
        "floor", "distance"}, …]}, where source is "fix" or "nearest-beacon" (then beacon names it).

        Read from a pipe, a FIFO or a terminal ("-"), the recording is live: each line is written as \
        it happens, and a device that gives no fix and hears no placed beacon for --forget-after \
        seconds has no position any more, so its places go back to the venue's order (source \
        "none"), as Hekaerge's did when no beacon was in range.

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

    @Option(name: .long, help: ArgumentHelp("Live input: seconds without a position after which a device's places go back to the venue's order.",
                                            valueName: "seconds"))
    var forgetAfter: Double = 3

    func validate() throws {
        if let top, top < 1 { throw ValidationError("--top must be at least 1.") }
        guard forgetAfter > 0, forgetAfter.isFinite else { throw ValidationError("--forget-after must be a positive number of seconds.") }
    }

    func run() async throws {
        let algorithm = positioning.algorithm
        let venueValue = try positioning.venue.read()
        if !venueValue.places.contains(where: { $0.shape.area != nil }) {
            throw CommandFailure("\(positioning.venue.path): the venue has no circle or polygon place to rank.")
        }
        let source = try SightingSourceOptions.openRecording(recording, lenient: positioning.recordings.lenient)
        let training = try positioning.readTraining()
        // With --top, a change below the places shown is no change.
        var stage = RankingStage(fixes: algorithm.setup(venue: venueValue, training: training).makePipeline(),
                                 rankings: RankingPipeline(places: venueValue.places, top: top,
                                                           positionTimeout: source.isLive ? forgetAfter : nil),
                                 venue: venueValue, json: json)
        var out = TextOutput(live: source.isLive)
        var timeline = ScanTimeline(source: source)
        try await timeline.run(&stage) { lines in
            for line in lines { out.line(line) }
        }
        out.flush()
        source.recordingReader?.warnAboutSkippedLines()
        try source.recordingReader?.requireScans(toDo: "rank")
    }

    /// The strongest reading of a beacon with a known position in the venue, and that position.
    static func nearestBeacon(of scan: Scan, in venue: Venue) -> (beacon: Venue.Beacon, position: PlaceRanking.Position)? {
        let sightings = scan.readings.filter(\.isValid).map {
            PlaceRanking.HeardBeacon(beacon: $0.beacon, proximity: .unknown, rssi: $0.rssi)
        }
        return PlaceRanking.nearestBeacon(of: sightings, in: venue).map { ($0.beacon, $0.position) }
    }

    /// `1700000003 visitor (-79.2, 9.8) floor 0: hall3 -38.6, hall5 95.1, …`; with a beacon,
    /// `1700000004 visitor (-80, 10) floor 0 nearest beacon h3-1: hall3 -40, …`.
    static func textLine(fix: Fix, places: [PlaceRanking.RankedPlace], beacon: String? = nil) -> String {
        let list = places.map { "\($0.place.id) \(($0.distance ?? .nan).formatted(1))" }.joined(separator: ", ")
        return "\(fix.time.formatted(3)) \(fix.device ?? "-") (\(fix.point.x.formatted(1)), \(fix.point.y.formatted(1)))"
            + (fix.floor.map { " floor \($0)" } ?? "") + (beacon.map { " nearest beacon \($0)" } ?? "") + ": " + list
    }

    /// `1700000020 visitor no position: hall1, hall2, …`
    static func textLine(_ forgotten: RankingPipeline.Forgotten) -> String {
        "\(forgotten.time.formatted(3)) \(forgotten.device ?? "-") no position: " + forgotten.places.map(\.place.id).joined(separator: ", ")
    }

    /// `{"t", "device", "source": "none", "places": [{"id", "floor"}, …]}`
    static func jsonLine(_ forgotten: RankingPipeline.Forgotten) -> String {
        var members: [(key: String, value: JSONValue)] = [("t", .number(forgotten.time))]
        if let device = forgotten.device { members.append(("device", .string(device))) }
        members.append(("source", .string("none")))
        members.append(("places", .array(forgotten.places.map { .object([("id", .string($0.place.id)), ("floor", .number(Double($0.place.floor)))]) })))
        return JSONWriter().string(from: .object(members))
    }

    static func jsonLine(fix: Fix, places: [PlaceRanking.RankedPlace], beacon: String? = nil) -> String {
        var members: [(key: String, value: JSONValue)] = [("t", .number(fix.time))]
        if let device = fix.device { members.append(("device", .string(device))) }
        members.append(("x", .number(fix.point.x.rounded(decimals: 3))))
        members.append(("y", .number(fix.point.y.rounded(decimals: 3))))
        if let floor = fix.floor { members.append(("floor", .number(Double(floor)))) }
        members.append(("source", .string(beacon == nil ? "fix" : "nearest-beacon")))
        if let beacon { members.append(("beacon", .string(beacon))) }
        members.append(("places", .array(places.map { ranked in
            var place: [(key: String, value: JSONValue)] = [("id", .string(ranked.place.id)), ("floor", .number(Double(ranked.place.floor)))]
            if let distance = ranked.distance, distance.isFinite { place.append(("distance", .number(distance.rounded(decimals: 3)))) }
            return .object(place)
        })))
        return JSONWriter().string(from: .object(members))
    }
}

/// What `rank` runs over the scans: each scan's fix (or, with none, the strongest heard beacon
/// with a known place: Hekaerge's position) ranks the places; live, a device whose position grew
/// too old shows the venue's order again. It gives out the output's lines.
private struct RankingStage: TimedStage {
    var fixes: FixPipeline
    var rankings: RankingPipeline
    let venue: Venue
    let json: Bool

    mutating func process(_ scan: Scan) -> [String] {
        var lines: [String] = []
        // The fixes' callback ranks into copies (it cannot reach into `self` while `fixes` runs).
        var rankings = rankings
        let venue = venue, json = json
        defer { self.rankings = rankings }
        fixes.add(scan, located: { scan, fix in
            if let fix {
                guard let places = rankings.update(with: fix) else { return }
                lines.append(json ? RankCommand.jsonLine(fix: fix, places: places) : RankCommand.textLine(fix: fix, places: places))
            } else if let scan, let nearest = RankCommand.nearestBeacon(of: scan, in: venue) {
                let position = nearest.position
                guard let places = rankings.update(device: scan.device, position: position, at: scan.time) else { return }
                let stand = Fix(time: scan.time, device: scan.device, point: SpatialPoint(x: position.point.x, y: position.point.y, z: 0),
                                floor: position.floor, accuracy: 0, method: "nearest-beacon")
                let beacon = nearest.beacon.id
                lines.append(json ? RankCommand.jsonLine(fix: stand, places: places, beacon: beacon)
                                  : RankCommand.textLine(fix: stand, places: places, beacon: beacon))
            }
        })
        return lines
    }

    /// Live silence: the devices whose position is now too old show the venue's order.
    mutating func advance(to time: Double) -> [String] {
        rankings.advance(to: time).map { json ? RankCommand.jsonLine($0) : RankCommand.textLine($0) }
    }

    func nextDeadline() -> Double? { rankings.nextDeadline }

    /// The fixes are given at once, so nothing is held at the end.
    mutating func finish() -> [String] { [] }
}
