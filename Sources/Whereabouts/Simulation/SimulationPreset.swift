import Foundation

/// Ready-made simulation scenarios, each a venue, a walk and a radio model, chosen by name.
///
/// - `espresense-room`: the ESPresense companion accuracy scenario — a 6 × 4 m room (polygon
///   place `room`) with a receiver near each corner at 2 m, σ = 2.5 dB shadowing, 10 % of samples
///   6 dB down, and a walk to each corner and back to the middle with dwells.
/// - `example`: the bundled example (`Examples/venue.json`, `Examples/walk.json`), a trade-fair
///   campus built on the Hekaerge halls: eight halls (50–105 m geofences) with three or four
///   beacons each, hall 8 with two floors, and a visitor's ten-minute walk through halls 3, 4, 6
///   and 8, going upstairs in hall 8. `Examples/visit.jsonl` is its recording with seed 42.
///
/// ```swift
/// guard let preset = SimulationPreset(rawValue: "espresense-room") else { return }
/// for scan in preset.simulator(seed: 7) { print(scan.readings.count) }
/// ```
public enum SimulationPreset: String, CaseIterable, Hashable, Sendable {
    /// A 6 × 4 m room with four receivers (ESPresense companion's accuracy scenario).
    case espresenseRoom = "espresense-room"
    /// The bundled trade-fair example of `Examples/`.
    case example

    /// The name the preset is chosen by (`"espresense-room"`, `"example"`).
    public var name: String { rawValue }

    /// The venue.
    public var venue: Venue {
        switch self {
        case .espresenseRoom: Self.roomVenue
        case .example: Self.exampleVenue
        }
    }

    /// The walk.
    public var walk: Walk {
        switch self {
        case .espresenseRoom:
            Walk(waypoints: [
                Walk.Waypoint(x: 3, y: 0.5),
                Walk.Waypoint(x: 1, y: 1, dwell: 15),
                Walk.Waypoint(x: 5, y: 1, dwell: 15),
                Walk.Waypoint(x: 5, y: 3, dwell: 15),
                Walk.Waypoint(x: 1, y: 3, dwell: 15),
                Walk.Waypoint(x: 3, y: 2, dwell: 30),
            ], start: 1_700_000_000, device: "phone")
        case .example:
            Walk(waypoints: [
                // Hall 3.
                Walk.Waypoint(x: -80, y: 10, dwell: 10),
                Walk.Waypoint(x: -50, y: -5, dwell: 20),
                // Hall 4.
                Walk.Waypoint(x: 100, y: -20),
                Walk.Waypoint(x: 125, y: -35, dwell: 30),
                // Hall 6.
                Walk.Waypoint(x: 215, y: 20, dwell: 20),
                Walk.Waypoint(x: 235, y: 35),
                // Hall 8: the stairs, then upstairs.
                Walk.Waypoint(x: 370, y: 90, dwell: 10),
                Walk.Waypoint(x: 400, y: 100, dwell: 20),
                Walk.Waypoint(x: 405, y: 105, floor: 1, dwell: 30),
                Walk.Waypoint(x: 430, y: 120, floor: 1, dwell: 20),
            ], start: 1_700_000_000, device: "visitor")
        }
    }

    /// The radio model.
    public var radio: RadioModel {
        switch self {
        case .espresenseRoom:
            RadioModel(shadowing: 2.5, multipathShare: 0.1, multipathLoss: 6, scanInterval: 1)
        case .example:
            RadioModel(shadowing: 3, multipathShare: 0.1, multipathLoss: 6, packetLoss: 0.1, scanInterval: 1,
                       floorAttenuation: 15, sensitivity: -95)
        }
    }

    /// A simulator of the preset with `seed`, its truth rounded to centimetres.
    public func simulator(seed: UInt64) -> Simulator {
        Simulator(venue: venue, walk: walk, radio: radio, seed: seed, truthDecimalPlaces: 2)
    }

    // MARK: The room

    private static var roomVenue: Venue {
        let corners = [(0.2, 0.2), (5.8, 0.2), (5.8, 3.8), (0.2, 3.8)]
        return Venue(
            name: "ESPresense room",
            floors: [Venue.Floor(level: 0, name: "ground", elevation: 0)],
            beacons: corners.enumerated().map { index, corner in
                Venue.Beacon(id: "node\(index + 1)", x: corner.0, y: corner.1, z: 2, floor: 0, txPower: -59)
            },
            places: [Venue.Place(id: "room", floor: 0, shape: .polygon([
                PlanarPoint(x: 0, y: 0), PlanarPoint(x: 6, y: 0), PlanarPoint(x: 6, y: 4), PlanarPoint(x: 0, y: 4),
            ]))])
    }

    // MARK: The example

    /// The proximity UUID of the example's beacons (the major is the hall, the minor the beacon).
    static let exampleUUID = UUID(uuid: (0xE2, 0xC5, 0x6D, 0xB5, 0xDF, 0xFB, 0x48, 0xD2,
                                         0xB0, 0x60, 0xD0, 0xF5, 0xA7, 0x10, 0x96, 0xE0))

    /// The halls of the Hekaerge sample: id, latitude, longitude, floor, radius (metres).
    private static let halls: [(id: String, latitude: Double, longitude: Double, floor: Int, radius: Double)] = [
        ("hall1", 41.353485, 2.129052, 0, 64),
        ("hall2", 41.354400, 2.129854, 0, 55),
        ("hall3", 41.355028, 2.131205, 0, 49),
        ("hall4", 41.354753, 2.13336, 0, 50),
        ("hall5", 41.356697, 2.132073, 0, 50),
        ("hall6", 41.355234, 2.134667, 0, 50),
        ("hall7", 41.357155, 2.133298, 0, 50),
        ("hall7smaller", 41.357155, 2.133298, 0, 40),
        ("hall8", 41.3559, 2.136817, 0, 105),
        ("hall81", 41.3559, 2.136817, 1, 105),
    ]

    private static var exampleVenue: Venue {
        let origin = Venue.Origin(latitude: 41.3550, longitude: 2.1320, bearing: 0)
        var venue = Venue(
            name: "Trade fair campus (example)",
            origin: origin,
            floors: [Venue.Floor(level: 0, name: "ground", elevation: 0),
                     Venue.Floor(level: 1, name: "upper", elevation: 6)],
            defaults: Venue.Defaults(txPower: -59, pathLossExponent: 2, z: 3))
        let frame = LocalFrame(origin: origin.coordinate, bearing: origin.bearing)
        func decimetres(_ value: Double) -> Double { (value * 10).rounded() / 10 }
        for hall in halls {
            let coordinate = GeoCoordinate(latitude: hall.latitude, longitude: hall.longitude)
            let center = frame.planarPoint(for: coordinate)
            venue.places.append(Venue.Place(id: hall.id, floor: hall.floor,
                                            shape: .circle(center: center, radius: hall.radius, coordinate: coordinate)))
            // Beacons halfway between the centre and the edge: three per hall, four per floor of
            // hall 8 (turned by 45° upstairs); none for the duplicate geofence of hall 7.
            guard hall.id != "hall7smaller" else { continue }
            let number = Int(hall.id.dropFirst(4).prefix(1)) ?? 0
            let angles: [Double] = hall.id == "hall8" ? [0, 90, 180, 270]
                : hall.id == "hall81" ? [45, 135, 225, 315] : [90, 210, 330]
            let firstMinor = hall.id == "hall81" ? 5 : 1
            for (index, angle) in angles.enumerated() {
                let minor = firstMinor + index
                let radians = angle * Double.pi / 180
                venue.beacons.append(Venue.Beacon(
                    id: "h\(number)-\(minor)",
                    iBeacon: IBeaconIdentity(uuid: exampleUUID, major: UInt16(number), minor: UInt16(minor)),
                    x: decimetres(center.x + hall.radius / 2 * cos(radians)),
                    y: decimetres(center.y + hall.radius / 2 * sin(radians)),
                    z: 3, floor: hall.floor, txPower: -59))
            }
        }
        return venue
    }
}
