import Foundation

/// One device's monitoring event: what ``MonitorPipeline`` gives out.
public struct DeviceEvent: Hashable, Sendable {
    /// The device (`nil` when the scans name none).
    public var device: String?
    /// The event.
    public var event: MonitoringEvent

    /// Creates a device's event.
    public init(device: String?, event: MonitoringEvent) {
        self.device = device
        self.event = event
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
    /// The regions every hub watches: the proximity UUIDs, each under a reference id.
    public let regions: [BeaconRegion]
    private let venue: Venue?
    private var hubs = DeviceSlots<EventHub>()
    /// The latest finite scan time.
    private var clock = -Double.infinity

    /// A stage whose hubs track `regions` and resolve the venue's beacon ids to their iBeacon
    /// identities; by default every proximity UUID of the venue's beacons is a region named by
    /// the UUID (``regions(of:)``).
    public init(venue: Venue?, configuration: EventHub.Configuration = EventHub.Configuration(), regions: [BeaconRegion]? = nil) {
        self.venue = venue
        self.configuration = configuration
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
    /// events, then the place events, all the scan's device's.
    public mutating func process(_ scan: Scan, estimate: PlaceEstimate?) async -> [DeviceEvent] {
        let hub = await hub(for: scan.device)
        if scan.time.isFinite { clock = max(clock, scan.time) }
        var events = await hub.process(scan)
        if let estimate { events += await hub.process(estimate, at: scan.time) }
        return events.map { DeviceEvent(device: scan.device, event: $0) }
    }

    /// Lets time run on to `time` without a scan (a live source's silence): each device's
    /// advertisement batch and exits that fell due by then, device by device in the order they
    /// came.
    public mutating func advance(to time: Double) async -> [DeviceEvent] {
        guard time.isFinite else { return [] }
        var events: [DeviceEvent] = []
        for slot in hubs.indices {
            let hub = hubs[slot], device = hubs.device(of: slot)
            events += await hub.advance(to: time).map { DeviceEvent(device: device, event: $0) }
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
            var deviceEvents = end.isFinite ? await hub.advance(to: end) : []
            deviceEvents += await hub.flush()
            events += deviceEvents.map { DeviceEvent(device: device, event: $0) }
        }
        return events
    }
}
