import Whereabouts

/// The beacons heard so far, filtered and ranged: what `scan` shows.
struct BeaconTable {
    /// One beacon's row.
    struct Row {
        /// The venue's id for the beacon, else its advertised identity.
        var name: String
        /// How many times it was heard.
        var count = 0
        /// The last RSSI heard, dBm.
        var rssi = 0.0
        /// The RSSI after the Kalman filter, dBm.
        var filtered: Double?
        /// The power at 1 m used for ranging, dBm.
        var txPower: Double
        /// The distance from the filtered RSSI.
        var range: RangeEstimate?
        /// When it was last heard.
        var lastSeen = 0.0
        /// The proximity class of the range.
        var proximity: Proximity { Proximity(range) }
    }

    /// The venue that names the beacons and gives their power, if any.
    private let venue: Venue?
    /// The venue's beacons by identity.
    private let directory: BeaconDirectory?
    /// The beacons' names.
    private let names: BeaconNames
    /// One Kalman filter per beacon.
    private var filters = RSSIFilterBank<BeaconReference, KalmanRSSIFilter>(prototype: KalmanRSSIFilter(), timeout: 30)
    /// The rows so far.
    private var byBeacon: [BeaconReference: Row] = [:]
    /// How many scans were added.
    private(set) var scans = 0
    /// How many readings were added.
    private(set) var readings = 0
    /// The time of the latest scan.
    private var latest = -Double.infinity

    /// An empty table; `venue` names the beacons and gives their power.
    init(venue: Venue?) {
        self.venue = venue
        directory = venue.map(BeaconDirectory.init)
        names = BeaconNames(venue: venue)
    }

    /// Adds the readings of a scan.
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

    /// The venue's id for the beacon, else its advertised identity.
    private func name(of beacon: BeaconReference) -> String {
        names.name(of: beacon)
    }

    /// The rows, closest first, then by filtered RSSI.
    var rows: [Row] {
        byBeacon.values.sorted {
            ($0.proximity, -($0.filtered ?? -200), $0.name) < ($1.proximity, -($1.filtered ?? -200), $1.name)
        }
    }

    /// The table as text, one line a beacon under a header.
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
