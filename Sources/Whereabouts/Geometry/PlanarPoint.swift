/// A point on a floor plan, in the venue's local frame (x east, y north), in the venue's units.
public struct PlanarPoint: Hashable, Sendable, Codable {
    /// Distance east of the venue's origin.
    public var x: Double
    /// Distance north of the venue's origin.
    public var y: Double

    /// Creates a point from its east (`x`) and north (`y`) coordinates.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// The straight-line distance to another point on the plan.
    public func distance(to other: PlanarPoint) -> Double {
        let dx = x - other.x, dy = y - other.y
        return (dx * dx + dy * dy).squareRoot()
    }
}
