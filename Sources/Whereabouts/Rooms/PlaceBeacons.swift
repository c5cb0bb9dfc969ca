import Foundation

/// The beacons a place model knows, each under a stable string key, with a fast look-up from
/// the way readings name beacons.
///
/// A beacon's key is the venue's `beacons[].id` when the venue knows the beacon; otherwise the
/// reading's own name: its id, the Bluenet id string `UUID_Maj:major_Min:minor` of an iBeacon,
/// or `namespace/instance` of an Eddystone-UID. A beacon with an iBeacon identity is found by
/// either name.
public struct PlaceBeacons: Hashable, Sendable {
    /// The keys, in model order.
    public private(set) var keys: [String] = []
    /// The iBeacon identity of each beacon, when known.
    public private(set) var identities: [IBeaconIdentity?] = []
    private var lookup: [BeaconReference: Int] = [:]

    /// An empty table.
    public init() {}

    /// A table of the given keys and identities (`identities` may be shorter: missing ones are `nil`).
    public init(keys: [String], identities: [IBeaconIdentity?] = []) {
        for (index, key) in keys.enumerated() {
            _ = insert(key: key, identity: index < identities.count ? identities[index] : nil)
        }
    }

    /// How many beacons.
    public var count: Int { keys.count }

    /// The index of the beacon a reading names, or `nil` when the model does not know it.
    @inline(__always)
    public func index(for reference: BeaconReference) -> Int? { lookup[reference] }

    /// Adds a beacon (or finds it) and returns its index.
    public mutating func insert(key: String, identity: IBeaconIdentity?, reference: BeaconReference? = nil) -> Int {
        if let index = lookup[.id(key)] ?? identity.flatMap({ lookup[.iBeacon($0)] }) {
            if let reference, lookup[reference] == nil { lookup[reference] = index }
            return index
        }
        let index = keys.count
        keys.append(key)
        identities.append(identity)
        lookup[.id(key)] = index
        if let identity {
            lookup[.iBeacon(identity)] = index
        } else if let parsed = IBeaconIdentity(bluenetIDString: key) {
            lookup[.iBeacon(parsed)] = index
        }
        if let reference, lookup[reference] == nil { lookup[reference] = index }
        return index
    }

    /// The key and identity under which a reading's beacon is stored: the venue's id when the
    /// venue knows it, else the reading's own name.
    public static func key(for reference: BeaconReference, venue: Venue?) -> (key: String, identity: IBeaconIdentity?) {
        if let venue, let index = venue.beaconIndex(for: reference) {
            return (venue.beacons[index].id, venue.beacons[index].iBeacon)
        }
        switch reference {
        case .id(let id): return (id, IBeaconIdentity(bluenetIDString: id))
        case .iBeacon(let identity): return (identity.description, identity)
        case .eddystone(let identity): return (identity.description, nil)
        }
    }
}

extension IBeaconIdentity {
    /// Parses Bluenet's id string, `UUID_Maj:major_Min:minor` (the form ``description`` writes).
    ///
    /// ```swift
    /// IBeaconIdentity(bluenetIDString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0_Maj:1_Min:23")?.minor   // 23
    /// ```
    public init?(bluenetIDString text: String) {
        let parts = text.components(separatedBy: "_Maj:")
        guard parts.count == 2, let uuid = UUID(uuidString: parts[0]) else { return nil }
        let numbers = parts[1].components(separatedBy: "_Min:")
        guard numbers.count == 2, let major = UInt16(numbers[0]), let minor = UInt16(numbers[1]) else { return nil }
        self.init(uuid: uuid, major: major, minor: minor)
    }
}
