import ArgumentParser
import Foundation
import Whereabouts

/// `whereabouts watch`
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Turn sightings into a stream of events: regions and places entered and left.",
        discussion: HelpText.fitting("""
        Each device gets an event hub (Bluenet Localization's events). Every proximity UUID of the \
        venue's beacons is watched as a region named by the UUID: enterRegion on its first sighting, \
        exitRegion after --exit-timeout seconds without one. Every scan is located (as \
        `locate` does) and the place the fix is in — the probability mass of the fix, a Gaussian whose \
        68 % radius is its accuracy, inside each place — goes through the place monitor's hysteresis \
        (a new place must win 3 consecutive scans, or 2 over 3 s, each holding --place-vote of the \
        fix): exitLocation, then enterLocation; \
        the place is left too after --exit-timeout seconds without a located scan. \
        With --model the place comes from a room classifier trained by `whereabouts train` instead \
        (its smoothed answer and probability, per device and track); it needs no beacon positions. \
        The sightings come from a recording, a live adapter (--adapter, Linux) or a btsnoop capture \
        (--btsnoop). When they end, time runs on until every pending exit has fallen due.

        Time: a recording read from a file (or a capture replayed --pace fast) runs on its scans' \
        own clock, as fast as it can be read, and gives the same events every time. A live source \
        — an adapter, a recording read from standard input or a FIFO, a capture at --pace recorded \
        — also runs on the wall clock between scans: an exit falls due --exit-timeout seconds after \
        the last sighting even while no scan comes, and each line is written as it happens \
        (`whereabouts watch … --recording - --json | consumer` works live).

        Lines: time, device, topic, and what entered or left. --json prints one JSON object a line: \
        {"t", "device", "topic", "data"} with Bluenet's payloads (a reference id for regions, \
        {"region", "location"} for places). --all adds the iBeaconAdvertisement batches (about one a \
        second) and currentLocation (every located scan while in a place).

        Why a place changed: --why writes under each change a line that says which rule made it — \
        how many votes over how many seconds and the last scan's estimate, the track's belief \
        (--algorithm posterior, --room-belief), or the exit timeout — then the fix of the scan that \
        made it and the beacons it heard, strongest first (at most 8). With --json each \
        enterLocation and exitLocation line gets a "why" member instead: the rule ("rule": "votes" \
        with "votes" and "firstVote", "belief" with "probability", or "timeout" with \
        "lastObservation"), "from" and "to", the scan's "estimate" ({"place", "probability", \
        "belief"}), "fix" ({"x", "y", "floor", "accuracy"}) and "readings" ([{"beacon", "rssi"}]).

        Algorithms: \(PositioningAlgorithm.valueList).

        Examples:
          whereabouts watch --venue Examples/venue.json --recording Examples/visit.jsonl
          whereabouts watch --venue venue.json --recording walk.jsonl --json --exit-timeout 10
          whereabouts watch --venue venue.json --recording walk.jsonl --model model.json
          whereabouts watch --venue venue.json --adapter hci0 --model model.json
          whereabouts watch --venue venue.json --recording walk.jsonl --why
        """)
    )

    @OptionGroup var positioning: PositioningOptions

    @OptionGroup var source: SightingSourceOptions

    @Option(name: .long, help: ArgumentHelp("A room classifier (from `whereabouts train`) that names each scan's place, instead of the fix's containment.", valueName: "model.json"))
    var model: String?

    @Option(name: .long, help: ArgumentHelp("Seconds without a sighting before a region is left (and without a located scan before the place is).", valueName: "seconds"))
    var exitTimeout: Double = 30

    @OptionGroup var placeVote: PlaceVoteOption
    @OptionGroup var roomBelief: RoomBeliefOption

    @Flag(name: .long, help: "Print one JSON object a line.")
    var json = false

    @Flag(name: .long, help: "Also print iBeaconAdvertisement batches and currentLocation events.")
    var all = false

    @Flag(name: .long, help: "Say why each place was entered or left: the rule, the scan's fix and the beacons it heard.")
    var why = false

    func validate() throws {
        guard exitTimeout > 0, exitTimeout.isFinite else { throw ValidationError("--exit-timeout must be a positive number of seconds.") }
        try roomBelief.validate(with: placeVote)
        if roomBelief.roomBelief, model != nil {
            throw ValidationError("--room-belief follows the fixes' rooms; a room classifier (--model) keeps its own beliefs.")
        }
    }

    func run() async throws {
        let algorithm = positioning.algorithm
        let venueValue = try positioning.venue.read()
        let places: PlaceSource
        if let model {
            var tracker = try InputFiles.placeModel(at: model).tracker()
            tracker.deviceOffsets = venueValue.deviceOffsets
            places = .classifier(tracker)
        } else {
            let containment = PlaceContainment(venue: venueValue)
            places = roomBelief.belief.map { .containment(containment, belief: $0, venue: venueValue) } ?? .containment(containment)
        }
        let reader = try source.open(lenient: positioning.recordings.lenient)
        let training = try positioning.readTraining()
        let monitor = MonitorPipeline(venue: venueValue, configuration: EventHub.Configuration(
            regionExitTimeout: exitTimeout, placeMonitor: roomBelief.monitor(placeVote: placeVote.placeVote, exitTimeout: exitTimeout)),
            explainsPlaceChanges: why)
        if monitor.regions.isEmpty {
            Terminal.error("note: the venue's beacons have no iBeacon UUID, so there are no regions to watch; only places.")
        }
        var pipeline = ScanPipeline(setup: algorithm.setup(venue: venueValue, training: training), places: places, monitor: monitor)

        var out = TextOutput(live: reader.isLive)
        // Live, time also passes between scans (exits fall due on time); at the end of the input
        // it runs on until every pending exit has fallen due.
        var timeline = ScanTimeline(source: reader)
        let explanations = PlaceChangeText(names: BeaconNames(venue: venueValue))
        try await timeline.run(&pipeline) { events in
            let printed = events.filter { all || Self.isChange($0.event) }
            for (index, item) in printed.enumerated() {
                let device = item.device ?? ""
                if json {
                    out.line(Self.jsonLine(item.event, device: device, why: item.explanation.map(explanations.json)))
                    continue
                }
                out.line(Self.textLine(item.event, device: device))
                // One line a change, under its last event (an exit and an enter share it).
                if let explanation = item.explanation,
                   index + 1 == printed.count || printed[index + 1].explanation != explanation
                    || printed[index + 1].device != item.device {
                    out.line(explanations.line(explanation))
                }
            }
        }
        out.flush()
        reader.recordingReader?.warnAboutSkippedLines()
        if let summary = reader.summary { Terminal.error(summary) }
        try reader.recordingReader?.requireScans(toDo: "watch")
    }

    /// Whether an event is an enter or an exit (what is printed without --all).
    static func isChange(_ event: MonitoringEvent) -> Bool {
        switch event.kind {
        case .enterRegion, .exitRegion, .enterLocation, .exitLocation: true
        case .advertisements, .currentLocation: false
        }
    }

    /// `1700000012 visitor enterLocation hall3 (region E2C56DB5-…)`
    static func textLine(_ event: MonitoringEvent, device: String) -> String {
        let what: String
        switch event.kind {
        case .advertisements(let packets): what = "\(packets.count.counted("packet"))"
        case .enterRegion(let id), .exitRegion(let id): what = id
        case .enterLocation(let region, let place), .exitLocation(let region, let place), .currentLocation(let region, let place):
            what = place + (region.map { " (region \($0))" } ?? "")
        }
        return "\(event.time.formatted(3)) \(device.isEmpty ? "-" : device) \(event.topic) \(what)"
    }

    /// `{"t", "device", "topic", "data"}`, and `"why"` when given.
    static func jsonLine(_ event: MonitoringEvent, device: String, why: JSONValue? = nil) -> String {
        var members: [(key: String, value: JSONValue)] = [("t", .number(event.time))]
        if !device.isEmpty { members.append(("device", .string(device))) }
        members.append(("topic", .string(event.topic)))
        members.append(("data", event.payload))
        if let why { members.append(("why", why)) }
        return JSONWriter().string(from: .object(members))
    }
}
