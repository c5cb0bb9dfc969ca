/// The positioning algorithms that `whereabouts locate` and `eval` offer by name.
public enum PositioningAlgorithm: String, CaseIterable, Sendable {
    /// ``DefaultSolver``: fingerprints (when trained), multilateration and the centroid fused,
    /// with a measured accuracy radius. The best Whereabouts can do.
    case `default`
    /// ``WeightedCentroid`` of the strongest beacons.
    case centroid
    /// ``PowerCenter``: the radical centre of the best three ranges.
    case powerCenter = "powercenter"
    /// ``SphereIntersection``: three-sphere trilateration of the best three ranges.
    case sphereIntersection = "sphereintersection"
    /// ``EPTA``: the enhanced positioning trilateration algorithm on the best three ranges.
    case epta
    /// ``Multilateration``: robust weighted least squares over every range.
    case multilateration
    /// ``FingerprintSolver``: k nearest fingerprints of a training recording.
    case knn
    /// ``PosteriorSolver``: each scan's likelihood over a grid of the venue under a radio map
    /// (the calibrated model, corrected by the survey when trained), filtered over time with a
    /// walking motion model. Issue 53's foundation; not yet the default.
    case posterior

    /// Whether the algorithm learns from a training recording with truth and cannot run without one.
    public var requiresTraining: Bool {
        switch self {
        case .knn: true
        case .default, .centroid, .powerCenter, .sphereIntersection, .epta, .multilateration, .posterior: false
        }
    }

    /// Builds the algorithm's solver for a venue; `training` is a recording with truth for the
    /// algorithms that learn (ignored by the others), `configuration` the per-device pipeline the
    /// solver will run in. See also ``setup(venue:training:configuration:)``,
    /// which also calibrates the venue from the training data.
    public func solver(for venue: PositioningVenue, training: [Scan] = [],
                       configuration: LocatorConfiguration = LocatorConfiguration()) -> any PositionSolver {
        switch self {
        case .default: DefaultSolver(venue: venue, training: training, configuration: configuration)
        case .centroid: WeightedCentroid(venue: venue)
        case .powerCenter: PowerCenter(venue: venue)
        case .sphereIntersection: SphereIntersection(venue: venue)
        case .epta: EPTA(venue: venue)
        case .multilateration: Multilateration(venue: venue)
        case .knn: FingerprintSolver(venue: venue, training: training)
        case .posterior: PosteriorSolver(venue: venue, training: training, configuration: configuration)
        }
    }
}
