import Foundation

extension Venue.Place {
    /// A circular place (a geofence) given by its centre's latitude and longitude and a radius in
    /// metres — Hekaerge's `HekaergeLocation` — placed in `frame` (a venue's
    /// ``Venue/localFrame``, or ``LocalFrame/init(centredOn:)`` when there is no venue file).
    ///
    /// ```swift
    /// let frame = LocalFrame(centredOn: [GeoCoordinate(latitude: 41.353485, longitude: 2.129052)])!
    /// let hall1 = Venue.Place(id: "hall1", coordinate: GeoCoordinate(latitude: 41.353485, longitude: 2.129052),
    ///                         radius: 64, floor: 0, in: frame)
    /// ```
    public init(id: String, coordinate: GeoCoordinate, radius: Double, floor: Int = 0, in frame: LocalFrame) {
        let metresPerUnit = frame.metresPerUnit > 0 && frame.metresPerUnit.isFinite ? frame.metresPerUnit : 1
        self.init(id: id, floor: floor,
                  shape: .circle(center: frame.planarPoint(for: coordinate), radius: radius / metresPerUnit,
                                 coordinate: coordinate))
    }
}

extension LocalFrame {
    /// A frame in metres, north up, at the mean of `coordinates` (their latitudes and longitudes
    /// averaged; the longitudes around the first one, so that places either side of the
    /// antimeridian average right), or `nil` when there are none or one is invalid.
    public init?(centredOn coordinates: [GeoCoordinate]) {
        guard let first = coordinates.first, coordinates.allSatisfy(\.isValid) else { return nil }
        var latitude = 0.0, longitude = 0.0
        for coordinate in coordinates {
            latitude += coordinate.latitude
            var delta = coordinate.longitude - first.longitude
            if delta > 180 { delta -= 360 } else if delta < -180 { delta += 360 }
            longitude += first.longitude + delta
        }
        let count = Double(coordinates.count)
        var meanLongitude = longitude / count
        if meanLongitude > 180 { meanLongitude -= 360 } else if meanLongitude < -180 { meanLongitude += 360 }
        self.init(origin: GeoCoordinate(latitude: latitude / count, longitude: meanLongitude))
    }
}
