import Foundation

/// One device's events in one place: Bluenet Localization's event bus, fed with scans and place
/// estimates, timed by the scans' clock.
///
/// - Scans of watched iBeacon regions give `iBeaconAdvertisement` batches (about one a second of
///   scan time; readings whose RSSI is not a measurement are dropped), each beacon once in a
///   batch at the mean RSSI of its readings in that second, as CoreLocation ranges a beacon once a
///   second whatever the advertisements heard; and `enterRegion` /
///   `exitRegion` (a region is left after ``Configuration/regionExitTimeout`` seconds without a
///   sighting, see `RegionMonitor`).
/// - Place estimates (from fix containment or a room classifier) go through a ``PlaceMonitor``
///   and give `exitLocation`, `enterLocation` (in that order) and `currentLocation`, carrying the
///   reference id of the region the device was last seen in.
///
/// Location events flow only while indoor localization is on (``startIndoorLocalization()``,
/// ``stopIndoorLocalization()``). A room classifier given to ``insertClassifier(_:)`` makes the
/// hub classify each advertisement batch itself, as Bluenet did once a second; without one, the
/// caller feeds the estimates of a classifier or a positioning engine of its own.
///
/// Swift code reads the typed ``events()`` stream or ``subscribe(_:)``; code ported from Bluenet
/// subscribes to topic names with ``on(_:_:)``, whose returned closure unsubscribes. Both
/// subscriptions are synchronous calls and deliver on the hub, in order. Every input method also
/// returns the events it caused.
///
/// ```swift
/// let hub = EventHub(venue: venue)
/// await hub.watch(uuid: uuid, referenceId: "campus")
/// let unsubscribe = hub.on("enterRegion") { data in print("entered", data) }
/// await hub.process(scan)
/// await hub.process(containment.estimate(for: fix), at: scan.time)
/// unsubscribe()
/// ```
public actor EventHub {
    /// The hub's timing and hysteresis settings.
    public struct Configuration: Hashable, Sendable {
        /// Seconds without a sighting after which a region is left; default 30.
        public var regionExitTimeout: Double
        /// Seconds of scan time an advertisement batch covers; default 1.
        public var advertisementInterval: Double
        /// The place monitor's hysteresis.
        public var placeMonitor: PlaceMonitor.Configuration
        /// Whether indoor localization (the location events) is on when the hub starts; default
        /// `true`, so that a hub fed place estimates reports them. Bluenet's default was off
        /// (see ``EventHub/startIndoorLocalization()``).
        public var startsIndoorLocalization: Bool

        /// Creates settings.
        public init(regionExitTimeout: Double = 30, advertisementInterval: Double = 1,
                    placeMonitor: PlaceMonitor.Configuration = PlaceMonitor.Configuration(),
                    startsIndoorLocalization: Bool = true) {
            self.regionExitTimeout = regionExitTimeout
            self.advertisementInterval = advertisementInterval
            self.placeMonitor = placeMonitor
            self.startsIndoorLocalization = startsIndoorLocalization
        }
    }

    /// The settings.
    public nonisolated let configuration: Configuration
    private var regions: RegionMonitor
    private var places: PlaceMonitor
    private let identities: [String: IBeaconIdentity]
    private var paused = false
    private var lastRegion: String?
    /// The batch being gathered: one packet per beacon, in the order first heard, its RSSI the
    /// mean of the readings so far (`pendingCounts` of them).
    private var pending: [BeaconPacket] = []
    private var pendingCounts: [Int] = []
    private var pendingIndex: [IBeaconIdentity: Int] = [:]
    private var batchStart: Double?
    private var localizing: Bool
    /// The latest finite time the hub was given.
    private var clock = -Double.infinity
    private var classifier: (any PlaceClassifier)?
    /// The callbacks of ``on(_:_:)`` and ``subscribe(_:)``, in the order subscribed.
    nonisolated let subscriptions = Subscriptions()
    private var listeners = Broadcast<MonitoringEvent>()
    /// A rough location of the device: the venue's origin, when the venue has one (Bluenet's
    /// `requestLocation`, which answered within about 3 km).
    public nonisolated let roughLocation: GeoCoordinate?

    /// Creates a hub watching nothing. With a venue, readings that name beacons by venue id are
    /// resolved to the beacons' iBeacon identities.
    public init(configuration: Configuration = Configuration(), venue: Venue? = nil) {
        self.configuration = configuration
        regions = RegionMonitor(exitTimeout: configuration.regionExitTimeout)
        places = PlaceMonitor(configuration: configuration.placeMonitor)
        var identities: [String: IBeaconIdentity] = [:]
        for beacon in venue?.beacons ?? [] {
            if let identity = beacon.iBeacon { identities[beacon.id] = identities[beacon.id] ?? identity }
        }
        self.identities = identities
        localizing = configuration.startsIndoorLocalization
        roughLocation = venue?.origin?.coordinate
    }

    // MARK: Watching regions

    /// Starts watching every beacon of a UUID under a reference id (Bluenet's `trackIBeacon`);
    /// watching the same UUID again replaces its reference id.
    public func watch(uuid: UUID, referenceId: String) {
        regions.watch(BeaconRegion(uuid: uuid, referenceId: referenceId))
    }

    /// Starts watching a region, narrowed to a major (and minor) if it says so.
    public func watch(_ region: BeaconRegion) {
        regions.watch(region)
    }

    /// Stops watching the regions of a UUID, silently (Bluenet's `stopTrackingIBeacon`).
    public func stopWatching(uuid: UUID) {
        regions.stopWatching(uuid: uuid)
        let kept = pending.indices.filter { pending[$0].identity.uuid != uuid }
        pending = kept.map { pending[$0] }
        pendingCounts = kept.map { pendingCounts[$0] }
        pendingIndex = Dictionary(uniqueKeysWithValues: pending.enumerated().map { ($1.identity, $0) })
        if let lastRegion, !regions.activeRegions.contains(where: { $0.referenceId == lastRegion }) { self.lastRegion = nil }
    }

    /// Stops watching every region, silently (Bluenet's `clearTrackedBeacons`).
    public func stopWatchingAll() {
        regions.removeAll()
        clearBatch()
        lastRegion = nil
    }

    /// The regions watched.
    public var watchedRegions: [BeaconRegion] { regions.regions }

    /// The regions currently entered.
    public var activeRegions: [BeaconRegion] { regions.activeRegions }

    /// The place the device is in, as the place monitor holds it.
    public var currentPlace: String? { places.currentPlace }

    /// The place monitor's latest change of place and the rule that made it
    /// (``PlaceMonitor/lastChange``); `nil` before the first.
    public var lastPlaceChange: PlaceMonitor.Change? { places.lastChange }

    /// Whether input is ignored.
    public var isPaused: Bool { paused }

    /// Ignores every input until ``resume()`` (Bluenet's `pauseTracking`).
    public func pause() {
        paused = true
    }

    /// Takes input again; regions and places are entered afresh, so their enter events fire
    /// again. Calling it while not paused does nothing (no duplicate events).
    public func resume() {
        guard paused else { return }
        paused = false
        regions.clearActive()
        places.reset()
        clearBatch()
        lastRegion = nil
    }

    /// Forgets which regions are entered, so that the next sighting fires a fresh `enterRegion`
    /// (Bluenet's `forceClearActiveRegion`).
    public func forceClearActiveRegion() {
        regions.clearActive()
        lastRegion = nil
    }

    // MARK: Indoor localization

    /// Whether location events flow.
    public var isIndoorLocalizationRunning: Bool { localizing }

    /// The room classifier the hub runs on its advertisement batches, if one was inserted.
    public var insertedClassifier: (any PlaceClassifier)? { classifier }

    /// Turns location events on (Bluenet's `startIndoorLocalization`): place estimates, and the
    /// inserted classifier's answers, give `enterLocation`, `exitLocation` and `currentLocation`.
    public func startIndoorLocalization() {
        localizing = true
    }

    /// Turns location events off (Bluenet's `stopIndoorLocalization`): estimates are ignored and
    /// the place is forgotten, so the next start enters it afresh.
    public func stopIndoorLocalization() {
        localizing = false
        places.reset()
    }

    /// Loads a room classifier (Bluenet's `insertClassifier`): while indoor localization is on,
    /// each advertisement batch (about a second of scans) is classified and its answer goes
    /// through the place monitor. `nil` removes it.
    public func insertClassifier(_ classifier: (any PlaceClassifier)?) {
        self.classifier = classifier
    }

    // MARK: Input

    /// Takes in one scan: a due advertisement batch, region exits that fell due, then enters.
    @discardableResult
    public func process(_ scan: Scan) -> [MonitoringEvent] {
        guard !paused else { return [] }
        if scan.time.isFinite { clock = max(clock, scan.time) }
        var events = flushIfDue(at: scan.time)
        var heard: [IBeaconIdentity] = []
        var packets: [BeaconPacket] = []
        for reading in scan.readings where reading.isValid {
            guard let identity = identity(of: reading.beacon),
                  let region = regions.regions.first(where: { $0.contains(identity) }) else { continue }
            heard.append(identity)
            packets.append(BeaconPacket(identity: identity, rssi: reading.rssi, referenceId: region.referenceId))
        }
        events += regionEvents(regions.observe(heard, at: scan.time))
        if let latest = packets.last { lastRegion = latest.referenceId }
        if !packets.isEmpty {
            if batchStart == nil { batchStart = scan.time }
            for packet in packets { gather(packet) }
        }
        emit(events)
        return events
    }

    /// Takes in one scan's place estimate: `exitLocation` before `enterLocation` on a change,
    /// then `currentLocation` while in a place.
    @discardableResult
    public func process(_ estimate: PlaceEstimate, at time: Double) -> [MonitoringEvent] {
        guard !paused, localizing else { return [] }
        let events = placeEvents(places.observe(estimate, at: time))
        emit(events)
        return events
    }

    /// Moves the clock to `time` without a scan: a due advertisement batch, then the place and
    /// region exits that fell due, by the time they fell due (the place first on a tie).
    @discardableResult
    public func advance(to time: Double) -> [MonitoringEvent] {
        guard !paused else { return [] }
        if time.isFinite { clock = max(clock, time) }
        var events = flushIfDue(at: time)
        // The place is left before the region when both fall due together (and the place's exit
        // still names the region).
        let placeExits = placeEvents(places.advance(to: time))
        let regionExits = regionEvents(regions.advance(to: time))
        var merged = placeExits
        for exit in regionExits {
            let index = merged.firstIndex { $0.time > exit.time } ?? merged.endIndex
            merged.insert(exit, at: index)
        }
        events += merged
        emit(events)
        return events
    }

    /// When something falls due without another scan — the advertisement batch being gathered,
    /// the place's exit, a region's exit — or `nil` when nothing is pending (or the hub is
    /// paused). A live source calls ``advance(to:)`` then.
    public func nextDeadline() -> Double? {
        guard !paused else { return nil }
        var deadline = batchStart.map { $0 + configuration.advertisementInterval }
        for time in [places.nextExitTime, regions.nextExitTime] {
            if let time { deadline = Swift.min(deadline ?? time, time) }
        }
        return deadline
    }

    /// The end of the input: lets time run on past the latest scan until every pending exit has
    /// fallen due (the longer of the region and place exit timeouts), then flushes the
    /// advertisement batch still being gathered.
    @discardableResult
    public func finish() -> [MonitoringEvent] {
        var events: [MonitoringEvent] = []
        if clock.isFinite {
            events += advance(to: clock + max(configuration.regionExitTimeout, configuration.placeMonitor.exitTimeout))
        }
        return events + flush()
    }

    /// Emits the advertisement batch still being gathered, if any (at the end of a replay).
    @discardableResult
    public func flush() -> [MonitoringEvent] {
        guard let batchStart, !pending.isEmpty else { return [] }
        let events = batchEvents(pending, at: batchStart)
        clearBatch()
        emit(events)
        return events
    }

    // MARK: Output

    /// A stream of every event from now on; it ends when the hub is gone or the listener stops.
    public func events() -> AsyncStream<MonitoringEvent> {
        listeners.subscribe { [weak self] id in
            Task { await self?.removeListener(id) }
        }
    }

    // MARK: Internals

    private func identity(of reference: BeaconReference) -> IBeaconIdentity? {
        switch reference {
        case .iBeacon(let identity): identity
        case .id(let id): identities[id]
        case .eddystone: nil
        }
    }

    private func flushIfDue(at time: Double) -> [MonitoringEvent] {
        guard let batchStart, time >= batchStart + configuration.advertisementInterval else { return [] }
        guard !pending.isEmpty else {
            clearBatch()
            return []
        }
        let events = batchEvents(pending, at: batchStart)
        clearBatch()
        return events
    }

    /// Adds a packet to the batch: a beacon already in it keeps its place, its RSSI the running
    /// mean of its readings.
    private func gather(_ packet: BeaconPacket) {
        guard let index = pendingIndex[packet.identity] else {
            pendingIndex[packet.identity] = pending.count
            pending.append(packet)
            pendingCounts.append(1)
            return
        }
        pendingCounts[index] += 1
        pending[index].rssi += (packet.rssi - pending[index].rssi) / Double(pendingCounts[index])
    }

    private func clearBatch() {
        pending.removeAll(keepingCapacity: true)
        pendingCounts.removeAll(keepingCapacity: true)
        pendingIndex.removeAll(keepingCapacity: true)
        batchStart = nil
    }

    /// An advertisement batch's event, then, with a classifier loaded and indoor localization on,
    /// the place events of its classification (an answerless batch gives none).
    private func batchEvents(_ packets: [BeaconPacket], at time: Double) -> [MonitoringEvent] {
        var events = [MonitoringEvent(time: time, kind: .advertisements(packets))]
        guard localizing, let classifier else { return events }
        let scan = Scan(time: time, readings: packets.map { Reading(beacon: .iBeacon($0.identity), rssi: $0.rssi) })
        guard let result = classifier.classify(scan) else { return events }
        events += placeEvents(places.observe(PlaceEstimate(place: result.place, probability: result.probability), at: time))
        return events
    }

    private func regionEvents(_ events: [RegionEvent]) -> [MonitoringEvent] {
        events.map { event in
            switch event.kind {
            case .enter:
                lastRegion = event.region.referenceId
                return MonitoringEvent(time: event.time, kind: .enterRegion(referenceId: event.region.referenceId))
            case .exit:
                if lastRegion == event.region.referenceId,
                   !regions.activeRegions.contains(where: { $0.referenceId == event.region.referenceId }) {
                    lastRegion = nil
                }
                return MonitoringEvent(time: event.time, kind: .exitRegion(referenceId: event.region.referenceId))
            }
        }
    }

    private func placeEvents(_ events: [PlaceEvent]) -> [MonitoringEvent] {
        events.map { event in
            switch event.kind {
            case .enter: MonitoringEvent(time: event.time, kind: .enterLocation(region: lastRegion, location: event.place))
            case .exit: MonitoringEvent(time: event.time, kind: .exitLocation(region: lastRegion, location: event.place))
            case .current: MonitoringEvent(time: event.time, kind: .currentLocation(region: lastRegion, location: event.place))
            }
        }
    }

    private func emit(_ events: [MonitoringEvent]) {
        guard !events.isEmpty else { return }
        for event in events {
            listeners.yield(event)
            subscriptions.deliver(event)
        }
    }

    private func removeListener(_ id: Broadcast<MonitoringEvent>.SubscriberID) {
        listeners.remove(id)
    }

    deinit {
        listeners.finishAll()
    }
}
