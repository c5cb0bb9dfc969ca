import ArgumentParser
import Foundation
import Whereabouts

/// `whereabouts anchors`
struct AnchorsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "anchors",
        abstract: "Set each device's location, heading and floor from the beacons it comes right up to (NaviBeacon's behaviour).",
        discussion: HelpText.fitting("""
        Every beacon of the venue with a position is an anchor. The sightings are grouped into \
        ranging rounds of --round seconds (per device); in each round a beacon's proximity comes from \
        its mean RSSI through the venue's path-loss model (immediate under 0.5 m, near under 3 m). An \
        armed anchor seen at immediate sets the device's location (and floor) to its own and disarms; \
        it re-arms after --rearm rounds at near (far rounds do not count), each anchor with its own \
        counter. A line is printed each time an anchor fires: the time, the device, the anchor, the \
        location (latitude/longitude when the venue has an origin, and x/y) and the floor; at the end, \
        each device's state goes to standard error. --json prints one JSON object a line: \
        {"t", "device", "anchor", "x", "y", "latitude", "longitude", "floor"}.

        A live source (an adapter, standard input or a FIFO, a capture at --pace recorded) also \
        closes rounds on the wall clock, so an anchor fires --round seconds after it was reached \
        even when no further scan comes, and each line is written as it happens.

        Examples:
          whereabouts anchors --venue Examples/venue.json --recording Examples/visit.jsonl
          whereabouts anchors --venue venue.json --adapter hci0 --json
          whereabouts anchors --venue venue.json --btsnoop capture.log --round 2 --rearm 3
        """)
    )

    @OptionGroup var venue: VenueOptions

    @OptionGroup var source: SightingSourceOptions

    @Option(name: .long, help: ArgumentHelp("Seconds of sightings in a ranging round.", valueName: "seconds"))
    var round: Double = 1

    @Option(name: .long, help: ArgumentHelp("Near rounds an anchor needs to re-arm.", valueName: "N"))
    var rearm: Int = 5

    @OptionGroup var recordings: RecordingOptions

    @Flag(name: .long, help: "Print one JSON object a line.")
    var json = false

    func validate() throws {
        guard round >= 0, round.isFinite, round <= 3_600 else { throw ValidationError("--round must be 0 to 3600 seconds.") }
        guard (1...1_000).contains(rearm) else { throw ValidationError("--rearm must be 1 to 1000 rounds.") }
    }

    func run() async throws {
        let venueValue = try venue.read()
        let anchors = venueValue.beacons.filter { $0.x != nil && $0.y != nil }.map { AnchorBeacon(venueBeacon: $0, in: venueValue) }
        guard !anchors.isEmpty else { throw CommandFailure("\(venue.path): no beacon has a position, so there is no anchor.") }
        let reader = try source.open(lenient: recordings.lenient)
        var stage = DevicesInOrder(pipeline: AnchorPipeline(anchors: anchors, venue: venueValue, rangingInterval: round, rearmRounds: rearm))
        var out = TextOutput(live: reader.isLive)
        // Live, rounds also close on time (a device that falls silent gets its last round).
        var timeline = ScanTimeline(source: reader)
        try await timeline.run(&stage) { events in
            for event in events { out.line(json ? Self.jsonLine(event) : Self.textLine(event)) }
        }
        out.flush()
        reader.recordingReader?.warnAboutSkippedLines()
        if let summary = reader.summary { Terminal.error(summary) }
        try reader.recordingReader?.requireScans(toDo: "anchors")
        for device in stage.devices {
            guard let state = stage.pipeline.state(of: device) else { continue }
            Terminal.error("\(device ?? "-"): " + Self.describe(state))
        }
    }

    /// `at h3-1, floor 0 (41.35512, 2.13201)` or `set by no anchor`.
    static func describe(_ state: AnchoredState) -> String {
        guard let anchor = state.lastAnchor else { return "no anchor came within reach" }
        var text = "last set by \(anchor)"
        if let floor = state.floor { text += ", floor \(floor)" }
        if let coordinate = state.coordinate {
            text += " (\(coordinate.latitude.formatted(6)), \(coordinate.longitude.formatted(6)))"
        } else if let point = state.point {
            text += " (\(point.x.formatted(2)), \(point.y.formatted(2)))"
        }
        return text
    }

    /// `1700000012 visitor h3-1 (-80.00, 10.00) 41.35412 2.13012 floor 0`
    static func textLine(_ event: AnchorEvent) -> String {
        var text = "\(event.fix.time.formatted(3)) \(event.device ?? "-") \(event.fix.anchor)"
        if let point = event.fix.point { text += " (\(point.x.formatted(2)), \(point.y.formatted(2)))" }
        if let coordinate = event.fix.coordinate { text += " \(coordinate.latitude.formatted(6)) \(coordinate.longitude.formatted(6))" }
        if let heading = event.fix.heading { text += " heading \(heading.formatted(0))" }
        if let floor = event.fix.floor { text += " floor \(floor)" }
        return text
    }

    /// `{"t", "device", "anchor", "x", "y", "latitude", "longitude", "heading", "floor"}`
    static func jsonLine(_ event: AnchorEvent) -> String {
        var members: [(key: String, value: JSONValue)] = [("t", .number(event.fix.time))]
        if let device = event.device { members.append(("device", .string(device))) }
        members.append(("anchor", .string(event.fix.anchor)))
        if let point = event.fix.point {
            members.append(("x", .number(point.x.rounded(decimals: 3))))
            members.append(("y", .number(point.y.rounded(decimals: 3))))
        }
        if let coordinate = event.fix.coordinate {
            members.append(("latitude", .number(coordinate.latitude.rounded(decimals: 7))))
            members.append(("longitude", .number(coordinate.longitude.rounded(decimals: 7))))
        }
        if let heading = event.fix.heading { members.append(("heading", .number(heading))) }
        if let floor = event.fix.floor { members.append(("floor", .number(Double(floor)))) }
        return JSONWriter().string(from: .object(members))
    }
}

/// The anchor stage, noting its devices in the order they were first heard (for the summary).
private struct DevicesInOrder: TimedStage {
    var pipeline: AnchorPipeline
    var devices: [String?] = []

    mutating func process(_ scan: Scan) -> [AnchorEvent] {
        if pipeline.state(of: scan.device) == nil { devices.append(scan.device) }
        return pipeline.process(scan)
    }

    mutating func advance(to time: Double) -> [AnchorEvent] { pipeline.advance(to: time) }
    func nextDeadline() -> Double? { pipeline.nextRoundEnd }
    mutating func finish() -> [AnchorEvent] { pipeline.finish() }
}
