extension DefaultSolver {
    /// A survey of the venue simulated with its own calibration: a walk at 1.2 m/s through spots
    /// drawn over the venue's places (or each floor's beacons' extent, see ``SurveyArea``), each
    /// the nearest of four draws to the last, standing 4 s at each, a scan a second: 300 spots,
    /// or fewer when their walk would last more than 3,000 s (a large venue). The filters and
    /// trackers are tried on its walks as well as on its stops. Its radio adds to the
    /// configuration's RSSI noise a persistent shadowing (σ 4 dB, changing over 2 m): what the
    /// venue's calibration cannot know about a spot, which a phone standing there keeps and no
    /// averaging removes.
    static func simulatedSurvey(of venue: PositioningVenue, configuration: LocatorConfiguration) -> [Scan] {
        guard let area = SurveyArea(venue: venue) else { return [] }
        let metres = venue.venue.units.metres ?? 1
        var radio = RadioModel(shadowing: configuration.rssiStandardDeviation, persistentShadowing: 4,
                               shadowingCorrelationDistance: 2 / metres, floorAttenuation: 15, roundsRSSI: false)
        radio.shadowingFieldSeed = 68
        let speed = Walk.defaultSpeed / metres, dwell = 4.0
        var random = SeededRandom(seed: 68)
        var waypoints: [Walk.Waypoint] = []
        var duration = 0.0
        var last: PlanarPoint?
        while waypoints.count < 300 {
            var spot = area.spot(using: &random)
            if let last {
                for _ in 1..<4 {
                    let other = area.spot(using: &random)
                    if other.point.distance(to: last) < spot.point.distance(to: last) { spot = other }
                }
                duration += spot.point.distance(to: last) / speed
            }
            duration += dwell
            if duration > 3_000, !waypoints.isEmpty { break }
            waypoints.append(Walk.Waypoint(x: spot.point.x, y: spot.point.y, floor: spot.floor, dwell: dwell))
            last = spot.point
        }
        let walk = Walk(waypoints: waypoints, speed: speed, start: 0, track: "survey")
        return Array(Simulator(venue: venue.venue, walk: walk, radio: radio, seed: 68))
    }
}
