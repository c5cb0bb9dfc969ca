/// How a ``Locator`` turns readings into observations.
public struct LocatorConfiguration: Sendable {
    /// The RSSI filter applied per beacon, or `nil` to use each beacon's latest reading as is.
    public var filter: BuiltInRSSIFilter?

    /// The default filter: a scalar Kalman filter that lets RSSI drift by 1 dB² a sample and takes
    /// readings to scatter by 3 dB (measurement noise 9 dB²). Its gain settles near 0.28, so it
    /// follows a walking person within a few seconds; room-assistant's slower default (0.008 and 4,
    /// gain 0.04) suits a device that stays put but lags a walk by 20 s and more.
    public static let defaultFilter = BuiltInRSSIFilter.kalman(KalmanRSSIFilter(processNoise: 1, measurementNoise: 9)
        ?? KalmanRSSIFilter())
    /// A beacon not heard for this many seconds drops out of the observations.
    public var beaconTimeout: Double
    /// Standard deviation of RSSI around the path-loss model, dB; it sets the ranges' uncertainty.
    public var rssiStandardDeviation: Double
    /// Ranges shorter than this are raised to it, venue units.
    public var minimumRange: Double
    /// How the floor of each observation is chosen before the solver, or `nil` to leave the
    /// observation's floor unset and give the solver every floor's beacons.
    public var floorSelection: FloorSelector.Configuration?
    /// How the solver's estimates are tracked over time, or `nil` (the default) to report them as
    /// they are. Off by default: the per-beacon RSSI filters already average over several
    /// seconds, and on the UJI training recordings (stop-and-go walks) a tracker on top added
    /// lag (mean error 2–8 % higher). Turn it on for outlier gating and a speed limit on live
    /// streams; for recordings, ``Locator/smoothedFixes(for:lag:)`` smooths offline instead. The
    /// stop-and-go model (``MotionTracker/Configuration/stopAndGo``) is meant for raw RSSI
    /// (`filter` `nil`): in the simulated ESPresense room it halves the error of a person
    /// standing, but on the UJI recordings its radius is too small (their errors persist while
    /// a phone stands, which averaging cannot remove) unless measured on training data, as
    /// ``PositioningAlgorithm/default`` does. With ``choosesFilterAndTracking`` the default
    /// algorithm picks between this configuration's filter and tracking and that pair.
    public var tracking: MotionTracker.Configuration?
    /// Each device's RSSI offset (dB, by ``Scan/device``), subtracted from its readings before
    /// filtering so that every phone reads like the calibration's average one
    /// (``CalibrationResult/offsetsByDevice``); scans without a device go under the empty name `""`.
    /// Devices not listed get 0, or learn their own with ``deviceOffsetEstimation``.
    public var deviceOffsets: [String: Double] = [:]
    /// How each device not in ``deviceOffsets`` learns its RSSI offset from its own scans
    /// (``DeviceOffsetEstimator``), or `nil` (the default here) to give such devices 0.
    /// ``PositioningAlgorithm/setup(venue:training:configuration:)`` turns it on when it calibrates
    /// the venue from training data or the venue lists devices (``Venue/devices``): those devices
    /// are known, and the others learn how they differ from them. Its zero point is measured on
    /// the training devices (0 without training). Unless ``estimatesDeviceOffsets`` is `false`.
    public var deviceOffsetEstimation: DeviceOffsetEstimator.Configuration?
    /// Whether ``PositioningAlgorithm/setup(venue:training:configuration:)`` sets
    /// ``deviceOffsetEstimation`` when it is `nil`; default `true`.
    public var estimatesDeviceOffsets = true
    /// The factor applied to the accuracy radius of each estimate of a device whose offset is
    /// learnt (``deviceOffsetEstimation``, a device not in ``deviceOffsets``): what is left of its
    /// offset while it is learnt widens its error. Default 1;
    /// ``PositioningAlgorithm/setup(venue:training:configuration:)`` sets the one the default
    /// algorithm measured (``DefaultSolver/unknownDeviceAccuracyScale``).
    public var unknownDeviceAccuracyScale = 1.0
    /// Whether ``PositioningAlgorithm/default`` may replace ``filter`` and ``tracking`` by the
    /// other pipeline it knows when that one locates its validation replay better
    /// (``DefaultSolver/pipelineCandidates(for:)``: this configuration's own, and raw RSSI with
    /// the stop-and-go tracker). Other algorithms ignore it. Default `false`: the pipeline is
    /// as configured. `whereabouts locate` and `eval` turn it on unless `--rssi-filter` or
    /// `--tracking` is given.
    public var choosesFilterAndTracking = false

    /// Creates a configuration. The defaults: ``defaultFilter`` per beacon, beacons kept 5 s after
    /// they were last heard, 4 dB of RSSI noise, ranges of at least 0.1 units, floor selection
    /// on with its own defaults, motion tracking off.
    public init(filter: BuiltInRSSIFilter? = LocatorConfiguration.defaultFilter, beaconTimeout: Double = 5,
                rssiStandardDeviation: Double = 4, minimumRange: Double = 0.1,
                floorSelection: FloorSelector.Configuration? = FloorSelector.Configuration(),
                tracking: MotionTracker.Configuration? = nil) {
        self.filter = filter
        self.beaconTimeout = beaconTimeout
        self.rssiStandardDeviation = rssiStandardDeviation
        self.minimumRange = minimumRange
        self.floorSelection = floorSelection
        self.tracking = tracking
    }
}
