import Foundation
import Whereabouts

/// IBeaconLocation's beacon map of a floor.
extension IBeaconLocationFacade {
    /// The beacon store of one proximity UUID, IBeaconLocation's `Floor`: add, look up and remove
    /// beacons by major and minor while positioning runs.
    ///
    /// ```swift
    /// location.floor.addBeacon(major: 1, minor: 1, x: 0, y: 0)
    /// location.floor.addBeacon(major: 1, minor: 2, position: PlanarPoint(x: 10, y: 0))
    /// location.floor.hasBeacon(major: 1, minor: 2)   // true
    /// ```
    public final class Floor: Sendable {
        /// The proximity UUID of every beacon of the floor.
        public let uuid: UUID
        private let map: LockedValue<(venue: Venue, revision: Int)>

        /// Creates an empty floor for a UUID.
        public init(uuid: UUID) {
            self.uuid = uuid
            map = LockedValue((Venue(), 0))
        }

        /// Adds (or moves) the beacon `major`/`minor` at x, y, z metres.
        public func addBeacon(major: UInt16, minor: UInt16, x: Double, y: Double, z: Double = 0) {
            let identity = IBeaconIdentity(uuid: uuid, major: major, minor: minor)
            map.withValue { map in
                map.venue.setBeacon(Venue.Beacon(id: "\(major)/\(minor)", iBeacon: identity, x: x, y: y, z: z == 0 ? nil : z))
                map.revision += 1
            }
        }

        /// Adds (or moves) the beacon `major`/`minor` at a point of the plan (IBeaconLocation's `inPosition:`).
        public func addBeacon(major: UInt16, minor: UInt16, position: PlanarPoint) {
            addBeacon(major: major, minor: minor, x: position.x, y: position.y)
        }

        /// Whether the floor has the beacon `major`/`minor`.
        public func hasBeacon(major: UInt16, minor: UInt16) -> Bool {
            beacon(major: major, minor: minor) != nil
        }

        /// The beacon `major`/`minor`, if the floor has it.
        public func beacon(major: UInt16, minor: UInt16) -> Beacon? {
            map.value.venue.beacon(IBeaconIdentity(uuid: uuid, major: major, minor: minor)).flatMap(Self.beacon)
        }

        /// Removes every beacon.
        public func removeAllBeacons() {
            map.withValue { map in
                map.venue.beacons = []
                map.revision += 1
            }
        }

        /// Removes the beacon `major`/`minor`.
        public func removeBeacon(major: UInt16, minor: UInt16) {
            map.withValue { map in
                if map.venue.removeBeacon(IBeaconIdentity(uuid: uuid, major: major, minor: minor)) { map.revision += 1 }
            }
        }

        /// The beacons, in the order added.
        public var beacons: [Beacon] { map.value.venue.beacons.compactMap(Self.beacon) }

        /// The map as a venue, and a number that changes with every change of it.
        var snapshot: (venue: Venue, revision: Int) { map.value }

        static func beacon(_ beacon: Venue.Beacon) -> Beacon? {
            guard let identity = beacon.iBeacon, let x = beacon.x, let y = beacon.y else { return nil }
            return Beacon(major: identity.major, minor: identity.minor, x: x, y: y, z: beacon.z ?? 0)
        }
    }
}
