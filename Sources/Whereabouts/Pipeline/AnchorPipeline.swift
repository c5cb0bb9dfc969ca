/// What an ``AnchorPipeline`` gives out: an anchor fired for a device, and the device's state
/// after applying it.
public struct AnchorEvent: Hashable, Sendable {
    /// The device (`nil` when the scans name none).
    public var device: String?
    /// What the anchor set.
    public var fix: AnchorFix
    /// The device's location, heading and floor afterwards.
    public var state: AnchoredState

    /// Creates an event.
    public init(device: String?, fix: AnchorFix, state: AnchoredState) {
        self.device = device
        self.fix = fix
        self.state = state
    }
}

/// NaviBeacon's behaviour over a stream of scans, per device: ranging rounds (``BeaconRanger``)
/// → anchor triggers (``AnchorTriggers``: fire at immediate, re-arm after near rounds) → the
/// device's ``AnchoredState``. What `whereabouts anchors` runs.
///
/// ```swift
/// var anchors = AnchorPipeline(anchors: venue.beacons.map { AnchorBeacon(venueBeacon: $0, in: venue) }, venue: venue)
/// for scan in scans {
///     for event in anchors.process(scan) { print(event.device ?? "-", event.fix.anchor, event.state.floor ?? 0) }
/// }
/// for event in anchors.finish() { print(event.fix.anchor) }
/// ```
public struct AnchorPipeline: Sendable {
    private struct Device: Sendable {
        var ranger: BeaconRanger
        var triggers: AnchorTriggers
        var state = AnchoredState()
    }

    /// The anchors every device reacts to.
    public let anchors: [AnchorBeacon]
    private let start: Device
    private var devices = DeviceSlots<Device>()

    /// A stage whose devices react to `anchors`; `venue` (optional) names the beacons' identities
    /// and calibrations; a round lasts `rangingInterval` seconds of scans; an anchor re-arms
    /// after `rearmRounds` near rounds.
    public init(anchors: [AnchorBeacon], venue: Venue? = nil, rangingInterval: Double = 1, rearmRounds: Int = 5) {
        self.anchors = anchors
        var triggers = AnchorTriggers(rearmRounds: rearmRounds)
        for anchor in anchors { triggers.add(anchor) }
        start = Device(ranger: BeaconRanger(venue: venue, interval: rangingInterval), triggers: triggers)
    }

    /// Devices seen so far.
    public var deviceCount: Int { devices.count }

    /// A device's state, if the device was seen.
    public func state(of device: String?) -> AnchoredState? {
        devices.existingSlot(device: device).map { devices[$0].state }
    }

    /// Takes in one scan; returns what the rounds it closed (for its device) fired.
    public mutating func process(_ scan: Scan) -> [AnchorEvent] {
        let start = start
        let slot = devices.slot(device: scan.device, track: nil) { start }
        return devices.update(slot) { device in
            device.ranger.add(scan).flatMap { Self.react(to: $0, device: &device, name: scan.device) }
        }
    }

    /// The end of the input: every device's open round; what it fired, device by device.
    public mutating func finish() -> [AnchorEvent] {
        var events: [AnchorEvent] = []
        for slot in devices.indices {
            let name = devices.device(of: slot)
            events += devices.update(slot) { device in
                device.ranger.finish().map { Self.react(to: $0, device: &device, name: name) } ?? []
            }
        }
        return events
    }

    private static func react(to round: [RangedBeacon], device: inout Device, name: String?) -> [AnchorEvent] {
        device.triggers.process(round: round).map { fix in
            device.state.apply(fix)
            return AnchorEvent(device: name, fix: fix, state: device.state)
        }
    }
}
