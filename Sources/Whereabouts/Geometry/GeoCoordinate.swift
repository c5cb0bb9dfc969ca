import Foundation

/// A position on the WGS84 ellipsoid, in degrees.
///
/// ```swift
/// let hall1 = GeoCoordinate(latitude: 41.353485, longitude: 2.129052)
/// let hall2 = GeoCoordinate(latitude: 41.354400, longitude: 2.129854)
/// hall1.distance(to: hall2)   // ≈ 121.6 m
/// ```
public struct GeoCoordinate: Hashable, Sendable, Codable {
    /// Latitude in degrees, −90…90, positive north.
    public var latitude: Double
    /// Longitude in degrees, −180…180, positive east.
    public var longitude: Double

    /// Creates a coordinate from a latitude and a longitude in degrees.
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Whether the latitude lies in −90…90 and the longitude in −180…180 (and neither is NaN).
    public var isValid: Bool {
        (-90.0...90.0).contains(latitude) && (-180.0...180.0).contains(longitude)
    }

    /// The mean Earth radius (IUGG), in metres, used by ``distance(to:)``.
    public static let meanEarthRadius = 6_371_008.8

    /// The great-circle distance to another coordinate, in metres, by the haversine formula on a
    /// sphere of the mean Earth radius (error below 0.5 % against the ellipsoid).
    public func distance(to other: GeoCoordinate) -> Double {
        let phi1 = latitude.radians, phi2 = other.latitude.radians
        let dPhi = phi2 - phi1
        let dLambda = (other.longitude - longitude).radians
        let a = sin(dPhi / 2) * sin(dPhi / 2) + cos(phi1) * cos(phi2) * sin(dLambda / 2) * sin(dLambda / 2)
        return 2 * Self.meanEarthRadius * asin(min(1, a.squareRoot()))
    }
}

extension Double {
    @inline(__always) var radians: Double { self * .pi / 180 }
    @inline(__always) var degrees: Double { self * 180 / .pi }
}
