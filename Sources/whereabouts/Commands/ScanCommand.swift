import ArgumentParser
import Foundation
import Whereabouts
import WhereaboutsBluetooth

/// `whereabouts scan`
struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Show the beacons heard, live or from a capture, as a table.",
        discussion: """
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
        """
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
        Terminal.error("\(table.scans) scans, \(table.readings) readings, \(table.rows.count) beacon\(table.rows.count == 1 ? "" : "s").")
    }
}

/// The beacons heard so far, filtered and ranged: what `scan` shows.
struct BeaconTable {
    struct Row {
        var name: String
        var count = 0
        var rssi = 0.0
        var filtered: Double?
        var txPower: Double
        var range: RangeEstimate?
        var lastSeen = 0.0
        var proximity: Proximity { Proximity(range) }
    }

    private let venue: Venue?
    private let directory: BeaconDirectory?
    private var filters = RSSIFilterBank<BeaconReference, KalmanRSSIFilter>(prototype: KalmanRSSIFilter(), timeout: 30)
    private var byBeacon: [BeaconReference: Row] = [:]
    private(set) var scans = 0
    private(set) var readings = 0
    private var latest = -Double.infinity

    init(venue: Venue?) {
        self.venue = venue
        directory = venue.map(BeaconDirectory.init)
    }

    mutating func add(_ scan: Scan) {
        scans += 1
        latest = max(latest, scan.time)
        for reading in scan.readings {
            readings += 1
            var row = byBeacon[reading.beacon] ?? Row(name: name(of: reading.beacon), txPower: -59)
            let index = directory?.index(for: reading.beacon)
            let beacon = index.flatMap { venue?.beacons[$0] }
            row.txPower = reading.txPower ?? beacon?.txPower ?? venue?.defaults.txPower ?? -59
            let exponent = beacon?.pathLossExponent ?? venue?.defaults.pathLossExponent ?? LogDistancePathLossModel.defaultExponent
            row.count += 1
            row.rssi = reading.rssi
            row.lastSeen = scan.time
            row.filtered = filters.add(rssi: reading.rssi, for: reading.beacon, at: scan.time)
            let model = LogDistancePathLossModel(exponent: exponent) ?? LogDistancePathLossModel()
            row.range = row.filtered.flatMap { model.range(rssi: $0, txPower: row.txPower, rssiStandardDeviation: 3) }
            byBeacon[reading.beacon] = row
        }
    }

    private func name(of beacon: BeaconReference) -> String {
        if let index = directory?.index(for: beacon), let id = venue?.beacons[index].id { return id }
        switch beacon {
        case .id(let id): return id
        case .iBeacon(let identity): return identity.description
        case .eddystone(let identity): return identity.description
        }
    }

    /// The rows, closest first, then by filtered RSSI.
    var rows: [Row] {
        byBeacon.values.sorted {
            ($0.proximity, -($0.filtered ?? -200), $0.name) < ($1.proximity, -($1.filtered ?? -200), $1.name)
        }
    }

    func render() -> String {
        let header = ["beacon", "heard", "rssi", "filtered", "distance (m)", "proximity", "last seen (s ago)"]
        let lines = rows.map { row in
            [row.name, String(row.count), row.rssi.formatted(0), row.filtered.map { $0.formatted(1) } ?? "-",
             row.range.map { "\($0.distance.formatted(2)) ± \($0.standardDeviation.formatted(2))" } ?? "-",
             row.proximity.rawValue, (latest - row.lastSeen).formatted(1)]
        }
        let widths = header.indices.map { column in ([header] + lines).map { $0[column].count }.max() ?? 0 }
        func format(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                index == 0 ? cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
                           : String(repeating: " ", count: widths[index] - cell.count) + cell
            }.joined(separator: "  ")
        }
        return ([format(header)] + lines.map(format)).joined(separator: "\n") + "\n"
    }
}
