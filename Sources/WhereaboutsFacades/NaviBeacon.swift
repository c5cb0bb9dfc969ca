import Foundation
import Whereabouts

// NaviBeacon's API — `addBeacon(identifier:uuid:latitude:longitude:heading:floor:)`,
// `pauseScanning`, `resumeScanning`, `onBeaconChanged`, `NaviBeaconData` — backed by the
// engine's `AnchorTriggers` (arm, fire, re-arm after five near rounds, a counter per beacon),
// its ranging rounds (`BeaconRanger`) and `AnchoredState` for the location, heading and floor.

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
        var ranger: BeaconRanger
        var triggers = AnchorTriggers()
        var device = AnchoredState()
        var data: [String: NaviBeaconData] = [:]
    }

    private let state: LockedValue<State>
    private let callback = LockedValue<(@Sendable (RangedBeacon, NaviBeaconData) -> Void)?>(nil)

    /// Creates the plugin with no beacons; `venue` (optional) names the beacons that readings
    /// give by venue id and their calibrations; `rangingInterval` is the length of a round,
    /// seconds.
    public init(venue: Venue? = nil, rangingInterval: Double = 1) {
        state = LockedValue(State(ranger: BeaconRanger(venue: venue, interval: rangingInterval)))
    }

    /// Adds a beacon: every beacon of `uuid` is ranged under `identifier`; adding the same UUID
    /// again replaces it. Returns the plugin, so that calls chain.
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
            state.triggers.add(anchor)
        }
        return self
    }

    /// Stops reacting to beacons until ``resumeScanning()``.
    public func pauseScanning() {
        state.withValue { $0.triggers.pause() }
    }

    /// Reacts to beacons again.
    public func resumeScanning() {
        state.withValue { $0.triggers.resume() }
    }

    /// A callback that replaces the default behaviour: it hears every ranged beacon of an added
    /// UUID, with its data, once a round. Set it back to `nil` for the default.
    public var onBeaconChanged: (@Sendable (RangedBeacon, NaviBeaconData) -> Void)? {
        get { callback.value }
        set { callback.value = newValue }
    }

    /// The device's location as beacons last set it.
    public var location: GeoCoordinate? { state.value.device.coordinate }
    /// The device's heading as beacons last set it, degrees clockwise from north.
    public var heading: Double? { state.value.device.heading }
    /// The device's floor as beacons last set it.
    public var floor: Int? { state.value.device.floor }
    /// Everything beacons set, and which beacon last did.
    public var deviceState: AnchoredState { state.value.device }

    /// Whether the beacon `identifier` would set the location on its next immediate sighting.
    public func isArmed(_ identifier: String) -> Bool { state.value.triggers.isArmed(identifier) }

    /// Takes in one scan; returns the location fixes of the rounds it closed.
    @discardableResult
    public func process(_ scan: Scan) -> [AnchorFix] {
        let (rounds, custom) = state.withValue { state in (state.ranger.add(scan), callback.value) }
        return rounds.flatMap { handle($0, custom: custom) }
    }

    /// Closes the round still open (at the end of a source); returns its fixes.
    @discardableResult
    public func finish() -> [AnchorFix] {
        let (round, custom) = state.withValue { state in (state.ranger.finish(), callback.value) }
        return round.map { handle($0, custom: custom) } ?? []
    }

    /// Reacts to every round of a source until it ends.
    public func startScanning<Scans: AsyncSequence>(_ scans: Scans) async throws where Scans.Element == Scan {
        for try await scan in scans { process(scan) }
        finish()
    }

    /// One round: to the callback, or through the triggers into the device's state.
    private func handle(_ round: [RangedBeacon], custom: (@Sendable (RangedBeacon, NaviBeaconData) -> Void)?) -> [AnchorFix] {
        guard let custom else {
            return state.withValue { state in
                let fixes = state.triggers.process(round: round)
                for fix in fixes { state.device.apply(fix) }
                return fixes
            }
        }
        // The callback runs outside the lock, so that it may call the plugin.
        let matched: [(RangedBeacon, NaviBeaconData)] = state.withValue { state in
            round.compactMap { ranged in
                state.triggers.anchor(matching: ranged).flatMap { state.data[$0.id] }.map { (ranged, $0) }
            }
        }
        for (ranged, data) in matched { custom(ranged, data) }
        return []
    }
}
