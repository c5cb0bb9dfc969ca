/// Where a device was at a moment: the output of the positioning engine and of `whereabouts locate`.
public struct Fix: Hashable, Sendable {
    /// Time of the fix, seconds (the clock of the scans).
    public var time: Double
    /// The device located.
    public var device: String?
    /// The position, venue units.
    public var point: SpatialPoint
    /// The floor level, when known.
    public var floor: Int?
    /// Radius expected to hold the truth 68 % of the time, venue units (see ``PositionEstimate``).
    public var accuracy: Double
    /// Latitude and longitude, when the venue has an origin.
    public var coordinate: GeoCoordinate?
    /// The venue ids of the beacons that contributed.
    public var beacons: [String]
    /// The name of the algorithm that produced the fix.
    public var method: String
    /// The probability of each place of the fix's floor holding at least 10⁻³ of it, most
    /// probable first, when the algorithm holds a posterior over positions (`posterior`: the
    /// posterior's mass in each place); `nil` otherwise, and ``PlaceContainment`` then reads the
    /// fix as a Gaussian of its ``accuracy``. Written as a fix's `places` (``FixCoding``).
    public var placeProbabilities: [PlaceEstimate]?
    /// The probability that the device is on ``floor`` (0…1), when the algorithm holds the floor
    /// in a posterior (`posterior` in a venue with beacons on several floors); `nil` otherwise.
    /// Written as a fix's `floorProbability` (``FixCoding``).
    public var floorProbability: Double?

    /// Creates a fix.
    public init(time: Double, device: String? = nil, point: SpatialPoint, floor: Int? = nil, accuracy: Double,
                coordinate: GeoCoordinate? = nil, beacons: [String] = [], method: String,
                placeProbabilities: [PlaceEstimate]? = nil, floorProbability: Double? = nil) {
        self.floorProbability = floorProbability
        self.time = time
        self.device = device
        self.point = point
        self.floor = floor
        self.accuracy = accuracy
        self.coordinate = coordinate
        self.beacons = beacons
        self.method = method
        self.placeProbabilities = placeProbabilities
    }
}
