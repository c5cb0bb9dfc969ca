import Foundation

/// One device's monitoring event: what ``MonitorPipeline`` gives out.
public struct DeviceEvent: Hashable, Sendable {
    /// The device (`nil` when the scans name none).
    public var device: String?
    /// The event.
    public var event: MonitoringEvent
    /// Why the place changed, for an enterLocation or exitLocation of a
    /// ``MonitorPipeline`` that explains its changes (``MonitorPipeline/explainsPlaceChanges``);
    /// otherwise `nil`.
    public var explanation: PlaceChangeExplanation?

    /// Creates a device's event.
    public init(device: String?, event: MonitoringEvent, explanation: PlaceChangeExplanation? = nil) {
        self.device = device
        self.event = event
        self.explanation = explanation
    }

    /// Whether the event enters or leaves a place.
    var changesPlace: Bool {
        switch event.kind {
        case .enterLocation, .exitLocation: true
        case .advertisements, .enterRegion, .exitRegion, .currentLocation: false
        }
    }
}

/// The monitoring stage of a stream of scans: one ``EventHub`` per device (kept across its
/// tracks, so that a region or place is not entered twice), fed each scan for the regions and
/// its ``PlaceEstimate`` for the places; at the end of the input, time runs on until every
/// pending exit has fallen due, and the advertisement batches still gathering are flushed.
///
/// ```swift
/// var monitor = MonitorPipeline(venue: venue)
/// for scan in scans {
///     for event in await monitor.process(scan, estimate: places.estimate(for: scan, fix: fix)) { print(event) }
/// }
/// for event in await monitor.finish() { print(event) }
/// ```
public struct MonitorPipeline: Sendable {
    /// The hubs' settings.
    public let configuration: EventHub.Configuration
    /// Whether each enterLocation and exitLocation comes with its ``DeviceEvent/explanation``:
    /// the place monitor's rule and the scan behind it. Default `false`.
    public var explainsPlaceChanges: Bool
    /// The regions every hub watches: the proximity UUIDs, each under a reference id.
    public let regions: [BeaconRegion]
    private let venue: Venue?
    private var hubs = DeviceSlots<EventHub>()
    /// The latest finite scan time.
    private var clock = -Double.infinity

    /// A stage whose hubs track `regions` and resolve the venue's beacon ids to their iBeacon
    /// identities; by default every proximity UUID of the venue's beacons is a region named by
    /// the UUID (``regions(of:)``).
    public init(venue: Venue?, configuration: EventHub.Configuration = EventHub.Configuration(), regions: [BeaconRegion]? = nil,
                explainsPlaceChanges: Bool = false) {
        self.venue = venue
        self.configuration = configuration
        self.explainsPlaceChanges = explainsPlaceChanges
        self.regions = regions ?? venue.map(Self.regions(of:)) ?? []
    }

    /// Every proximity UUID of a venue's iBeacons, in the order first listed, as a region named
    /// by the UUID.
    public static func regions(of venue: Venue) -> [BeaconRegion] {
        var uuids: [UUID] = []
        for beacon in venue.beacons {
            if let uuid = beacon.iBeacon?.uuid, !uuids.contains(uuid) { uuids.append(uuid) }
        }
        return uuids.map { BeaconRegion(uuid: $0, referenceId: $0.uuidString) }
    }

    /// Devices seen so far.
    public var deviceCount: Int { hubs.count }

    /// The hub of a device, made when it is first seen (every hub lives as long as the stage).
    public mutating func hub(for device: String?) async -> EventHub {
        if let slot = hubs.existingSlot(device: device) { return hubs[slot] }
        let hub = EventHub(configuration: configuration, venue: venue)
        for region in regions { await hub.watch(region) }
        let slot = hubs.slot(device: device, track: nil) { hub }
        return hubs[slot]
    }

    /// Takes in one scan and its place estimate (if any): the scan's region and advertisement
    /// events, then the place events, all the scan's device's. `fix`, the scan's fix when the
    /// estimate came from one, goes into the explanations (``explainsPlaceChanges``).
    public mutating func process(_ scan: Scan, estimate: PlaceEstimate?, fix: Fix? = nil) async -> [DeviceEvent] {
        let hub = await hub(for: scan.device)
        if scan.time.isFinite { clock = max(clock, scan.time) }
        // An inserted room classifier may change the place on the scan's advertisements.
        var events = await explained(hub.process(scan), device: scan.device, hub: hub, readings: scan.readings)
        if let estimate {
            events += await explained(hub.process(estimate, at: scan.time), device: scan.device, hub: hub,
                                      estimate: estimate, fix: fix, readings: scan.readings)
        }
        return events
    }

    /// `events` as the device's; when the stage explains its changes, the events of the hub's
    /// latest change of place (its exit, its enter, or both: dated as the change) with it and the
    /// scan's evidence. A call of a hub makes one change, but for an inserted classifier's batch
    /// falling due with an exit by timeout; the earlier of the two then goes unexplained.
    private func explained(_ events: [MonitoringEvent], device: String?, hub: EventHub, estimate: PlaceEstimate? = nil,
                           fix: Fix? = nil, readings: [Reading] = []) async -> [DeviceEvent] {
        var deviceEvents = events.map { DeviceEvent(device: device, event: $0) }
        guard explainsPlaceChanges, deviceEvents.contains(where: \.changesPlace),
              let change = await hub.lastPlaceChange else { return deviceEvents }
        let explanation = PlaceChangeExplanation(change: change, estimate: estimate, fix: fix, readings: readings)
        for index in deviceEvents.indices where deviceEvents[index].changesPlace && deviceEvents[index].event.time == change.time {
            deviceEvents[index].explanation = explanation
        }
        return deviceEvents
    }

    /// Lets time run on to `time` without a scan (a live source's silence): each device's
    /// advertisement batch and exits that fell due by then, device by device in the order they
    /// came.
    public mutating func advance(to time: Double) async -> [DeviceEvent] {
        guard time.isFinite else { return [] }
        var events: [DeviceEvent] = []
        for slot in hubs.indices {
            let hub = hubs[slot], device = hubs.device(of: slot)
            events += await explained(hub.advance(to: time), device: device, hub: hub)
        }
        return events
    }

    /// When the next exit or advertisement batch of any device falls due, or `nil` when none is
    /// pending.
    public func nextDeadline() async -> Double? {
        var deadline: Double?
        for slot in hubs.indices {
            if let time = await hubs[slot].nextDeadline() { deadline = Swift.min(deadline ?? time, time) }
        }
        return deadline
    }

    /// The end of the input: lets time run on past the last scan until every pending exit has
    /// fallen due (the longer of the region and place exit timeouts), then flushes the
    /// advertisement batches; each device's events in turn, in the order the devices came.
    public mutating func finish() async -> [DeviceEvent] {
        let end = clock + max(configuration.regionExitTimeout, configuration.placeMonitor.exitTimeout)
        var events: [DeviceEvent] = []
        for slot in hubs.indices {
            let hub = hubs[slot], device = hubs.device(of: slot)
            if end.isFinite { events += await explained(hub.advance(to: end), device: device, hub: hub) }
            events += await hub.flush().map { DeviceEvent(device: device, event: $0) }
        }
        return events
    }
}
