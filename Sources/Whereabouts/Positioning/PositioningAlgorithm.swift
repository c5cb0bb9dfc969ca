/// The positioning algorithms that `whereabouts locate` and `eval` offer by name.
public enum PositioningAlgorithm: String, CaseIterable, Sendable {
    /// ``WeightedCentroid`` of the strongest beacons.
    case centroid

    /// Builds the algorithm's solver for a venue; `training` is a recording with truth for the
    /// algorithms that learn (ignored by the others).
    public func solver(for venue: PositioningVenue, training: [Scan] = []) -> any PositionSolver {
        switch self {
        case .centroid: WeightedCentroid(venue: venue)
        }
    }
}
