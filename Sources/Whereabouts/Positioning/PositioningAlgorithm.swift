/// The positioning algorithms that `whereabouts locate` and `eval` offer by name.
public enum PositioningAlgorithm: String, CaseIterable, Sendable {
    /// ``WeightedCentroid`` of the strongest beacons.
    case centroid
    /// ``FingerprintSolver``: k nearest fingerprints of a training recording.
    case knn

    /// Whether the algorithm learns from a training recording with truth and cannot run without one.
    public var requiresTraining: Bool {
        switch self {
        case .knn: true
        case .centroid: false
        }
    }

    /// Builds the algorithm's solver for a venue; `training` is a recording with truth for the
    /// algorithms that learn (ignored by the others).
    public func solver(for venue: PositioningVenue, training: [Scan] = []) -> any PositionSolver {
        switch self {
        case .centroid: WeightedCentroid(venue: venue)
        case .knn: FingerprintSolver(venue: venue, training: training)
        }
    }
}
