import Foundation

/// A local east-north-up frame anchored at a WGS84 origin and rotated by a bearing: the frame in
/// which a venue's `x`, `y` and `z` are given.
///
/// The conversion goes through Earth-centred Earth-fixed coordinates on the WGS84 ellipsoid, so it
/// is exact at any distance a building spans (well below a millimetre over a kilometre).
///
/// ```swift
/// let frame = LocalFrame(origin: GeoCoordinate(latitude: 41.3535, longitude: 2.1291), bearing: 0)
/// let p = frame.planarPoint(for: GeoCoordinate(latitude: 41.3544, longitude: 2.1299))
/// let back = frame.coordinate(for: p)   // the same coordinate again
/// ```
public struct LocalFrame: Hashable, Sendable {
    /// The point of the frame at x = 0, y = 0, z = 0 (on the ellipsoid).
    public var origin: GeoCoordinate
    /// Clockwise angle in degrees from true north to the frame's +y axis.
    public var bearing: Double
    /// How many metres one unit of the frame measures (1 for metres, 0.3048 for feet).
    public var metresPerUnit: Double

    /// Creates a frame at `origin` whose +y axis points `bearing` degrees clockwise from north.
    public init(origin: GeoCoordinate, bearing: Double = 0, metresPerUnit: Double = 1) {
        self.origin = origin
        self.bearing = bearing
        self.metresPerUnit = metresPerUnit
    }

    // WGS84 ellipsoid.
    private static let a = 6_378_137.0
    private static let f = 1 / 298.257223563
    private static let e2 = f * (2 - f)

    private static func ecef(latitude: Double, longitude: Double, height: Double) -> (Double, Double, Double) {
        let phi = latitude.radians, lambda = longitude.radians
        let n = a / (1 - e2 * sin(phi) * sin(phi)).squareRoot()
        return ((n + height) * cos(phi) * cos(lambda),
                (n + height) * cos(phi) * sin(lambda),
                (n * (1 - e2) + height) * sin(phi))
    }

    private static func geodetic(x: Double, y: Double, z: Double) -> (latitude: Double, longitude: Double, height: Double) {
        let lambda = atan2(y, x)
        let p = (x * x + y * y).squareRoot()
        var phi = atan2(z, p * (1 - e2))
        var height = 0.0
        for _ in 0..<8 {
            let n = a / (1 - e2 * sin(phi) * sin(phi)).squareRoot()
            height = p / cos(phi) - n
            phi = atan2(z, p * (1 - e2 * n / (n + height)))
        }
        return (phi.degrees, lambda.degrees, height)
    }

    /// The east, north and up offsets in metres of a geodetic point from the origin.
    private func enu(of coordinate: GeoCoordinate, height: Double) -> (e: Double, n: Double, u: Double) {
        let (x0, y0, z0) = Self.ecef(latitude: origin.latitude, longitude: origin.longitude, height: 0)
        let (x, y, z) = Self.ecef(latitude: coordinate.latitude, longitude: coordinate.longitude, height: height)
        let dx = x - x0, dy = y - y0, dz = z - z0
        let phi = origin.latitude.radians, lambda = origin.longitude.radians
        let e = -sin(lambda) * dx + cos(lambda) * dy
        let n = -sin(phi) * cos(lambda) * dx - sin(phi) * sin(lambda) * dy + cos(phi) * dz
        let u = cos(phi) * cos(lambda) * dx + cos(phi) * sin(lambda) * dy + sin(phi) * dz
        return (e, n, u)
    }

    /// The point in this frame (venue units) of a coordinate at height `height` metres above the ellipsoid.
    public func spatialPoint(for coordinate: GeoCoordinate, height: Double = 0) -> SpatialPoint {
        let (e, n, u) = enu(of: coordinate, height: height)
        // Rotate east/north into the frame whose +y is `bearing` clockwise from north.
        let b = bearing.radians
        let x = e * cos(b) - n * sin(b)
        let y = e * sin(b) + n * cos(b)
        return SpatialPoint(x: x / metresPerUnit, y: y / metresPerUnit, z: u / metresPerUnit)
    }

    /// The point on the plan (venue units) of a coordinate on the ellipsoid.
    public func planarPoint(for coordinate: GeoCoordinate) -> PlanarPoint {
        spatialPoint(for: coordinate).planar
    }

    /// The coordinate of a point of this frame (venue units); `z` is the height above the origin's tangent plane.
    public func coordinate(for point: SpatialPoint) -> (coordinate: GeoCoordinate, height: Double) {
        let b = bearing.radians
        let x = point.x * metresPerUnit, y = point.y * metresPerUnit, u = point.z * metresPerUnit
        let e = x * cos(b) + y * sin(b)
        let n = -x * sin(b) + y * cos(b)
        let phi = origin.latitude.radians, lambda = origin.longitude.radians
        let dx = -sin(lambda) * e - sin(phi) * cos(lambda) * n + cos(phi) * cos(lambda) * u
        let dy = cos(lambda) * e - sin(phi) * sin(lambda) * n + cos(phi) * sin(lambda) * u
        let dz = cos(phi) * n + sin(phi) * u
        let (x0, y0, z0) = Self.ecef(latitude: origin.latitude, longitude: origin.longitude, height: 0)
        let g = Self.geodetic(x: x0 + dx, y: y0 + dy, z: z0 + dz)
        return (GeoCoordinate(latitude: g.latitude, longitude: g.longitude), g.height)
    }

    /// The coordinate of a point on the plan (venue units), at the origin's tangent plane.
    public func coordinate(for point: PlanarPoint) -> GeoCoordinate {
        coordinate(for: SpatialPoint(x: point.x, y: point.y, z: 0)).coordinate
    }
}
