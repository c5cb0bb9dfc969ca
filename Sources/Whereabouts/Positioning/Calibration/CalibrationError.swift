/// Why a calibration could not be made.
public enum CalibrationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No reading could be used: the counts say what was skipped and why.
    case noUsableSamples(Calibration.Counts)

    /// A sentence naming the cause.
    public var description: String {
        switch self {
        case .noUsableSamples(let counts):
            var reasons: [String] = []
            if counts.scans == 0 { return "no usable samples: the recording has no scans" }
            if counts.scansWithoutTruth > 0 {
                reasons.append("\(counts.scansWithoutTruth) of \(counts.scans) scans have no truth x/y")
            }
            if counts.readings == 0 && counts.scansWithoutTruth < counts.scans {
                reasons.append("the scans with truth heard no beacon")
            }
            if counts.invalidReadings > 0 { reasons.append("\(counts.invalidReadings.counted("reading")) invalid (RSSI ≥ 0)") }
            if counts.unresolvedReadings > 0 {
                reasons.append("\(counts.unresolvedReadings.counted("reading")) naming no beacon of the venue")
            }
            if counts.readingsFromUnplacedBeacons > 0 {
                reasons.append("\(counts.readingsFromUnplacedBeacons.counted("reading")) from beacons without a position")
            }
            if counts.readingsAcrossFloors > 0 {
                reasons.append("\(counts.readingsAcrossFloors.counted("reading")) from beacons on another floor")
            }
            return "no usable samples for calibration: " + reasons.joined(separator: "; ")
        }
    }
}
