/// One scan: the readings a device took at one time (a single packet or a whole ranging second),
/// the line of a recording (FORMATS.md §2).
///
/// ```swift
/// let scan = Scan(time: 1539878121.25, device: "A5",
///                 readings: [Reading(beacon: .id("23"), rssi: -67)],
///                 truth: GroundTruth(x: 29.22, y: 12.91, floor: 0))
/// ```
public struct Scan: Hashable, Sendable {
    /// Seconds on a clock that never goes back for one device and track (since 1970 when known).
    public var time: Double
    /// The device being located, when a recording holds several.
    public var device: String?
    /// The continuous trajectory this scan belongs to, when a recording holds several.
    public var track: String?
    /// What was heard; empty when nothing was (such a scan still counts).
    public var readings: [Reading]
    /// Where the device really was, when known.
    public var truth: GroundTruth?
    /// When the scan reached whoever takes it in, on that one's clock, where it differs from
    /// ``time`` (the listener's own clock): a fixed receiver's report sent over a network
    /// (``ReceiverFusion``). `nil` when the scan was taken where it was heard.
    public var arrival: Double?

    /// Creates a scan.
    public init(time: Double, device: String? = nil, track: String? = nil, readings: [Reading], truth: GroundTruth? = nil) {
        self.time = time
        self.device = device
        self.track = track
        self.readings = readings
        self.truth = truth
    }
}
