import Foundation

/// A solver's answer: a point and how far from it the truth probably is.
///
/// ``accuracy`` is a radius in venue units meant to hold the true position with probability
/// 68 % (a "1σ circle"), the convention of CoreLocation's `horizontalAccuracy` and of Android's
/// `Location.getAccuracy()`. Whereabouts measures how well it keeps that promise with
/// `whereabouts eval`.
public struct PositionEstimate: Hashable, Sendable {
    /// The estimated position, venue units. `z` is the receiver height the solver assumed or found.
    public var point: SpatialPoint
    /// Radius around ``point`` expected to hold the truth 68 % of the time, venue units.
    public var accuracy: Double
    /// How many beacons the estimate used.
    public var beaconCount: Int
    /// The floor the solver placed it on, when it knows one the observation does not say (a
    /// tracker coasting through a scan that heard nothing); `nil`: the observation's.
    public var floor: Int?
    /// The probability of each place of the floor, when the solver holds a posterior over
    /// positions (``PosteriorSolver``: its mass in each place); `nil` otherwise.
    public var placeProbabilities: [PlaceEstimate]?
    /// The probability that the device is on ``floor``, when the solver holds the floor in its
    /// posterior (``PosteriorSolver`` in a venue with beacons on several floors); `nil` otherwise.
    public var floorProbability: Double?

    /// Creates an estimate.
    public init(point: SpatialPoint, accuracy: Double, beaconCount: Int, floor: Int? = nil,
                placeProbabilities: [PlaceEstimate]? = nil, floorProbability: Double? = nil) {
        self.floorProbability = floorProbability
        self.point = point
        self.accuracy = accuracy
        self.beaconCount = beaconCount
        self.floor = floor
        self.placeProbabilities = placeProbabilities
    }

    /// The 68 % radius of a circular 2-D Gaussian in its per-axis standard deviations,
    /// √(−2 ln 0.32) ≈ 1.5096: P(r ≤ ρ) = 1 − exp(−ρ²/2σ²) = 0.68. An ``accuracy`` divided by it is
    /// the per-axis σ of the position.
    public static let radiusPerStandardDeviation = (-2 * log(0.32)).squareRoot()

    /// Whether every coordinate and the accuracy are finite, and the accuracy is not negative.
    public var isFinite: Bool {
        point.x.isFinite && point.y.isFinite && point.z.isFinite && accuracy.isFinite && accuracy >= 0
    }
}
