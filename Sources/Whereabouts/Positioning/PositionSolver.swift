/// An algorithm that turns an ``Observation`` into a ``PositionEstimate``, or into nothing when the
/// observation cannot support one (too few beacons, degenerate geometry).
///
/// Solvers are value types built once for a venue (see ``PositioningVenue``) and then called for
/// every observation; `locate` must not trap, and never return NaN, an infinite coordinate or a
/// point far outside the venue. Write your own by conforming to the protocol:
///
/// ```swift
/// struct StrongestBeacon: PositionSolver {
///     let venue: PositioningVenue
///     var name: String { "strongest" }
///     func locate(_ observation: Observation) -> PositionEstimate? {
///         guard let range = observation.ranges.min(by: { $0.rssi > $1.rssi }) else { return nil }
///         return PositionEstimate(point: range.position, accuracy: max(range.distance, 1), beaconCount: 1)
///     }
/// }
/// ```
public protocol PositionSolver: Sendable {
    /// A short name for reports and `--algorithm` (lower case, no spaces).
    var name: String { get }

    /// The estimate for one observation, or `nil` when the solver cannot give one.
    func locate(_ observation: Observation) -> PositionEstimate?

    /// The settings of the per-device pipeline the solver validated itself with, when it
    /// measures them (``DefaultSolver`` does; by default `nil`).
    var validatedSettings: ValidatedSettings? { get }

    /// The estimate for the next observation of one device's track, for a solver that keeps
    /// state from one observation to the next (a filter over positions, ``PosteriorSolver``).
    /// A ``Locator`` calls it rather than ``locate(_:)`` and keeps one solver per device and
    /// track. By default ``locate(_:)``: the solver keeps nothing.
    mutating func update(_ observation: Observation) -> PositionEstimate?

    /// Forgets what ``update(_:)`` kept: a new track starts. By default nothing.
    mutating func resetTrack()

    /// Forgets the track and starts keeping the next one, to smooth it with the solver's own
    /// model (``PosteriorSolver``: its posterior given the scans after each fix too); returns
    /// whether the solver smooths its tracks itself. By default `false`: a ``Locator`` smooths
    /// the fixes with its tracking model.
    mutating func startSmoothing() -> Bool

    /// The estimates of the track since ``startSmoothing()``, one for each estimate
    /// ``update(_:)`` returned, in order: as it returned it and smoothed; stops keeping the
    /// track. By default none.
    mutating func finishSmoothing() -> [(filtered: PositionEstimate, smoothed: PositionEstimate)]

    /// Forgets the track and starts keeping its steps for a fixed-lag smoother of the solver's
    /// own model, until the track is reset: ``lagSmoothedEstimate(at:)`` then gives each
    /// estimate smoothed by the observations after it that came in, as a pipeline that reports
    /// a fixed time late can. Returns whether the solver does; by default `false`: a
    /// ``Locator`` smooths the fixes with its tracking model.
    mutating func startLagSmoothing() -> Bool

    /// The estimate ``update(_:)`` returned for the observation at `time` (the oldest kept of
    /// that time), as it returned it and smoothed by every observation kept after it; lets go
    /// of it and of those before it. `nil` when none of that time is kept (and by default).
    mutating func lagSmoothedEstimate(at time: Double) -> (filtered: PositionEstimate, smoothed: PositionEstimate)?
}

extension PositionSolver {
    /// `nil`: the solver does not validate settings of its own.
    public var validatedSettings: ValidatedSettings? { nil }

    /// ``locate(_:)``: the solver keeps no state.
    public mutating func update(_ observation: Observation) -> PositionEstimate? { locate(observation) }

    /// Nothing to forget.
    public mutating func resetTrack() {}

    /// `false`: the solver does not smooth its tracks.
    public mutating func startSmoothing() -> Bool { false }

    /// None.
    public mutating func finishSmoothing() -> [(filtered: PositionEstimate, smoothed: PositionEstimate)] { [] }

    /// `false`: the solver does not smooth its tracks.
    public mutating func startLagSmoothing() -> Bool { false }

    /// `nil`: nothing kept.
    public mutating func lagSmoothedEstimate(at time: Double) -> (filtered: PositionEstimate, smoothed: PositionEstimate)? { nil }
}

/// What solvers need to know about a venue, computed once: the beacons' positions, floors and
/// radio calibration, and the extent that bounds every answer.
///
/// ```swift
/// let venue = try VenueFile.read(from: url)
/// let positioning = PositioningVenue(venue)
/// positioning.bounds(floor: 0)   // the beacons' extent plus a margin
/// ```
public struct PositioningVenue: Sendable {
    /// The venue.
    public let venue: Venue
    /// Resolves readings to beacon indices.
    public let directory: BeaconDirectory
    /// Position of each beacon (`nil` when unknown), by beacon index.
    public let positions: [SpatialPoint?]
    /// Floor level of each beacon, by beacon index.
    public let floors: [Int]
    /// RSSI at 1 m of each beacon (its own, else the venue's default), dBm.
    public let txPowers: [Double]
    /// Path-loss exponent of each beacon (its own, else the venue's default).
    public let pathLossExponents: [Double]
    /// How far beyond the beacons' extent an answer may lie, venue units.
    public let margin: Double
    /// Height of the receiver above its floor assumed when none is known, venue units.
    public let receiverHeight: Double
    /// The extent of the placed beacons (and polygon places) over all floors, before the margin.
    public let extent: Extent?

    /// An axis-aligned rectangle on the plan.
    public struct Extent: Hashable, Sendable {
        /// West edge.
        public var minX: Double
        /// South edge.
        public var minY: Double
        /// East edge.
        public var maxX: Double
        /// North edge.
        public var maxY: Double

        /// Creates an extent.
        public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
            self.minX = minX
            self.minY = minY
            self.maxX = maxX
            self.maxY = maxY
        }

        /// The smallest extent holding every point, or `nil` when there are none.
        init?(enclosing points: some Sequence<PlanarPoint>) {
            var iterator = points.makeIterator()
            guard let first = iterator.next() else { return nil }
            self.init(minX: first.x, minY: first.y, maxX: first.x, maxY: first.y)
            while let point = iterator.next() {
                minX = min(minX, point.x)
                minY = min(minY, point.y)
                maxX = max(maxX, point.x)
                maxY = max(maxY, point.y)
            }
        }

        /// The same extent grown by `margin` on every side.
        public func inset(by margin: Double) -> Extent {
            Extent(minX: minX - margin, minY: minY - margin, maxX: maxX + margin, maxY: maxY + margin)
        }

        /// Whether a point lies inside (edges included).
        public func contains(_ point: PlanarPoint) -> Bool {
            point.x >= minX && point.x <= maxX && point.y >= minY && point.y <= maxY
        }

        /// The nearest point of the extent to `point` (the point itself when inside).
        public func clamped(_ point: PlanarPoint) -> PlanarPoint {
            PlanarPoint(x: min(max(point.x, minX), maxX), y: min(max(point.y, minY), maxY))
        }
    }

    /// Indexes a venue for solvers. `margin` defaults to 10 % of the extent's larger side, at least
    /// 2 units. `receiverHeight` defaults to 1.2 m (in venue units) above the floor when the venue
    /// knows its beacons' heights (some beacon has a `z`, or `defaults.z` is set); otherwise to the
    /// beacons' own height, so that ranges are taken as distances on the plan.
    public init(_ venue: Venue, margin: Double? = nil, receiverHeight: Double? = nil) {
        self.venue = venue
        directory = BeaconDirectory(venue)
        positions = venue.beacons.map { $0.position(defaults: venue.defaults) }
        floors = venue.beacons.map { $0.floor ?? 0 }
        txPowers = venue.beacons.map { $0.txPower ?? venue.defaults.txPower }
        pathLossExponents = venue.beacons.map { $0.pathLossExponent ?? venue.defaults.pathLossExponent }
        var points = positions.compactMap { $0?.planar }
        for place in venue.places {
            if case .polygon(let vertices) = place.shape { points += vertices }
        }
        if let extent = Extent(enclosing: points) {
            self.extent = extent
            self.margin = margin ?? max(2, 0.1 * max(extent.maxX - extent.minX, extent.maxY - extent.minY))
        } else {
            extent = nil
            self.margin = margin ?? 2
        }
        let heightsKnown = venue.beacons.contains { $0.z != nil } || venue.defaults.z != 0
        self.receiverHeight = receiverHeight ?? (heightsKnown ? 1.2 / (venue.units.metres ?? 1) : venue.defaults.z)
    }

    /// The region every answer must lie in: the extent grown by the margin, or `nil` when no
    /// beacon has a position.
    public var bounds: Extent? { extent?.inset(by: margin) }
}
