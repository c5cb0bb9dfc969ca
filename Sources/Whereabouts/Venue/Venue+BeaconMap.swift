extension Venue {
    /// Adds a beacon, or replaces the beacon with the same iBeacon identity (or, for a beacon
    /// without one, the same id): a beacon map that changes while running, as IBeaconLocation's
    /// `Floor` does (give the new venue to ``LocationEngine/reconfigure(with:)``).
    ///
    /// ```swift
    /// venue.setBeacon(Venue.Beacon(id: "1/2", iBeacon: IBeaconIdentity(uuid: uuid, major: 1, minor: 2), x: 0, y: 10))
    /// venue.removeBeacon(IBeaconIdentity(uuid: uuid, major: 1, minor: 2))
    /// ```
    public mutating func setBeacon(_ beacon: Beacon) {
        let index = beacon.iBeacon.map { identity in beacons.firstIndex { $0.iBeacon == identity } }
            ?? beacons.firstIndex { $0.id == beacon.id }
        if let index { beacons[index] = beacon } else { beacons.append(beacon) }
    }

    /// The beacon with an iBeacon identity, if the venue has one.
    public func beacon(_ identity: IBeaconIdentity) -> Beacon? {
        beacons.first { $0.iBeacon == identity }
    }

    /// Removes the beacons with an iBeacon identity; returns whether there was one.
    @discardableResult
    public mutating func removeBeacon(_ identity: IBeaconIdentity) -> Bool {
        let count = beacons.count
        beacons.removeAll { $0.iBeacon == identity }
        return beacons.count != count
    }
}
