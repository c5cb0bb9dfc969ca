import ArgumentParser
import Foundation
import Whereabouts

/// `whereabouts scan`
struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Show the beacons heard, live or from a capture, as a table.",
        discussion: HelpText.fitting("""
        One row per beacon: its id (the venue's id with --venue, else the advertised identity), \
        how many times it was heard, the last RSSI, the RSSI after a Kalman filter, the distance \
        from a log-distance path-loss model (the beacon's advertised power, else the venue's or \
        -59 dBm at 1 m) and the proximity class (immediate < 0.5 m, near < 3 m, far). On a \
        terminal the table is redrawn every --interval seconds; otherwise it is printed at the \
        end (and every --interval seconds while scanning live). Ctrl-C stops a live scan cleanly.

        Live scanning needs Linux, an adapter that is up, and CAP_NET_RAW/CAP_NET_ADMIN:
          sudo setcap 'cap_net_raw,cap_net_admin+eip' $(which whereabouts)

        Examples:
          whereabouts scan                                   # hci0, passive, every beacon
          whereabouts scan --adapter hci1 --active --uuid E2C56DB5-DFFB-48D2-B060-D0F5A71096E0
          whereabouts scan --btsnoop btsnoop_hci.log         # replay an Android HCI snoop log
          whereabouts scan --btsnoop capture.log --pace fast --venue venue.json
        """)
    )

    @OptionGroup var source: SightingSourceOptions

    @Option(name: .long, help: ArgumentHelp("Name beacons by this venue's ids and use its txPower.", valueName: "venue.json"))
    var venue: String?

    @Option(name: .long, help: ArgumentHelp("Seconds between two redraws of the table.", valueName: "seconds"))
    var interval: Double = 1

    mutating func run() async throws {
        if source.adapter == nil, source.btsnoop == nil, source.recording == nil { source.adapter = "hci0" }
        guard interval > 0 else { throw ValidationError("--interval must be a positive number of seconds.") }
        let venueValue = try venue.map(VenueOptions.read(at:))
        let sightings = try source.open(defaultPace: .recorded)
        var table = BeaconTable(venue: venueValue)
        let terminal = isatty(1) != 0
        if sightings.isLive { Terminal.error("Scanning with \(sightings.name)… press Ctrl-C to stop.") }
        var lastDraw = ContinuousClock.now
        while let scan = try await sightings.next() {
            table.add(scan)
            if (terminal || sightings.isLive), ContinuousClock.now - lastDraw >= .milliseconds(Int64(interval * 1000)) {
                lastDraw = ContinuousClock.now
                FileHandle.standardOutput.write(Data(((terminal ? "\u{1B}[H\u{1B}[2J" : "\n") + table.render()).utf8))
            }
        }
        FileHandle.standardOutput.write(Data(((terminal ? "\u{1B}[H\u{1B}[2J" : "") + table.render()).utf8))
        if let summary = sightings.summary { Terminal.error(summary) }
        Terminal.error("\(table.scans.counted("scan")), \(table.readings.counted("reading")), \(table.rows.count.counted("beacon")).")
    }
}
