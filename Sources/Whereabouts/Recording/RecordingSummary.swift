/// What a recording holds, and what is wrong with it against a venue: the figures
/// `whereabouts validate` prints.
///
/// Feed it scans in file order with ``add(_:line:)``; it keeps counts and a bounded list of
/// problems, so it runs in constant memory on a recording of any size.
///
/// ```swift
/// var summary = RecordingSummary(venue: venue)
/// while let scan = try reader.next() { summary.add(scan, line: reader.lineNumber) }
/// print(summary.problems)
/// ```
public struct RecordingSummary: Sendable {
    /// The venue the recording is checked against, if any.
    public let venue: Venue?
    private let directory: BeaconDirectory?
    private let floorLevels: Set<Int>
    private let placeIDs: Set<String>
    private let receiverIDs: Set<String>

    /// Scans seen.
    public private(set) var scans = 0
    /// Readings seen.
    public private(set) var readings = 0
    /// Scans that heard nothing.
    public private(set) var emptyScans = 0
    /// Scans with a ground-truth position.
    public private(set) var scansWithPosition = 0
    /// Scans with a ground-truth place.
    public private(set) var scansWithPlace = 0
    /// Earliest and latest time.
    public private(set) var timeRange: ClosedRange<Double>?
    /// Readings per device name (`nil` key: scans without a device).
    public private(set) var scansPerDevice: [String?: Int] = [:]
    /// Distinct tracks.
    public private(set) var tracks: Set<String> = []
    /// Readings whose beacon the venue does not know, by how the reading named it.
    public private(set) var unknownBeacons: [BeaconReference: Int] = [:]
    /// Scans from one of the venue's receivers (their readings are tags, any tag).
    public private(set) var receiverReports = 0
    /// Scans whose device the venue does not know, where it lists receivers and no beacons (so
    /// that every scan is a receiver's report), by device (`""`: scans without one).
    public private(set) var unknownReceivers: [String: Int] = [:]
    /// Problems found, with their line, up to ``problemLimit``.
    public private(set) var problems: [FormatError] = []
    /// Problems found in all, also those past ``problemLimit``.
    public private(set) var problemCount = 0
    /// How many problems ``problems`` keeps.
    public var problemLimit = 20

    private var clocks = TrackClocks()

    /// Creates an empty summary; with a venue, readings, floors and places are checked against it.
    public init(venue: Venue? = nil) {
        self.venue = venue
        directory = venue.map(BeaconDirectory.init)
        floorLevels = Set(venue?.floors.map(\.level) ?? [])
        placeIDs = Set(venue?.places.map(\.id) ?? [])
        receiverIDs = Set(venue?.receivers.map(\.id) ?? [])
    }

    /// Adds the next scan of the file; `line` locates problems.
    public mutating func add(_ scan: Scan, line: Int? = nil) {
        scans += 1
        readings += scan.readings.count
        if scan.readings.isEmpty { emptyScans += 1 }
        scansPerDevice[scan.device, default: 0] += 1
        if let track = scan.track { tracks.insert(track) }
        timeRange = timeRange.map { min($0.lowerBound, scan.time)...max($0.upperBound, scan.time) } ?? scan.time...scan.time
        if let problem = clocks.admit(scan, line: line) { report(problem) }
        if let truth = scan.truth {
            if truth.planarPoint != nil { scansWithPosition += 1 }
            if truth.place != nil { scansWithPlace += 1 }
        }
        guard let venue, let directory else { return }
        if let device = scan.device, receiverIDs.contains(device) {
            // A receiver's report (FORMATS.md §8): its readings are the tags it heard.
            receiverReports += 1
        } else if !receiverIDs.isEmpty, venue.beacons.isEmpty {
            let device = scan.device ?? ""
            if unknownReceivers[device] == nil {
                report(FormatError(line: line, key: "device", message: scan.device.map { "the venue has no receiver \"\($0)\"" }
                    ?? "a receiver's report names its receiver as \"device\""))
            }
            unknownReceivers[device, default: 0] += 1
        } else {
            for (index, reading) in scan.readings.enumerated() where directory.index(for: reading.beacon) == nil {
                if unknownBeacons[reading.beacon] == nil {
                    report(FormatError(line: line, key: "readings[\(index)]", message: "the venue has no beacon \(describe(reading.beacon))"))
                }
                unknownBeacons[reading.beacon, default: 0] += 1
            }
        }
        if let floor = scan.truth?.floor, venue.floors.isEmpty ? floor != 0 : !floorLevels.contains(floor) {
            report(FormatError(line: line, key: "truth.floor", message: "floor \(floor) is not defined in the venue"))
        }
        if let place = scan.truth?.place, !placeIDs.isEmpty, !placeIDs.contains(place) {
            report(FormatError(line: line, key: "truth.place", message: "the venue has no place \"\(place)\""))
        }
    }

    private mutating func report(_ problem: FormatError) {
        problemCount += 1
        if problems.count < problemLimit { problems.append(problem) }
    }

    private func describe(_ reference: BeaconReference) -> String {
        switch reference {
        case .id(let id): "\"\(id)\""
        case .iBeacon(let identity): identity.description
        case .eddystone(let identity): identity.description
        }
    }
}
