import Foundation
import Whereabouts

/// Hekaerge's API — `Hekaerge`, `HekaergeLocation`, `getOrderedLocations`,
/// `getDefaultLocations`, the `didChangeLocation` delegate — backed by the engine's
/// `PlaceRanker` (Hekaerge's sorting rules), its geofence places and its ranging rounds.
///
/// The namespace of the facade: its types are named as Hekaerge named them, under
/// `HekaergeFacade.`, so that `import WhereaboutsFacades` adds no generic name to an app (declare a
/// `typealias` for the names you use unqualified).
public enum HekaergeFacade {
    /// A location Hekaerge sorts: a name, a centre, a radius in metres and a floor — a geofence.
    public struct HekaergeLocation: Hashable, Sendable {
        /// The location's name.
        public var identifier: String
        /// The centre's latitude, degrees.
        public var latitude: Double
        /// The centre's longitude, degrees.
        public var longitude: Double
        /// The floor, for overlapping geofences of a building with several floors.
        public var floor: Int
        /// The radius, metres.
        public var radius: Double

        /// Creates a location (Hekaerge's `initWithId:latitude:longitide:floor:radius:`).
        public init(id: String, latitude: Double, longitude: Double, floor: Int, radius: Double) {
            identifier = id
            self.latitude = latitude
            self.longitude = longitude
            self.floor = floor
            self.radius = radius
        }

        /// The centre.
        public var coordinate: GeoCoordinate { GeoCoordinate(latitude: latitude, longitude: longitude) }
    }

    /// Hekaerge's delegate: told the new order after every change, including when the position
    /// becomes unknown (the input order again).
    public protocol HekaergeDelegate: AnyObject, Sendable {
        /// The locations in their new order.
        func didChangeLocation(_ locations: [HekaergeLocation])
    }

    /// What Hekaerge's calls can refuse.
    public enum HekaergeError: Error, Hashable, Sendable, CustomStringConvertible {
        /// A location's latitude or longitude is out of range.
        case invalidLocation(String)
        /// The venue has no origin, so latitudes and longitudes cannot be placed on its plan.
        case venueWithoutOrigin

        /// What went wrong and what to do.
        public var description: String {
            switch self {
            case .invalidLocation(let id): "location \"\(id)\" has a latitude or longitude out of range"
            case .venueWithoutOrigin: "the venue has no origin: give it one (\"origin\": {\"latitude\", \"longitude\"}) to relate its plan to the locations"
            }
        }
    }

    /// Hekaerge: locations kept sorted by distance from where the device is — the nearest beacon in
    /// range with a known location (Hekaerge's way) or the engine's fix — with Hekaerge's rules for
    /// overlapping geofences and floors (see `PlaceRanking`).
    ///
    /// ```swift
    /// let hekaerge = Hekaerge(locations: [hall1, hall2, hall7, hall7Smaller])
    /// hekaerge.delegate = self                                   // didChangeLocation(_:)
    /// print(hekaerge.orderedLocations.map(\.identifier))         // input order: no position yet
    /// try await hekaerge.startScanning(try ScanSource.adapter(.init(adapter: "hci0")))   // live
    /// ```
    public final class Hekaerge: Sendable {
        /// The locations in the order given (Hekaerge's `getDefaultLocations`).
        public let defaultLocations: [HekaergeLocation]
        /// The frame the locations are placed in: the venue's, or one centred on the locations.
        public let frame: LocalFrame
        private let venue: Venue?
        private let ranker: PlaceRanker
        private let ordered: LockedValue<[HekaergeLocation]>
        private let delegateBox: LockedValue<WeakDelegate>

        private struct WeakDelegate: Sendable {
            weak var delegate: (any HekaergeDelegate)?
        }

        /// Creates the sorter of `locations`, in their order until a position is known.
        public convenience init(locations: [HekaergeLocation]) {
            let frame = LocalFrame(centredOn: locations.map(\.coordinate).filter(\.isValid))
                ?? LocalFrame(origin: GeoCoordinate(latitude: 0, longitude: 0))
            self.init(locations: locations, frame: frame, venue: nil)
        }

        /// Creates the sorter of `locations` placed on the plan of `venue`, whose beacons (with
        /// their positions) and fixes then give the position.
        public convenience init(locations: [HekaergeLocation], venue: Venue) throws(HekaergeError) {
            guard let frame = venue.localFrame else { throw .venueWithoutOrigin }
            if let bad = locations.first(where: { !$0.coordinate.isValid }) { throw .invalidLocation(bad.identifier) }
            self.init(locations: locations, frame: frame, venue: venue)
        }

        private init(locations: [HekaergeLocation], frame: LocalFrame, venue: Venue?) {
            defaultLocations = locations
            self.frame = frame
            self.venue = venue
            let ordered = LockedValue(locations)
            let delegateBox = LockedValue(WeakDelegate())
            self.ordered = ordered
            self.delegateBox = delegateBox
            // Places are named by their index, so that two locations of the same name stay apart.
            let places = locations.enumerated().map { index, location in
                Venue.Place(id: String(index), coordinate: location.coordinate, radius: location.radius, floor: location.floor, in: frame)
            }
            // Distances are great-circle distances from the position's coordinate, as the seed's.
            ranker = PlaceRanker(places: places, frame: frame) { update in
                let order = Self.locations(update.places, of: locations)
                ordered.value = order
                delegateBox.value.delegate?.didChangeLocation(order)
            }
        }

        /// Told the new order after every change.
        public var delegate: (any HekaergeDelegate)? {
            get { delegateBox.value.delegate }
            set { delegateBox.value = WeakDelegate(delegate: newValue) }
        }

        /// The locations sorted from the current position, or in the input order when none is known
        /// (Hekaerge's `getOrderedLocations`).
        public var orderedLocations: [HekaergeLocation] { ordered.value }

        /// The orders from now on, as they change.
        public func orders() async -> AsyncStream<[HekaergeLocation]> {
            let updates = await ranker.updates()
            let locations = defaultLocations
            return AsyncStream { continuation in
                let task = Task {
                    for await update in updates { continuation.yield(Self.locations(update.places, of: locations)) }
                    continuation.finish()
                }
                continuation.onTermination = { _ in task.cancel() }
            }
        }

        /// Moves the position to the nearest beacon of a ranging round with a known location on the
        /// venue (none: the position is unknown).
        public func update(nearestOf round: [RangedBeacon]) async {
            guard let venue else { return await forgetPosition() }
            await ranker.update(nearestOf: round, in: venue)
        }

        /// Moves the position to a fix of the venue's engine.
        public func update(with fix: Fix) async {
            await ranker.update(with: fix)
        }

        /// Moves the position to a coordinate on a floor.
        public func update(coordinate: GeoCoordinate, floor: Int?) async {
            await ranker.update(position: PlaceRanking.Position(point: frame.planarPoint(for: coordinate), floor: floor))
        }

        /// Forgets the position (scanning stopped, Bluetooth off): the input order again.
        public func forgetPosition() async {
            await ranker.update(position: nil)
        }

        /// Sorts from the nearest beacon in range of each ranging round of a source (Hekaerge's
        /// way; see `PlaceRanker.follow(_:nearestBeaconIn:ranger:clock:)`), at the source's own
        /// pace, until the source ends; then the position is unknown and the order is the input
        /// order again. From a live source (an adapter, a pipe, scans `paced(.live(clock))`), when
        /// no beacon is heard for a round the position is unknown (and the delegate told the input
        /// order) while the source stays open, as Hekaerge did.
        ///
        /// ```swift
        /// try await hekaerge.startScanning(try ScanSource.adapter(.init(adapter: "hci0")))
        /// ```
        public func startScanning<Scans: PacedScans>(_ source: Scans) async throws {
            try await startScanning(source, clock: source.pace.clock)
        }

        /// Sorts from the nearest beacon in range of each ranging round of a sequence that does not
        /// know its pace, as ``startScanning(_:)`` does: with a `clock` it is live, without one a
        /// replay.
        ///
        /// ```swift
        /// try await hekaerge.startScanning(scans, clock: ContinuousClock())
        /// ```
        public func startScanning<Scans: AsyncSequence>(_ scans: sending Scans, clock: (any Clock<Duration>)? = nil) async throws
        where Scans.Element == Scan {
            guard let venue else { throw HekaergeError.venueWithoutOrigin }
            try await ranker.follow(scans, nearestBeaconIn: venue, clock: clock)
        }

        /// Sorts from the engine's fixes of a source (`configuration` says how it locates; by default
        /// the venue with the default algorithm), until the source ends.
        public func startLocating<Scans: AsyncSequence>(_ scans: sending Scans, configuration: LocationEngine.Configuration? = nil)
            async throws where Scans.Element == Scan {
            guard let venue else { throw HekaergeError.venueWithoutOrigin }
            let engine = LocationEngine(configuration: configuration ?? .init(venue: venue))
            try await ranker.follow(fixes: engine.fixes(from: scans))
        }

        private static func locations(_ places: [PlaceRanking.RankedPlace], of locations: [HekaergeLocation]) -> [HekaergeLocation] {
            places.compactMap { Int($0.place.id).flatMap { locations.indices.contains($0) ? locations[$0] : nil } }
        }
    }
}
