import Whereabouts

/// Names beacons as the venue does: its `beacons[].id` for a beacon it lists, else the
/// advertised identity.
struct BeaconNames: Sendable {
    private let venue: Venue?
    private let directory: BeaconDirectory?

    /// Names from `venue`'s beacons, if any.
    init(venue: Venue?) {
        self.venue = venue
        directory = venue.map(BeaconDirectory.init)
    }

    /// The venue's id for the beacon, else its advertised identity.
    func name(of beacon: BeaconReference) -> String {
        if let index = directory?.index(for: beacon), let id = venue?.beacons[index].id { return id }
        switch beacon {
        case .id(let id): return id
        case .iBeacon(let identity): return identity.description
        case .eddystone(let identity): return identity.description
        }
    }
}
