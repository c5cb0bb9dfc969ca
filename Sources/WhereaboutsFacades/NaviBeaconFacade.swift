import Foundation
import Whereabouts

/// NaviBeacon's API — `addBeacon(identifier:uuid:latitude:longitude:heading:floor:)`,
/// `pauseScanning`, `resumeScanning`, `onBeaconChanged`, `NaviBeaconData` — backed by the
/// engine's `AnchorTriggers` (arm, fire, re-arm after five near rounds, a counter per beacon),
/// its ranging rounds (`BeaconRanger`) and `AnchoredState` for the location, heading and floor.
///
/// The namespace of the facade: its types are named as NaviBeacon named them, under
/// `NaviBeaconFacade.`, so that `import WhereaboutsFacades` adds no generic name to an app (declare a
/// `typealias` for the names you use unqualified).
public enum NaviBeaconFacade {
    /// What NaviBeacon knows about a beacon's spot: its label, its UUID and the optional location,
    /// heading and floor a user standing there has.
    public struct NaviBeaconData: Hashable, Sendable {
        /// The label given to ``NaviBeacon/addBeacon(identifier:uuid:latitude:longitude:heading:floor:)``.
        public let id: String
        /// The UUID ranged (NaviBeacon's `region`).
        public let uuid: UUID
        /// The spot's latitude, degrees.
        public let latitude: Double?
        /// The spot's longitude, degrees.
        public let longitude: Double?
        /// The heading a user there faces, degrees clockwise from north.
        public let heading: Double?
        /// The spot's floor.
        public let floor: Int?
    }

    /// NaviBeacon: beacons that set the device's location, heading and floor when the device is
    /// right at them, or run a callback of your own on every ranging round.
    ///
    /// By default (no ``onBeaconChanged``), an `Proximity.immediate` sighting of an armed beacon
    /// sets the location (when the beacon has both a latitude and a longitude, keeping the last
    /// heading), the heading and the floor (when given), then disarms that beacon until it has been
    /// seen `Proximity.near` in five rounds. Each beacon keeps its own counter (NaviBeacon shared
    /// one between all of them). The rounds come from any source of scans, a second of scans each.
    ///
    /// ```swift
    /// let navi = NaviBeacon()
    ///     .addBeacon(identifier: "front-desk", uuid: uuid, latitude: 41.3551, longitude: 2.1322, heading: 90, floor: 0)
    /// try await navi.startScanning(RecordingReader(url: recording))
    /// print(navi.location as Any, navi.heading as Any, navi.floor as Any)
    /// ```
    public final class NaviBeacon: Sendable {
        private struct State: Sendable {
            var pipeline: AnchorPipeline
            var device = AnchoredState()
            var data: [String: NaviBeaconData] = [:]
            /// The source being scanned, when its radio can be paused.
            var radio: (any PausableScanning)?
            /// With a venue: its fixes, which a beacon's spot restarts (the seed's motion engine).
            var fixes: FixPipeline?
            /// The frame of the venue's plan, to place a beacon's latitude and longitude on it.
            var frame: LocalFrame?
            var lastFix: Fix?
        }

        private let state: LockedValue<State>
        private let callback = LockedValue<(@Sendable (RangedBeacon, NaviBeaconData) -> Void)?>(nil)
        /// The sightings the callback has still to hear: gathered while a scan is processed, heard
        /// once the plugin's lock is released (so that the callback may call the plugin).
        private let heard = LockedValue<[(RangedBeacon, AnchorBeacon)]>([])

        /// Creates the plugin with no beacons; `venue` (optional) names the beacons that readings
        /// give by venue id and their calibrations, and locates the device between beacons
        /// (``fix``), from the spot the last beacon set; `rangingInterval` is the length of a
        /// round, seconds.
        public init(venue: Venue? = nil, rangingInterval: Double = 1) {
            var state = State(pipeline: AnchorPipeline(anchors: [], venue: venue, rangingInterval: rangingInterval))
            if let venue {
                // Motion tracking on: the track a beacon's spot restarts (the seed's motion engine).
                let configuration = LocationEngine.Configuration(venue: venue, locator: LocatorConfiguration(tracking: MotionTracker.Configuration()))
                state.fixes = FixPipeline(setup: configuration.makeSetup(), timing: .immediate)
                state.frame = venue.localFrame
            }
            self.state = LockedValue(state)
        }

        /// Adds a beacon: every beacon of `uuid` is ranged under `identifier`; adding the same UUID
        /// again replaces it. Beacons can be added while scanning. Returns the plugin, so that calls
        /// chain.
        @discardableResult
        public func addBeacon(identifier: String, uuid: UUID, latitude: Double?, longitude: Double?, heading: Double?,
                              floor: Int?) -> NaviBeacon {
            let data = NaviBeaconData(id: identifier, uuid: uuid, latitude: latitude, longitude: longitude, heading: heading,
                                      floor: floor)
            var coordinate: GeoCoordinate?
            if let latitude, let longitude { coordinate = GeoCoordinate(latitude: latitude, longitude: longitude) }
            let anchor = AnchorBeacon(id: identifier, uuid: uuid, coordinate: coordinate, heading: heading, floor: floor)
            state.withValue { state in
                state.data = state.data.filter { $0.value.uuid != uuid && $0.key != identifier }
                state.data[identifier] = data
                state.pipeline.add(anchor)
            }
            return self
        }

        /// Stops reacting to beacons until ``resumeScanning()``; a source whose radio can be paused
        /// (`PausableScanning`, such as the BlueZ scanner) stops scanning meanwhile.
        public func pauseScanning() {
            let radio = state.withValue { state in
                state.pipeline.pause()
                return state.radio
            }
            radio?.pauseScanning()
        }

        /// Reacts to beacons again (and scans again).
        public func resumeScanning() {
            let radio = state.withValue { state in
                state.pipeline.resume()
                return state.radio
            }
            radio?.resumeScanning()
        }

        /// Whether scanning is paused.
        public var isPaused: Bool { state.value.pipeline.isPaused }

        /// A callback that replaces the default behaviour: it hears every ranged beacon of an added
        /// UUID, with its data, once a round. Set it back to `nil` for the default.
        public var onBeaconChanged: (@Sendable (RangedBeacon, NaviBeaconData) -> Void)? {
            get { callback.value }
            set {
                callback.value = newValue
                let heard = heard
                var gather: (@Sendable (RangedBeacon, AnchorBeacon) -> Void)?
                if newValue != nil {
                    gather = { sighting, anchor in
                        heard.withValue { $0.append((sighting, anchor)) }
                    }
                }
                state.withValue { [gather] state in state.pipeline.onSighting = gather }
            }
        }

        /// The device's location as beacons last set it.
        public var location: GeoCoordinate? { state.value.device.coordinate }
        /// The device's heading as beacons last set it, degrees clockwise from north.
        public var heading: Double? { state.value.device.heading }
        /// The device's floor as beacons last set it.
        public var floor: Int? { state.value.device.floor }
        /// Everything beacons set, and which beacon last did.
        public var deviceState: AnchoredState { state.value.device }

        /// With a venue, the device's latest fix from the venue's beacons: its motion track starts
        /// again where a beacon last set the device (its spot, floor; as NaviBeacon set its motion
        /// engine's position), so the fixes that follow go on from there.
        public var fix: Fix? { state.value.lastFix }

        /// Whether the beacon `identifier` would set the location on its next immediate sighting.
        public func isArmed(_ identifier: String) -> Bool {
            state.value.pipeline.isArmed(identifier)
        }

        /// Takes in one scan; returns the location fixes of the rounds it closed. With a venue, the
        /// scan is then located, from the spot a beacon has just set if one did.
        @discardableResult
        public func process(_ scan: Scan) -> [AnchorFix] {
            let fixes = handle { $0.process(scan) }
            state.withValue { state in
                guard !state.pipeline.isPaused, var pipeline = state.fixes else { return }
                if let fix = pipeline.add(scan).last { state.lastFix = fix }
                state.fixes = pipeline
            }
            return fixes
        }

        /// Lets time run on to `time` without a scan: the round that ended by then, if any, and its
        /// fixes (a live source calls it; ``startScanning(_:clock:)`` does).
        @discardableResult
        public func advance(to time: Double) -> [AnchorFix] {
            handle { $0.advance(to: time) }
        }

        /// Closes the round still open (at the end of a source); returns its fixes.
        @discardableResult
        public func finish() -> [AnchorFix] {
            handle { $0.finish() }
        }

        /// Reacts to every round of a source until it ends, at the source's own pace. From a live
        /// source (an adapter, a pipe, scans `paced(.live(clock))`) a round also ends on time, so
        /// an immediate sighting sets the location a round later even when no further scan comes.
        /// A source whose radio can be paused (`PausableScanning`) is paused and resumed with
        /// ``pauseScanning()`` and ``resumeScanning()``.
        ///
        /// ```swift
        /// try await navi.startScanning(try ScanSource.adapter(.init(adapter: "hci0")))   // live
        /// ```
        public func startScanning<Scans: PacedScans>(_ source: Scans) async throws {
            try await startScanning(source, clock: source.pace.clock)
        }

        /// Reacts to every round of a sequence that does not know its pace, as
        /// ``startScanning(_:)`` does: with a `clock` it is live, without one a replay.
        ///
        /// ```swift
        /// try await navi.startScanning(scans, clock: ContinuousClock())   // live
        /// ```
        public func startScanning<Scans: AsyncSequence>(_ scans: sending Scans, clock: (any Clock<Duration>)? = nil) async throws
        where Scans.Element == Scan {
            let radio = scans as? any PausableScanning
            let paused = state.withValue { state in
                state.radio = radio
                return state.pipeline.isPaused
            }
            if paused { radio?.pauseScanning() }
            defer { state.withValue { $0.radio = nil } }
            var timeline = ScanTimeline(scans: scans, pace: clock.map { .live($0) } ?? .replay)
            var rounds = Rounds(navi: self)
            try await timeline.run(&rounds) { _ in }
        }

        /// The facade as a stage of a ``ScanTimeline``: each step runs under the facade's lock and
        /// applies what fired (its fixes reach the app through the device state and the callback).
        private struct Rounds: TimedStage {
            let navi: NaviBeacon

            func process(_ scan: Scan) -> [AnchorFix] { navi.process(scan) }
            func advance(to time: Double) -> [AnchorFix] { navi.advance(to: time) }
            func nextDeadline() -> Double? { navi.state.value.pipeline.nextRoundEnd }
            func finish() -> [AnchorFix] { navi.finish() }
        }

        /// The beacon's spot, as the device's position in the venue's fixes: within half a metre
        /// (a beacon in immediate range), on the beacon's floor.
        private static func setPosition(of event: AnchorEvent, in state: inout State) {
            guard var pipeline = state.fixes else { return }
            let point = event.fix.point ?? event.fix.coordinate.flatMap { coordinate in state.frame?.planarPoint(for: coordinate) }
            guard let point else { return }
            let metresPerUnit = pipeline.setup.venue.venue.units.metres ?? 1
            pipeline.setPosition(SpatialPoint(x: point.x, y: point.y, z: 0), floor: event.fix.floor,
                                 accuracy: 0.5 / metresPerUnit, at: event.fix.time, device: event.device)
            state.fixes = pipeline
        }

        /// Runs one step of the pipeline under the lock, applies what fired to the device, then hands
        /// the callback what it heard, outside the lock.
        private func handle(_ step: (inout AnchorPipeline) -> [AnchorEvent]) -> [AnchorFix] {
            let fixes = state.withValue { state in
                let events = step(&state.pipeline)
                if let last = events.last { state.device = last.state }
                for event in events { Self.setPosition(of: event, in: &state) }
                return events.map(\.fix)
            }
            let sightings = heard.withValue { heard in
                defer { heard.removeAll() }
                return heard
            }
            if !sightings.isEmpty, let custom = callback.value {
                let matched: [(RangedBeacon, NaviBeaconData)] = state.withValue { state in
                    sightings.compactMap { sighting, anchor in state.data[anchor.id].map { (sighting, $0) } }
                }
                for (ranged, data) in matched { custom(ranged, data) }
            }
            return fixes
        }
    }
}
