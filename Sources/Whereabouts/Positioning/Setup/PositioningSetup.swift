/// Everything a positioning pipeline runs with, built once from a venue and (optionally) a
/// training recording: the venue as solvers see it (calibrated from the training data when it
/// has true positions), the solver, and the per-device configuration.
///
/// ```swift
/// let setup = PositioningAlgorithm.multilateration.setup(venue: venue, training: trainingScans)
/// var locators = setup.makeLocators()
/// while let scan = try reader.next() { if let fix = locators.locate(scan) { print(fix) } }
/// ```
public struct PositioningSetup: Sendable {
    /// The venue as the solver sees it (with the calibrated txPower and exponents, when calibrated).
    public let venue: PositioningVenue
    /// The solver.
    public let solver: any PositionSolver
    /// The per-device pipeline's configuration (its RSSI noise and device offsets from the calibration, when calibrated).
    public let configuration: LocatorConfiguration
    /// The path-loss calibration fitted to the training data, if there was any to fit.
    public let calibration: CalibrationResult?

    /// Creates a setup from its parts.
    public init(venue: PositioningVenue, solver: any PositionSolver, configuration: LocatorConfiguration = LocatorConfiguration(),
                calibration: CalibrationResult? = nil) {
        self.venue = venue
        self.solver = solver
        self.configuration = configuration
        self.calibration = calibration
    }

    /// The filter and tracking the solver chose, when the configuration let it choose
    /// (``LocatorConfiguration/choosesFilterAndTracking``) and it validated a pipeline: what the
    /// locators run with, and the validation's mean error.
    public var chosenPipeline: ValidatedSettings? {
        guard configuration.choosesFilterAndTracking, let validated = solver.validatedSettings else { return nil }
        return validated
    }

    /// The venue calibrated from `training` (per beacon, shrunk toward the venue fit) and the
    /// configuration with the fit's RSSI noise and device offsets, or the inputs unchanged when the training data
    /// gives no fit (no true positions, no placed beacons heard).
    static func calibrated(_ venue: Venue, training: [Scan], configuration: LocatorConfiguration)
        -> (Venue, LocatorConfiguration, CalibrationResult?) {
        guard training.contains(where: { $0.truth?.planarPoint != nil }),
              let result = try? Calibration.fit(training, in: venue) else {
            return (venue, configuration, nil)
        }
        var configuration = configuration
        configuration.rssiStandardDeviation = min(max(result.venueFit.robustSigma, 2), 12)
        configuration.deviceOffsets.merge(result.offsetsByDevice) { _, fitted in fitted }
        // The training devices are known: what the calibration did not give an offset reads like it.
        // Scans without a device go under the empty name.
        for device in Set(training.map { $0.device ?? "" }) where configuration.deviceOffsets[device] == nil {
            configuration.deviceOffsets[device] = 0
        }
        return (result.applied(to: venue, perBeacon: true), configuration, result)
    }

    /// The training scans as the solver learns from them, and the configuration it learns with:
    /// each scan corrected by its device's offset once, here, and the configuration without
    /// offsets, so that fingerprints, cross-validation and replays all see corrected RSSI exactly
    /// as the locators (which subtract the offsets themselves) will produce it.
    static func solverTraining(_ training: [Scan], configuration: LocatorConfiguration) -> ([Scan], LocatorConfiguration) {
        let offsets = configuration.deviceOffsets
        guard !offsets.isEmpty else { return (training, configuration) }
        var plain = configuration
        plain.deviceOffsets = [:]
        let corrected = training.map { scan in
            scan.correctedForDeviceOffset(scan.device.flatMap { offsets[$0] } ?? 0)
        }
        return (corrected, plain)
    }
}

extension PositioningAlgorithm {
    /// Builds the algorithm for a venue: calibrates the venue from `training` when it has true
    /// positions, then builds the solver (training it, for the algorithms that learn). With
    /// ``default``, the RSSI filter and tracking are the ones the solver chose when the
    /// configuration lets it (``LocatorConfiguration/choosesFilterAndTracking``), and with
    /// tracking, the tracker's ``MotionTracker/Configuration/accuracyScale`` is the one the solver
    /// measured (``DefaultSolver/trackedAccuracyScale``), floored at each estimate's radius when
    /// there was no training data to measure it on, and it weighs the estimates as the validation
    /// found (``MotionTracker/Configuration/estimateAccuracyScale``; see ``DefaultSolver/tracking``).
    ///
    /// Device offsets: the venue's ``Venue/devices`` (unless the configuration's
    /// ``LocatorConfiguration/deviceOffsets`` names the device), then the offsets fitted to the
    /// training devices; every other device learns its own online
    /// (``LocatorConfiguration/deviceOffsetEstimation``) when there is a known device to be
    /// measured against.
    public func setup(venue: Venue, training: [Scan] = [], configuration: LocatorConfiguration = LocatorConfiguration()) -> PositioningSetup {
        // The venue's known devices, unless the configuration says otherwise about one.
        var configuration = configuration
        configuration.deviceOffsets = venue.deviceOffsets.merging(configuration.deviceOffsets) { _, configured in configured }
        var (calibratedVenue, calibratedConfiguration, calibration) = PositioningSetup.calibrated(venue, training: training,
                                                                                                  configuration: configuration)
        let positioning = PositioningVenue(calibratedVenue)
        let (solverTraining, solverConfiguration) = PositioningSetup.solverTraining(training, configuration: calibratedConfiguration)
        let solver = solver(for: positioning, training: solverTraining, configuration: solverConfiguration)
        if let validated = solver.validatedSettings {
            if validated.choosesFloor { calibratedConfiguration.floorSelection = nil }
            if calibratedConfiguration.choosesFilterAndTracking {
                calibratedConfiguration.filter = validated.filter
                calibratedConfiguration.tracking = validated.tracking
                if let timeout = validated.beaconTimeout { calibratedConfiguration.beaconTimeout = timeout }
            }
            if let measured = validated.trackedAccuracyScale {
                calibratedConfiguration.tracking?.accuracyScale = measured
                calibratedConfiguration.tracking?.estimateAccuracyScale = validated.tracking?.estimateAccuracyScale ?? 1
                if validated.tracking?.isFlooredAtEstimateAccuracy == true {
                    calibratedConfiguration.tracking?.isFlooredAtEstimateAccuracy = true
                }
            }
        }
        // Offsets are learnt relative to known devices (the training's, or those the venue lists):
        // without any, the readings have nothing to be measured against but the venue file's
        // nominal values.
        let hasReference = calibration != nil || !venue.devices.isEmpty
        // The posterior learns each device's offset in its own state, against its radio map.
        if calibratedConfiguration.deviceOffsetEstimation == nil, calibratedConfiguration.estimatesDeviceOffsets, hasReference,
           self != .posterior {
            var estimation = DeviceOffsetEstimator.Configuration()
            estimation.zeroPoint = PositioningSetup.offsetZeroPoint(venue: positioning, solver: solver, training: solverTraining,
                                                                    configuration: solverConfiguration, estimation: estimation)
            calibratedConfiguration.deviceOffsetEstimation = estimation
            if let scale = solver.validatedSettings?.unknownDeviceAccuracyScale {
                calibratedConfiguration.unknownDeviceAccuracyScale = scale
            }
        }
        return PositioningSetup(venue: positioning, solver: solver, configuration: calibratedConfiguration, calibration: calibration)
    }
}

extension PositioningSetup {
    /// The offset ``DeviceOffsetEstimator`` finds for devices whose readings need none: the
    /// training scans (already corrected by their devices' offsets), each device and track
    /// replayed through a locator that learns its offset from 0, and the scans' mean offset
    /// weighted by how many scans counted. 0 without training scans that count.
    static func offsetZeroPoint(venue: PositioningVenue, solver: any PositionSolver, training: [Scan],
                                configuration: LocatorConfiguration, estimation: DeviceOffsetEstimator.Configuration) -> Double {
        var learning = configuration
        learning.deviceOffsets = [:]
        learning.tracking = nil
        learning.deviceOffsetEstimation = estimation
        var groups: [String: [Scan]] = [:]
        var order: [String] = []
        for scan in training {
            let key = (scan.device ?? "") + "\u{1F}" + (scan.track ?? "")
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(scan)
        }
        var sum = 0.0, weight = 0.0
        for key in order {
            var locator = Locator(venue: venue, solver: solver, configuration: learning)
            for scan in groups[key] ?? [] { _ = locator.locate(scan) }
            guard let estimator = locator.offsetEstimatorState, let mean = estimator.scanMean else { continue }
            sum += mean * estimator.evidence
            weight += estimator.evidence
        }
        return weight > 0 ? sum / weight : 0
    }
}
