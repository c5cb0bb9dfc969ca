/// How positions are computed: one of the named algorithms, a solver of the caller's, or several
/// of them fused by trusts — IBeaconLocation's `setAlgorithm`, `customAlgorithm` and
/// `setAlgorithmsAndTrusts`, for a ``LocationEngine`` or a ``PositioningSetup``.
///
/// ```swift
/// // EPTA and PowerCenter, PowerCenter twice as trusted (IBeaconLocation's own example):
/// let method = PositioningMethod.fusion([.init(.algorithm(.epta), trust: 5), .init(.algorithm(.powerCenter), trust: 10)])
/// let engine = LocationEngine(configuration: .init(venue: venue, method: method))
///
/// // A solver of your own, built for the venue whenever the engine is (re)configured:
/// let custom = PositioningMethod.solver(name: "strongest") { venue in StrongestBeacon(venue: venue) }
/// ```
public enum PositioningMethod: Sendable {
    /// One of the algorithms Whereabouts offers by name.
    case algorithm(PositioningAlgorithm)
    /// A solver of the caller's, made for the venue (as it stands when the setup is built).
    case solver(name: String, make: @Sendable (PositioningVenue) -> any PositionSolver)
    /// Several methods, each answer weighted by its trust (``TrustFusion``: trusts normalised to
    /// sum 1; all zero means equal).
    case fusion([Member])

    /// One method of a fusion and its trust.
    public struct Member: Sendable {
        /// The method.
        public var method: PositioningMethod
        /// Its trust (only the ratios between members matter).
        public var trust: Double

        /// Creates a member.
        public init(_ method: PositioningMethod, trust: Double) {
            self.method = method
            self.trust = trust
        }
    }

    /// The name fixes carry: the algorithm's, the solver's, or `"fusion"`.
    public var name: String {
        switch self {
        case .algorithm(let algorithm): algorithm.rawValue
        case .solver(let name, _): name
        case .fusion: "fusion"
        }
    }

    /// Whether some member learns from a training recording and cannot run without one.
    public var requiresTraining: Bool {
        switch self {
        case .algorithm(let algorithm): algorithm.requiresTraining
        case .solver: false
        case .fusion(let members): members.contains { $0.method.requiresTraining }
        }
    }

    /// Builds the method for a venue. A named algorithm is built as
    /// ``PositioningAlgorithm/setup(venue:training:configuration:)`` builds it (calibrating the
    /// venue from `training` when it has true positions); a solver of the caller's and a fusion
    /// use the venue as given, each member trained on `training` when it learns.
    public func setup(venue: Venue, training: [Scan] = [], configuration: LocatorConfiguration = LocatorConfiguration())
        -> PositioningSetup {
        if case .algorithm(let algorithm) = self {
            return algorithm.setup(venue: venue, training: training, configuration: configuration)
        }
        let positioning = PositioningVenue(venue)
        return PositioningSetup(venue: positioning, solver: solver(for: positioning, training: training, configuration: configuration),
                                configuration: configuration)
    }

    /// The method's solver for a venue (a fusion's members built in turn; nested fusions, which
    /// add nothing, are built as they are given).
    public func solver(for venue: PositioningVenue, training: [Scan] = [],
                       configuration: LocatorConfiguration = LocatorConfiguration()) -> any PositionSolver {
        switch self {
        case .algorithm(let algorithm):
            return algorithm.solver(for: venue, training: training, configuration: configuration)
        case .solver(_, let make):
            return make(venue)
        case .fusion(let members):
            return TrustFusion(members.map {
                TrustFusion.Member(solver: $0.method.solver(for: venue, training: training, configuration: configuration),
                                   trust: $0.trust)
            })
        }
    }
}
