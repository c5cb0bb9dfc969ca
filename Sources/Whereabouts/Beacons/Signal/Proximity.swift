/// How close a beacon is, in the four classes of CoreLocation's `CLProximity`, ordered from the
/// closest: `immediate < near < far < unknown`, so sorting ranks the closest first.
///
/// CoreLocation's meanings, which the default thresholds follow:
/// - ``immediate``: very close to the beacon, within about half a metre (the device is
///   practically touching it);
/// - ``near``: about one to three metres away;
/// - ``far``: further away, or the signal is weak and the distance cannot be trusted;
/// - ``unknown``: the distance could not be determined.
///
/// ```swift
/// Proximity(distance: 0.3)                       // .immediate
/// Proximity(distance: 2)                         // .near
/// Proximity(distance: nil)                       // .unknown
/// [Proximity.far, .immediate, .unknown].sorted() // [.immediate, .far, .unknown]
/// ```
public enum Proximity: String, Hashable, Sendable, CaseIterable, Comparable {
    /// Within ``Thresholds/immediate`` (0.5 m by default).
    case immediate
    /// Within ``Thresholds/near`` (3 m by default).
    case near
    /// At or beyond ``Thresholds/near``.
    case far
    /// No usable distance.
    case unknown

    /// The distances (metres) that separate the classes: `d < immediate` is ``Proximity/immediate``,
    /// `d < near` is ``Proximity/near``, anything further ``Proximity/far``.
    public struct Thresholds: Hashable, Sendable {
        /// The upper bound of ``Proximity/immediate``, 0.5 m by default.
        public let immediate: Double
        /// The upper bound of ``Proximity/near``, 3 m by default.
        public let near: Double

        /// The default thresholds, 0.5 m and 3 m.
        public init() {
            immediate = 0.5
            near = 3
        }

        /// Custom thresholds, or `nil` unless `0 < immediate ≤ near` and both are finite.
        public init?(immediate: Double, near: Double) {
            guard immediate > 0, immediate <= near, near.isFinite else { return nil }
            self.immediate = immediate
            self.near = near
        }
    }

    /// The class of a distance in metres: ``unknown`` when it is `nil`, negative or not finite.
    public init(distance: Double?, thresholds: Thresholds = Thresholds()) {
        guard let distance, distance >= 0, distance.isFinite else {
            self = .unknown
            return
        }
        if distance < thresholds.immediate {
            self = .immediate
        } else if distance < thresholds.near {
            self = .near
        } else {
            self = .far
        }
    }

    /// The class of a range estimate (``unknown`` for `nil`).
    public init(_ range: RangeEstimate?, thresholds: Thresholds = Thresholds()) {
        self.init(distance: range?.distance, thresholds: thresholds)
    }

    private var closeness: Int {
        switch self {
        case .immediate: 0
        case .near: 1
        case .far: 2
        case .unknown: 3
        }
    }

    /// Whether `lhs` is closer than `rhs`; ``unknown`` comes last.
    public static func < (lhs: Proximity, rhs: Proximity) -> Bool {
        lhs.closeness < rhs.closeness
    }
}
