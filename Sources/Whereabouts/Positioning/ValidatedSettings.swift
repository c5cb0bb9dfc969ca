/// The settings of the per-device pipeline (RSSI filter, motion tracking, radius factors) a
/// solver validated itself with, and how well it did: what a solver that measures its own
/// settings (``DefaultSolver``) reports through
/// ``PositionSolver/validatedSettings``, so that a setup or a front end can hand the choice on
/// without knowing the solver's type.
///
/// ```swift
/// let setup = PositioningAlgorithm.default.setup(venue: venue, training: survey)
/// if let validated = setup.solver.validatedSettings {
///     print(validated.tracking?.model.rawValue ?? "none", validated.validationError ?? .nan)
/// }
/// ```
public struct ValidatedSettings: Sendable {
    /// The per-beacon RSSI filter validated with, or `nil` for each beacon's latest reading.
    public var filter: BuiltInRSSIFilter?
    /// The tracking validated with, or `nil` for none.
    public var tracking: MotionTracker.Configuration?
    /// The factor the tracker's radius needs to hold the truth 68 % of the time, when it tracks
    /// and it was measured.
    public var trackedAccuracyScale: Double?
    /// The mean error of the validation replay, venue units; `nil` when no fix was scored.
    public var validationError: Double?
    /// The factor the radius of a fix needs, on top of the solver's own, for a device whose RSSI
    /// offset is learnt online (``LocatorConfiguration/unknownDeviceAccuracyScale``); `nil` when
    /// it was not measured.
    public var unknownDeviceAccuracyScale: Double?
    /// Whether the validation replayed a simulated survey of the venue (no training with true
    /// positions was given) rather than held-out parts of the training recording. Its error then
    /// measures a walk between the venue's places under persistent shadowing: it ranks the
    /// candidates; it does not predict a real recording's error.
    public var isSimulatedSurvey: Bool
    /// The beacon timeout the solver needs (``LocatorConfiguration/beaconTimeout``), when it
    /// needs one: 0 for a solver that weighs each scan's own readings once (``PosteriorSolver``).
    public var beaconTimeout: Double?
    /// Whether the solver chooses each fix's floor itself, from the beacons of every floor
    /// (``PosteriorSolver`` with beacons on several floors): the locator's floor selection,
    /// which keeps one floor's beacons only, is then off
    /// (``LocatorConfiguration/floorSelection``).
    public var choosesFloor: Bool

    /// Creates a report.
    public init(filter: BuiltInRSSIFilter?, tracking: MotionTracker.Configuration?, trackedAccuracyScale: Double? = nil,
                validationError: Double? = nil, unknownDeviceAccuracyScale: Double? = nil, isSimulatedSurvey: Bool = false,
                beaconTimeout: Double? = nil, choosesFloor: Bool = false) {
        self.choosesFloor = choosesFloor
        self.beaconTimeout = beaconTimeout
        self.unknownDeviceAccuracyScale = unknownDeviceAccuracyScale
        self.isSimulatedSurvey = isSimulatedSurvey
        self.filter = filter
        self.tracking = tracking
        self.trackedAccuracyScale = trackedAccuracyScale
        self.validationError = validationError
    }
}
