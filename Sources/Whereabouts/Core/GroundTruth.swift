/// Where a scan really was, for evaluation and training: a position and/or a place label.
public struct GroundTruth: Hashable, Sendable {
    /// East coordinate in venue units.
    public var x: Double?
    /// North coordinate in venue units.
    public var y: Double?
    /// Height in venue units.
    public var z: Double?
    /// Floor level (a `floors[].level` of the venue).
    public var floor: Int?
    /// A room, zone or grid-cell label (a `places[].id` of the venue).
    public var place: String?

    /// Creates a ground truth; every part is optional.
    public init(x: Double? = nil, y: Double? = nil, z: Double? = nil, floor: Int? = nil, place: String? = nil) {
        self.x = x
        self.y = y
        self.z = z
        self.floor = floor
        self.place = place
    }

    /// The position on the plan, when both `x` and `y` are known.
    public var planarPoint: PlanarPoint? {
        guard let x, let y else { return nil }
        return PlanarPoint(x: x, y: y)
    }
}
