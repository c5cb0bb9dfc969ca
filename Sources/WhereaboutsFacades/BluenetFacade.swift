import Foundation
import Whereabouts

/// Bluenet Localization's API — `BluenetLocalization`, `on(topic, callback)`, `trackIBeacon`,
/// the indoor localization switch, `insertClassifier`, `TrainingHelper` and the basic classifier —
/// backed by the engine's `EventHub`, `FingerprintTrainingSession`, `BluenetTrainingData` and
/// `NaiveBayesPlaceClassifier` with Bluenet's options.
///
/// The namespace of the facade: its types are named as Bluenet Localization named them, under
/// `BluenetFacade.`, so that `import WhereaboutsFacades` adds no generic name to an app (declare a
/// `typealias` for the names you use unqualified).
public enum BluenetFacade {
    /// The closure ``BluenetLocalization/on(_:_:)`` returns: calling it unsubscribes.
    public typealias VoidCallback = @Sendable () -> Void

    /// What Bluenet's calls can refuse.
    public enum BluenetError: Error, Hashable, Sendable, CustomStringConvertible {
        /// The UUID string is not a UUID.
        case invalidUUID(String)
        /// Training data is not Bluenet's JSON.
        case invalidTrainingData(String)

        /// What went wrong and what to do.
        public var description: String {
            switch self {
            case .invalidUUID(let text): "\"\(text)\" is not a UUID (expected e.g. 01234567-89AB-CDEF-0123-456789ABCDEF)"
            case .invalidTrainingData(let reason): "the training data is not Bluenet's JSON: \(reason)"
            }
        }
    }

    /// What ``BluenetLocalization/requestLocationPermission()`` did.
    public enum LocationPermission: Hashable, Sendable {
        /// The operating system was asked (on Apple platforms: "when in use" location
        /// authorisation, which beacon ranging needs); the user answers in its dialogue.
        case requested
        /// Nothing needs asking: on Linux, scanning with BlueZ needs no location permission (the
        /// process needs the `CAP_NET_RAW` and `CAP_NET_ADMIN` capabilities, or root, instead).
        case notNeeded
    }

    /// Bluenet Localization: iBeacon regions, their advertisements, and the room the device is in,
    /// as events by topic name — `iBeaconAdvertisement`, `enterRegion`, `exitRegion`,
    /// `enterLocation`, `exitLocation`, `currentLocation` (payloads: `MonitoringEvent`).
    ///
    /// As in Bluenet: indoor localization starts off (location events flow only after
    /// ``startIndoorLocalization()`` and with a classifier inserted); `iBeaconAdvertisement` comes
    /// about once a second with each beacon once, at the mean RSSI of that second, as
    /// CoreLocation's ranging gave it; the room follows the classifier's answer of each second
    /// (`PlaceMonitor.Configuration.firstAnswer`: no hysteresis; pass a configuration with the
    /// library's `PlaceMonitor.Configuration()` for rooms that do not flicker at a wall), and
    /// `currentLocation` is that answer. Pausing or clearing the tracking turns the radio off
    /// where the source can (the BlueZ scanner, `ScanSource.adapter`).
    ///
    /// Scans come from any source — ``startScanning(_:)`` at the source's own pace (live for an
    /// adapter or a pipe), or ``process(_:)`` one at a time — and are timed by their own clock.
    /// The calls that change the hub are `async` (the hub is an actor); ``on(_:_:)`` is synchronous.
    ///
    /// ```swift
    /// let bluenet = BluenetLocalization()
    /// let unsubscribe = bluenet.on("enterRegion") { data in
    ///     if case .string(let referenceId) = data { print("entered", referenceId) }
    /// }
    /// try await bluenet.trackIBeacon(uuid: "01234567-89AB-CDEF-0123-456789ABCDEF", referenceId: "home")
    /// try await bluenet.startScanning(ScanSource.adapter(.init(adapter: "hci0")))   // live
    /// unsubscribe()
    /// ```
    public final class BluenetLocalization: Sendable {
        /// The engine's event hub behind the calls.
        public let hub: EventHub

        /// The device: the radio of the source being scanned, whether tracking wants it on, and
        /// the positions the venue's beacons give.
        private struct Device: Sendable {
            var radio: (any PausableScanning)?
            var isPaused = false
            var isTracking = false
            var fixes: FixPipeline?
            var lastFix: Fix?

            /// Whether the radio should scan: something is tracked and tracking is not paused.
            var wantsRadio: Bool { isTracking && !isPaused }
        }

        private let device: LockedValue<Device>

        /// Creates the library, tracking nothing, indoor localization off, rooms following the
        /// classifier's answer of each second. With a venue, readings that name beacons by venue id
        /// are resolved to their iBeacon identities, and the venue's positioned beacons locate the
        /// device for ``requestLocation()``.
        public init(venue: Venue? = nil,
                    configuration: EventHub.Configuration = EventHub.Configuration(placeMonitor: .firstAnswer,
                                                                                   startsIndoorLocalization: false)) {
            hub = EventHub(configuration: configuration, venue: venue)
            var fixes: FixPipeline?
            if let venue {
                fixes = FixPipeline(setup: LocationEngine.Configuration(venue: venue).makeSetup(), timing: .immediate)
            }
            device = LockedValue(Device(fixes: fixes))
        }

        /// Subscribes to a topic; calling the returned closure unsubscribes.
        public func on(_ topic: String, _ callback: @escaping @Sendable (JSONValue) -> Void) -> VoidCallback {
            hub.on(topic, callback)
        }

        /// Asks for the permission to locate the device (Bluenet's `requestLocationPermission`):
        /// on Apple platforms, "when in use" location authorisation, which beacon ranging needs
        /// (without this call, the CoreLocation source asks when it starts); on Linux nothing
        /// needs asking.
        @discardableResult
        public func requestLocationPermission() async -> LocationPermission {
            #if canImport(CoreLocation) && os(iOS)
            await LocationPermissionRequest.request()
            return .requested
            #else
            return .notNeeded
            #endif
        }

        /// Where the device is (Bluenet's `requestLocation`): the latitude and longitude of the
        /// last position the venue's beacons gave, or `nil` before any, or when the venue has no
        /// beacon positions or no geographic origin.
        public func requestLocation() -> GeoCoordinate? {
            device.value.lastFix?.coordinate
        }

        /// Starts tracking every beacon of a UUID under a reference id; a paused radio scans again
        /// unless tracking is paused.
        public func trackIBeacon(uuid: String, referenceId: String) async throws(BluenetError) {
            guard let parsed = UUID(uuidString: uuid) else { throw .invalidUUID(uuid) }
            await hub.watch(uuid: parsed, referenceId: referenceId)
            updateRadio { $0.isTracking = true }
        }

        /// Stops tracking a UUID (not resumed by ``resumeTracking()``); with nothing left to track,
        /// the radio stops.
        public func stopTrackingIBeacon(_ uuid: String) async throws(BluenetError) {
            guard let parsed = UUID(uuidString: uuid) else { throw .invalidUUID(uuid) }
            await hub.stopWatching(uuid: parsed)
            let tracking = await !hub.watchedRegions.isEmpty
            updateRadio { $0.isTracking = tracking }
        }

        /// Stops tracking every UUID and forgets them; the radio stops ("your app may fall asleep").
        public func clearTrackedBeacons() async {
            await hub.stopWatchingAll()
            updateRadio { $0.isTracking = false }
        }

        /// Ignores every scan until ``resumeTracking()``, and turns the radio off meanwhile where
        /// the source can.
        public func pauseTracking() async {
            await hub.pause()
            updateRadio { $0.isPaused = true }
        }

        /// Tracks again (and scans again); enter events fire again, once.
        public func resumeTracking() async {
            await hub.resume()
            updateRadio { $0.isPaused = false }
        }

        /// Forgets the entered regions, so that the next sighting fires a fresh `enterRegion`.
        public func forceClearActiveRegion() async {
            await hub.forceClearActiveRegion()
        }

        /// Loads a room classifier (see ``BasicClassifier``, or any `PlaceClassifier`).
        public func insertClassifier(_ classifier: any PlaceClassifier) async {
            await hub.insertClassifier(classifier)
        }

        /// Turns location events on.
        public func startIndoorLocalization() async {
            await hub.startIndoorLocalization()
        }

        /// Turns location events off.
        public func stopIndoorLocalization() async {
            await hub.stopIndoorLocalization()
        }

        /// Takes in one scan (ignored while tracking is paused).
        public func process(_ scan: Scan) async {
            guard !(await hub.isPaused) else { return }
            device.withValue { device in
                guard var fixes = device.fixes else { return }
                if let fix = fixes.add(scan).last { device.lastFix = fix }
                device.fixes = fixes
            }
            await hub.process(scan)
        }

        /// Lets time run on to `time` without a scan: the exits and the advertisement batch that
        /// fell due by then (a live source calls it; ``startScanning(_:)`` does).
        public func advance(to time: Double) async {
            await hub.advance(to: time)
        }

        /// Takes in every scan of a source until it ends, at the source's own pace, then lets time
        /// run on until the exits still pending have fallen due and flushes the last advertisement
        /// batch. A live source (an adapter, a pipe, scans `paced(.live(clock))`) makes
        /// `exitRegion` and `exitLocation` fall due on time (the exit timeout after the last
        /// sighting) while it stays open, as the operating system told Bluenet; a replay runs on the
        /// scans' own clock. A source whose radio can pause (`PausableScanning`) is turned off
        /// while tracking is paused or nothing is tracked.
        ///
        /// ```swift
        /// try await bluenet.startScanning(try ScanSource.adapter(.init(adapter: "hci0")))
        /// ```
        public func startScanning<Scans: PacedScans>(_ source: Scans) async throws {
            try await scan(source, pace: source.pace)
        }

        /// Takes in every scan of a sequence that does not know its pace, as ``startScanning(_:)``
        /// does: with a `clock` it is live, without one a replay.
        ///
        /// ```swift
        /// try await bluenet.startScanning(scans, clock: ContinuousClock())
        /// ```
        public func startScanning<Scans: AsyncSequence>(_ scans: sending Scans, clock: (any Clock<Duration>)? = nil) async throws
        where Scans.Element == Scan {
            try await scan(scans, pace: clock.map { .live($0) } ?? .replay)
        }

        private func scan<Scans: AsyncSequence>(_ scans: sending Scans, pace: ScanPace) async throws where Scans.Element == Scan {
            let radio = scans as? any PausableScanning
            updateRadio { $0.radio = radio }
            defer { device.withValue { $0.radio = nil } }
            var timeline = ScanTimeline(scans: scans, pace: pace)
            var stage = HubStage(bluenet: self)
            try await timeline.run(&stage) { _ in }
        }

        /// Changes what the radio depends on, then turns it on or off to match (outside the lock).
        private func updateRadio(_ change: (inout Device) -> Void) {
            let (radio, on) = device.withValue { device in
                let before = device.wantsRadio
                let hadRadio = device.radio != nil
                change(&device)
                // Told only when its wish changes, or when a source has just arrived.
                let tell = before != device.wantsRadio || (!hadRadio && device.radio != nil)
                return (tell ? device.radio : nil, device.wantsRadio)
            }
            guard let radio else { return }
            if on { radio.resumeScanning() } else { radio.pauseScanning() }
        }

        /// The library as a stage of a ``ScanTimeline``: its events reach the app through the
        /// subscriptions, so the stage gives out nothing itself.
        private struct HubStage: TimedStage {
            let bluenet: BluenetLocalization

            func process(_ scan: Scan) async -> [Never] {
                await bluenet.process(scan)
                return []
            }

            func advance(to time: Double) async -> [Never] {
                _ = await bluenet.hub.advance(to: time)
                return []
            }

            func nextDeadline() async -> Double? { await bluenet.hub.nextDeadline() }

            func finish() async -> [Never] {
                _ = await bluenet.hub.finish()
                return []
            }
        }
    }

    /// Bluenet's `TrainingHelper`: collects the advertisements of a ``BluenetLocalization`` while the
    /// user stands in one room, and hands back Bluenet's training JSON for the basic classifier.
    ///
    /// ```swift
    /// let helper = TrainingHelper(bluenetLocalization: bluenet)
    /// helper.startCollectingTrainingData()
    /// // … the user stands in the kitchen while scans come in …
    /// let kitchen = helper.finishCollectingTrainingData()   // [{"devices": {...}, "timestamp": ...}, ...]
    /// ```
    public final class TrainingHelper: Sendable {
        private let session = LockedValue(FingerprintTrainingSession())
        private let unsubscribe: VoidCallback

        /// Creates a helper fed by the advertisement events of `bluenetLocalization`.
        public init(bluenetLocalization: BluenetLocalization) {
            let session = session
            unsubscribe = bluenetLocalization.hub.subscribe { event in
                guard case .advertisements(let packets) = event.kind else { return }
                session.withValue { _ = $0.add(packets, at: event.time) }
            }
        }

        deinit { unsubscribe() }

        /// Starts collecting, dropping anything collected before.
        public func startCollectingTrainingData() { session.withValue { $0.start() } }

        /// Stops collecting for a while.
        public func pauseCollectingTrainingData() { session.withValue { $0.pause() } }

        /// Collects again.
        public func resumeCollectingTrainingData() { session.withValue { $0.resume() } }

        /// Stops and throws away what was collected.
        public func abortCollectingTrainingData() { session.withValue { $0.abort() } }

        /// Stops and returns what was collected as Bluenet's training JSON, or `nil` when
        /// collection never started.
        public func finishCollectingTrainingData() -> String? {
            session.withValue { $0.finish() }?.bluenetJSON
        }
    }

    /// Bluenet's basic classifier: Gaussian naive Bayes over the training data of each location
    /// (`NaiveBayesPlaceClassifier` with `NaiveBayesPlaceClassifier.Options.bluenet`): no answer
    /// without training data or with fewer than three known beacons heard.
    ///
    /// ```swift
    /// var classifier = BasicClassifier()
    /// try classifier.loadTrainingData("kitchen", referenceId: "home", trainingData: kitchenJSON)
    /// try classifier.loadTrainingData("hall", referenceId: "home", trainingData: hallJSON)
    /// await bluenet.insertClassifier(classifier.classifier)
    /// ```
    public struct BasicClassifier: Sendable {
        private var scans: [Scan] = []

        /// Creates a classifier with no training data.
        public init() {}

        /// Adds a location's training data, the JSON ``TrainingHelper/finishCollectingTrainingData()``
        /// returned; `referenceId` is the region it was collected in (kept for Bluenet's signature:
        /// the hub tells regions apart itself).
        public mutating func loadTrainingData(_ locationId: String, referenceId: String, trainingData: String) throws(BluenetError) {
            do {
                scans += try BluenetTrainingData.decode(JSONParser.parse(trainingData), place: locationId)
            } catch let error as JSONSyntaxError {
                throw .invalidTrainingData(String(describing: error))
            } catch {
                throw .invalidTrainingData(String(describing: error))
            }
        }

        /// The classifier of the training data loaded so far.
        public var classifier: any PlaceClassifier {
            NaiveBayesPlaceClassifier(training: PlaceTrainingSet(scans: scans), options: .bluenet)
        }
    }
}

#if canImport(CoreLocation) && os(iOS)
import CoreLocation

/// The location manager that asks for "when in use" authorisation, kept until the user answers.
@MainActor
private enum LocationPermissionRequest {
    static let manager = CLLocationManager()

    static func request() {
        manager.requestWhenInUseAuthorization()
    }
}
#endif
