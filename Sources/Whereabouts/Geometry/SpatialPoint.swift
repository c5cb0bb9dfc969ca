/// A point in the venue's local frame with height (x east, y north, z up), in the venue's units.
public struct SpatialPoint: Hashable, Sendable, Codable {
    /// Distance east of the venue's origin.
    public var x: Double
    /// Distance north of the venue's origin.
    public var y: Double
    /// Height above the venue's reference level.
    public var z: Double

    /// Creates a point from its east, north and up coordinates.
    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// The point's projection on the floor plan.
    public var planar: PlanarPoint { PlanarPoint(x: x, y: y) }

    /// The straight-line (3-D) distance to another point.
    public func distance(to other: SpatialPoint) -> Double {
        let dx = x - other.x, dy = y - other.y, dz = z - other.z
        return (dx * dx + dy * dy + dz * dz).squareRoot()
    }
}
