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

    /// The anchors every device reacts to, in the order added.
    public var anchors: [AnchorBeacon] { start.triggers.anchors }
    /// Whether sightings are ignored (``pause()``).
    public var isPaused: Bool { start.triggers.isPaused }
    /// A callback that replaces the default behaviour: it gets every sighting of an anchor, and
    /// no anchor fires (NaviBeacon's `onBeaconChanged`). It runs while the stage processes a scan.
    public var onSighting: (@Sendable (RangedBeacon, AnchorBeacon) -> Void)? {
        get { start.triggers.onSighting }
        set {
            start.triggers.onSighting = newValue
            devices.updateAll { $0.triggers.onSighting = newValue }
        }
    }
    private var start: Device
    private var devices = DeviceSlots<Device>()

    /// A stage whose devices react to `anchors`; `venue` (optional) names the beacons' identities
    /// and calibrations; a round lasts `rangingInterval` seconds of scans; an anchor re-arms
    /// after `rearmRounds` near rounds.
    public init(anchors: [AnchorBeacon], venue: Venue? = nil, rangingInterval: Double = 1, rearmRounds: Int = 5) {
        var triggers = AnchorTriggers(rearmRounds: rearmRounds)
        for anchor in anchors { triggers.add(anchor) }
        start = Device(ranger: BeaconRanger(venue: venue, interval: rangingInterval), triggers: triggers)
    }

    /// Devices seen so far.
    public var deviceCount: Int { devices.count }

    /// Whether the anchor `id` would fire on the next immediate sighting of the first device seen
    /// (a phone's scans name one device), or of any device before the first scan.
    public func isArmed(_ id: String) -> Bool {
        let first = devices.indices.first.map { devices[$0].triggers } ?? start.triggers
        return first.isArmed(id)
    }

    /// Adds an anchor while running, armed, for every device (see ``AnchorTriggers/add(_:)``: an
    /// anchor with the same match or id is replaced).
    public mutating func add(_ anchor: AnchorBeacon) {
        start.triggers.add(anchor)
        devices.updateAll { $0.triggers.add(anchor) }
    }

    /// Ignores sightings until ``resume()``: no round is ranged, no anchor fires or re-arms.
    public mutating func pause() {
        start.triggers.pause()
        devices.updateAll { $0.triggers.pause() }
    }

    /// Takes sightings again; every device starts a fresh round.
    public mutating func resume() {
        start.triggers.resume()
        devices.updateAll { device in
            device.triggers.resume()
            _ = device.ranger.finish()
        }
    }

    /// A device's state, if the device was seen.
    public func state(of device: String?) -> AnchoredState? {
        devices.existingSlot(device: device).map { devices[$0].state }
    }

    /// Takes in one scan; returns what the rounds it closed (for its device) fired.
    public mutating func process(_ scan: Scan) -> [AnchorEvent] {
        guard !isPaused else { return [] }
        let start = start
        let slot = devices.slot(device: scan.device, track: nil) { start }
        return devices.update(slot) { device in
            device.ranger.add(scan).flatMap { Self.react(to: $0, device: &device, name: scan.device) }
        }
    }

    /// Lets time run on to `time` without a scan (a live source's silence): every device's rounds
    /// that ended by then (``BeaconRanger/advance(to:)``), and what they fired, device by device.
    public mutating func advance(to time: Double) -> [AnchorEvent] {
        guard !isPaused else { return [] }
        var events: [AnchorEvent] = []
        for slot in devices.indices {
            let name = devices.device(of: slot)
            events += devices.update(slot) { device in
                device.ranger.advance(to: time).flatMap { Self.react(to: $0, device: &device, name: name) }
            }
        }
        return events
    }

    /// When the next device's ranging round ends without another scan, or `nil` when no round is
    /// open.
    public var nextRoundEnd: Double? {
        guard !isPaused else { return nil }
        var deadline: Double?
        for slot in devices.indices {
            if let time = devices[slot].ranger.nextRoundEnd { deadline = Swift.min(deadline ?? time, time) }
        }
        return deadline
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
