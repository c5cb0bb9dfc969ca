import Foundation

extension PosteriorSolver {
    /// The tempers the validation chooses from.
    static let temperCandidates = [0.1, 0.25, 0.5, 1.0]
    /// The walking speeds (m/s) the validation chooses from.
    static let speedCandidates = [0.25, 0.5, 1.0, 2.0]
    /// The probabilities that a device did not move between two scans the validation chooses from.
    static let stayCandidates = [0.5, 0.8, 0.95]
    /// The survey bandwidths (metres) the validation chooses from, 0 for no correction.
    static let bandwidthCandidates = [0.0, 1.0, 2.0, 3.0, 5.0]
    /// The temper and speed without training data.
    static let untrainedTemper = 0.5, untrainedSpeed = 1.0
    /// The probability of not moving between two scans without training data.
    static let untrainedStay = 0.5
    /// The σ (dB) of a known device's offset the validation chooses from: none, or 1 dB.
    static let knownSigmaCandidates = [0.0, 1.0]
    /// The σ of a device's offset without training data, dB.
    static let untrainedOffsetSigma = 10.0

    /// Builds the solver for a venue, measuring on `training` what `options` leaves open.
    ///
    /// With true positions in the training recording (already corrected by each device's
    /// offset, as ``PositioningAlgorithm/setup(venue:training:configuration:)`` gives it), the
    /// scans are dealt into spatial folds (1.5 m blocks, 5 folds, as ``DefaultSolver``):
    /// - what a wall costs (``WallLoss``, when the venue has polygon places), fitted on the whole
    ///   survey and counted by every map below (the folds' too: one loss and a line per beacon,
    ///   little for a fold to lend the others);
    /// - the survey bandwidth is the one whose correction, learnt from the other folds, predicts
    ///   each fold's residuals with the least mean absolute error (no correction among them);
    /// - the detection floor is the median of the training devices' weakest readings, m the share
    ///   of the beacons the map expects 10 dB above it at the truths that a scan did not hear;
    /// - the temper, then the speed, then the probability of not moving between two scans (each
    ///   from a few candidates, the others at 0.5, 1 m/s and 0.8 until chosen), whether known
    ///   devices keep an offset, and mean or mode, are those whose replay of the training
    ///   recording, for each fold with a map corrected by the other folds only, has the least
    ///   mean error on the fold's scans;
    ///   the radius factor is the 68th percentile of error ÷ radius there;
    /// - the radius factor of a phone the training never saw, the same percentile of the same
    ///   replay with the recording read as such a phone, ``DefaultSolver/unknownDeviceOffset``
    ///   dB high (low on alternate folds), learning its offset from its prior (at least the known
    ///   devices' factor).
    ///
    /// Without true positions the defaults hold and the radius factor is measured on the venue's
    /// simulated survey (``DefaultSolver``'s, with its 4 dB of persistent shadowing).
    public init(venue: PositioningVenue, training: [Scan] = [], configuration: LocatorConfiguration = LocatorConfiguration(),
                options: Options = Options()) {
        let metres = venue.venue.units.metres ?? 1
        let sigma = configuration.rssiStandardDeviation
        let grid = Self.grid(of: venue, options: options)
        let located = training.filter { $0.truth?.planarPoint != nil }
        // A device's offset: the calibration's prior spread of phones when a survey calibrated
        // the venue; without one, the venue file's nominal txPower may be off by as much again.
        let known = located.isEmpty ? Set(venue.venue.deviceOffsets.keys)
            : Set(training.map { $0.device ?? "" }).union(venue.venue.deviceOffsets.keys)
        let offsetSigma = options.offsetPriorSigma
            ?? (located.isEmpty ? Self.untrainedOffsetSigma : Calibration.Options().deviceOffsetPriorSigma)
        let floorRSSI = options.detectionFloor ?? Self.detectionFloor(of: training) ?? Self.defaultDetectionFloor
        func motion(_ speed: Double, stay: Double? = nil) -> GridFilter.Motion {
            GridFilter.Motion(speed: speed / metres, stayProbability: stay ?? options.stayProbability ?? Self.untrainedStay,
                              jumpRate: options.jumpRate, floorChangeRate: options.floorChangeRate)
        }
        func likelihood(miss: Double, temper: Double) -> ScanLikelihood {
            ScanLikelihood(outlierWeight: options.outlierWeight, missProbability: miss, detectionFloor: floorRSSI, temper: temper)
        }
        guard let grid else {
            self.init(venue: venue, map: nil, likelihood: likelihood(miss: Self.defaultMissProbability, temper: 1),
                      motion: motion(Self.untrainedSpeed), estimate: options.estimate ?? .mean, bandwidth: nil,
                      accuracyScale: 1, maximumGap: options.maximumGap, validationError: nil,
                                offsetPriorSigma: offsetSigma, knownDevices: known,
                                knownDeviceOffsetSigma: 0, maximumCoast: options.maximumCoast)
            return
        }
        let area = options.weighsWalkableArea ? WalkableArea(venue: venue, grid: grid, training: located) : nil
        var replay = configuration
        replay.filter = nil
        replay.tracking = nil
        replay.beaconTimeout = 0
        replay.deviceOffsets = [:]
        replay.deviceOffsetEstimation = nil
        replay.floorSelection = nil

        guard !located.isEmpty else {
            // No truth: the defaults, the radius measured on the simulated survey.
            let map = RadioMap(venue: venue, grid: grid, rssiStandardDeviation: sigma, floorAttenuation: options.floorAttenuation,
                               detectionFloor: floorRSSI)
            let solver = PosteriorSolver(venue: venue, map: map,
                                         likelihood: likelihood(miss: options.missProbability ?? Self.defaultMissProbability,
                                                                temper: options.temper ?? Self.untrainedTemper),
                                         motion: motion(options.speed ?? Self.untrainedSpeed), estimate: options.estimate ?? .mean,
                                         bandwidth: nil, accuracyScale: 1, maximumGap: options.maximumGap, validationError: nil,
                                offsetPriorSigma: offsetSigma, knownDevices: known,
                                knownDeviceOffsetSigma: 0, maximumCoast: options.maximumCoast, area: area)
            let surveyArea = SurveyArea(venue: venue)
            let survey = DefaultSolver.simulatedSurvey(of: venue, configuration: configuration)
            let scored = Self.replay([(solver, survey)], venue: venue, configuration: replay) { scan, _ in
                guard let surveyArea, let point = scan.truth?.planarPoint else { return false }
                return surveyArea.contains(point, floor: scan.truth?.floor ?? 0)
            }
            let estimate = options.estimate ?? .mean
            let ratios = scored.map { estimate == .mean ? $0.meanRatio : $0.modeRatio }
            self = solver.with(accuracyScale: DefaultSolver.scale(from: ratios), estimate: estimate,
                               validationError: Self.mean(scored.map { estimate == .mean ? $0.meanError : $0.modeError }))
            return
        }

        // Spatial folds of the training positions.
        let folds = SpatialFolds(locations: located.compactMap { scan in scan.truth?.planarPoint.map { ($0, scan.truth?.floor) } },
                                 blockSize: DefaultSolver.blockSize / metres, folds: DefaultSolver.folds)
        func fold(of scan: Scan) -> Int? {
            guard let point = scan.truth?.planarPoint else { return nil }
            return folds.fold(of: point, floor: scan.truth?.floor)
        }
        // 0. What walls cost, when the venue has polygon places and the survey crosses them.
        let walls = WallLoss(venue: venue, training: located)
        let residuals = RadioMap.Residuals(venue: venue, training: located, walls: walls)
        // 1. The survey bandwidth, by held-out residuals.
        let bandwidth: Double
        if let chosen = options.bandwidth {
            bandwidth = chosen
        } else if folds.count >= 2 {
            let candidates = Self.bandwidthCandidates.map { $0 > 0 ? RadioMap.SurveyCorrection(bandwidth: $0) : nil }
            let errors = RadioMap.heldOutErrors(residuals: residuals, corrections: candidates, folds: folds,
                                                floors: venue.floors, metresPerUnit: metres)
            var best = 0
            for index in errors.indices where errors[index] < errors[best] { best = index }
            bandwidth = Self.bandwidthCandidates[best]
        } else {
            bandwidth = 0
        }
        let correction = bandwidth > 0 ? RadioMap.SurveyCorrection(bandwidth: bandwidth) : nil
        let surveyMap = RadioMap(venue: venue, grid: grid, rssiStandardDeviation: sigma, residuals: residuals,
                                 correction: correction, walls: walls, detectionFloor: floorRSSI)
        // 2. m, on the map of the whole survey; then what a floor costs.
        let miss = options.missProbability ?? Self.missProbability(of: located, venue: venue, map: surveyMap, detectionFloor: floorRSSI)
            ?? Self.defaultMissProbability
        let floorLoss = options.floorAttenuation
            ?? Self.floorAttenuation(of: located, venue: venue, map: surveyMap, likelihood: likelihood(miss: miss, temper: 1))
            ?? RadioMap.defaultFloorAttenuation
        let fullMap = surveyMap.countingFloors(venue: venue, attenuation: floorLoss, detectionFloor: floorRSSI)

        // 3. Temper and speed by the replay of the folds, each located with the other folds' map.
        let foldMaps: [RadioMap] = folds.count >= 2 ? (0..<folds.count).map { index in
            let others = located.filter { fold(of: $0) != index }
            return RadioMap(venue: venue, grid: grid, rssiStandardDeviation: sigma,
                            residuals: RadioMap.Residuals(venue: venue, training: others, walls: walls), correction: correction,
                            walls: walls, floorAttenuation: floorLoss, detectionFloor: floorRSSI)
        } : [fullMap]
        // The settings the replays try, each as the options give it or at its starting
        // candidate until chosen.
        var temper = options.temper ?? Self.temperCandidates[2]
        var speed = options.speed ?? Self.speedCandidates[2]
        var stay = options.stayProbability ?? Self.stayCandidates[1]
        var knownSigma = Self.knownSigmaCandidates[0]
        // The recording as a phone the training never saw, high for the even folds, low for the
        // odd (made when first needed, once each).
        lazy var strangers = (high: DefaultSolver.unknownDevice(training, offset: DefaultSolver.unknownDeviceOffset),
                              low: DefaultSolver.unknownDevice(training, offset: -DefaultSolver.unknownDeviceOffset))
        func scored(asUnknownDevice: Bool = false) -> [ReplayedFix] {
            let solvers = foldMaps.map { map in
                PosteriorSolver(venue: venue, map: map, likelihood: likelihood(miss: miss, temper: temper),
                                motion: motion(speed, stay: stay),
                                estimate: .mean, bandwidth: correction?.bandwidth, accuracyScale: 1,
                                maximumGap: options.maximumGap, validationError: nil,
                                offsetPriorSigma: offsetSigma, knownDevices: known,
                                knownDeviceOffsetSigma: knownSigma, maximumCoast: options.maximumCoast, area: area)
            }
            // The whole recording for each fold, in order (the filter sees the walk as it was),
            // scored on the fold's own scans. (Replaying each fold's scans alone is 5 times
            // faster but chose worse settings on uji-lib: 1.37 m against 1.22 m.)
            let runs = solvers.enumerated().map { index, solver in
                (solver, asUnknownDevice ? (index % 2 == 0 ? strangers.high : strangers.low) : training)
            }
            return Self.replay(runs, venue: venue, configuration: replay) { scan, run in
                folds.count >= 2 ? fold(of: scan) == run : scan.truth?.planarPoint != nil
            }
        }
        func meanError(_ fixes: [ReplayedFix]) -> Double {
            let value = Self.mean(fixes.map(\.meanError))
            return value.isFinite ? value : .infinity
        }
        // One setting at a time: each candidate replayed with the others as they stand (the
        // one it holds already only when nothing was replayed yet), the least mean error kept.
        var best: [ReplayedFix]?
        func choose(_ candidates: [Double], from first: Double, _ set: (Double) -> Void) {
            let firstScored = best != nil
            var lowest = best.map(meanError) ?? .infinity, chosen = first
            for candidate in candidates where candidate != first || !firstScored {
                set(candidate)
                let fixes = scored()
                if meanError(fixes) < lowest {
                    lowest = meanError(fixes)
                    chosen = candidate
                    best = fixes
                }
            }
            set(chosen)
        }
        if options.temper == nil { choose(Self.temperCandidates, from: temper) { temper = $0 } }
        if options.speed == nil { choose(Self.speedCandidates, from: speed) { speed = $0 } }
        if options.stayProbability == nil { choose(Self.stayCandidates, from: stay) { stay = $0 } }
        // Whether the known devices keep an offset of their own (a σ among the candidates).
        choose(Self.knownSigmaCandidates, from: knownSigma) { knownSigma = $0 }
        let fixes = best ?? scored()
        let meanOfMeans = Self.mean(fixes.map(\.meanError)), meanOfModes = Self.mean(fixes.map(\.modeError))
        let estimate = options.estimate ?? (meanOfModes < meanOfMeans ? .mode : .mean)
        let ratios = fixes.map { estimate == .mean ? $0.meanRatio : $0.modeRatio }
        let solver = PosteriorSolver(venue: venue, map: fullMap, likelihood: likelihood(miss: miss, temper: temper),
                                     motion: motion(speed, stay: stay), estimate: estimate, bandwidth: correction?.bandwidth,
                                     accuracyScale: 1, maximumGap: options.maximumGap, validationError: nil,
                                offsetPriorSigma: offsetSigma, knownDevices: known,
                                knownDeviceOffsetSigma: knownSigma, maximumCoast: options.maximumCoast, area: area)
        let error = estimate == .mean ? meanOfMeans : meanOfModes
        // 4. The radius for a phone the training never saw: the same replay of the recording
        // read as one.
        let scale = DefaultSolver.scale(from: ratios)
        let strangerRatios = scored(asUnknownDevice: true)
            .map { estimate == .mean ? $0.meanRatio : $0.modeRatio }
        self = solver.with(accuracyScale: scale,
                           unknownDeviceAccuracyScale: strangerRatios.isEmpty ? nil
                               : max(DefaultSolver.scale(from: strangerRatios), scale),
                           estimate: estimate, validationError: error.isFinite ? error : nil)
    }

    /// The grid over the venue's bounds in cells of ``Options/cellSize``, made coarser when a
    /// floor would need more than ``Options/maximumCells`` or, in a venue with beacons on several
    /// floors (a layer of the same cells each), the layers together more than
    /// ``maximumStateCells``; `nil` without bounds.
    static func grid(of venue: PositioningVenue, options: Options) -> PosteriorGrid? {
        let metres = venue.venue.units.metres ?? 1
        let levels = Set(venue.positions.indices.compactMap { venue.positions[$0] == nil ? nil : venue.floors[$0] }).count
        let perLayer = levels > 1 ? min(options.maximumCells, Self.maximumStateCells / levels) : options.maximumCells
        return venue.bounds.flatMap {
            PosteriorGrid(extent: $0, cellSize: options.cellSize / metres, maximumCells: max(perLayer, 1))
        }
    }

    /// One scored scan of a replay: the errors of the posterior's mean and mode, and each ÷ the
    /// posterior's own 68 % radius.
    struct ReplayedFix {
        var meanError: Double, modeError: Double, meanRatio: Double, modeRatio: Double
    }

    /// Replays each run's scans through one locator per device and track of its solver (in
    /// order, so that the filter sees the walk as it was) and scores the scans that `scoring` selects.
    static func replay(_ runs: [(solver: PosteriorSolver, scans: [Scan])], venue: PositioningVenue,
                       configuration: LocatorConfiguration, scoring: (_ scan: Scan, _ run: Int) -> Bool) -> [ReplayedFix] {
        var fixes: [ReplayedFix] = []
        for (run, (solver, scans)) in runs.enumerated() {
            var locators = DeviceSlots<Locator>()
            for scan in scans {
                let slot = locators.slot(device: scan.device, track: scan.track) {
                    Locator(venue: venue, solver: solver, configuration: configuration)
                }
                let posterior = locators.update(slot) { locator -> (mean: PlanarPoint, mode: PlanarPoint, radius: Double)? in
                    guard locator.locate(scan) != nil else { return nil }
                    return (locator.solver as? PosteriorSolver)?.lastPosterior
                }
                guard scoring(scan, run), let posterior, let truth = scan.truth?.planarPoint, posterior.radius > 0 else { continue }
                let meanError = posterior.mean.distance(to: truth), modeError = posterior.mode.distance(to: truth)
                fixes.append(ReplayedFix(meanError: meanError, modeError: modeError, meanRatio: meanError / posterior.radius,
                                         modeRatio: modeError / posterior.radius))
            }
        }
        return fixes
    }

    /// The median over the recording's devices of each one's weakest valid reading, dBm; `nil`
    /// without readings.
    static func detectionFloor(of scans: [Scan]) -> Double? {
        var weakest: [String: Double] = [:]
        for scan in scans {
            for reading in scan.readings where reading.isValid {
                weakest[scan.device ?? "", default: reading.rssi] = min(weakest[scan.device ?? ""] ?? reading.rssi, reading.rssi)
            }
        }
        let sorted = weakest.values.sorted()
        return sorted.isEmpty ? nil : Quantile.ofSorted(sorted, 0.5)
    }

    /// The share of (scan, beacon) pairs where `map` expects the beacon at least 10 dB above the
    /// detection floor at the scan's truth (beacons of the truth's floor) that the scan did not
    /// hear, kept within 0.01…0.9; `nil` when there are none.
    static func missProbability(of scans: [Scan], venue: PositioningVenue, map: RadioMap, detectionFloor: Double) -> Double? {
        var expected = 0, missed = 0
        var heard = [Bool](repeating: false, count: venue.positions.count)
        for scan in scans {
            guard let truth = scan.truth?.planarPoint, let cell = map.grid.cell(containing: truth) else { continue }
            for index in heard.indices { heard[index] = false }
            for reading in scan.readings where reading.isValid {
                if let index = venue.directory.index(for: reading.beacon), index < heard.count { heard[index] = true }
            }
            let floor = scan.truth?.floor
            for beacon in heard.indices where floor == nil || venue.floors[beacon] == floor {
                guard let mean = map.mean(beacon: beacon, cell: cell), mean >= detectionFloor + 10 else { continue }
                expected += 1
                if !heard[beacon] { missed += 1 }
            }
        }
        guard expected > 0 else { return nil }
        return min(max(Double(missed) / Double(expected), 0.01), 0.9)
    }

    /// The losses per floor crossed (dB) a survey chooses from.
    static let floorAttenuationCandidates = [5.0, 10, 15, 20, 25, 30]
    /// The fewest (scan, beacon of another floor) pairs a survey needs to choose a floor's loss.
    static let minimumFloorPairs = 30

    /// The loss per floor crossed, among ``floorAttenuationCandidates``, under which the survey's
    /// beacons of other floors than each truth's are most likely, heard or not (`likelihood`,
    /// with the map's spread for other floors): a censored fit, since a beacon through a slab is
    /// heard only when it comes out strong. `nil` with one level or fewer than
    /// ``minimumFloorPairs`` pairs.
    static func floorAttenuation(of scans: [Scan], venue: PositioningVenue, map: RadioMap, likelihood: ScanLikelihood) -> Double? {
        guard map.levels.count > 1, let spread = map.crossSpreads.first.map(Double.init) else { return nil }
        let metres = venue.venue.units.metres ?? 1
        let candidates = Self.floorAttenuationCandidates
        var totals = [Double](repeating: 0, count: candidates.count)
        var pairs = 0
        var heard = [Double?](repeating: nil, count: venue.positions.count)
        for scan in scans {
            guard let truth = scan.truth?.planarPoint, let level = scan.truth?.floor else { continue }
            for index in heard.indices { heard[index] = nil }
            for reading in scan.readings where reading.isValid {
                if let index = venue.directory.index(for: reading.beacon), index < heard.count, heard[index] == nil {
                    heard[index] = reading.rssi
                }
            }
            for beacon in venue.positions.indices where venue.floors[beacon] != level && map.hasMap(beacon: beacon) {
                guard let position = venue.positions[beacon] else { continue }
                let base = RadioMap.crossFloorRSSI(venue: venue, beacon: beacon, position: position, at: truth, level: level,
                                                   metresPerUnit: metres, attenuation: 0)
                let crossed = Double(abs(level - venue.floors[beacon]))
                pairs += 1
                for (index, loss) in candidates.enumerated() {
                    let mean = base - loss * crossed
                    totals[index] += heard[beacon].map { likelihood.logHeard(rssi: $0, mean: mean, spread: spread) }
                        ?? likelihood.logUnheard(mean: mean, spread: spread)
                }
            }
        }
        guard pairs >= Self.minimumFloorPairs else { return nil }
        var best = 0
        for index in totals.indices where totals[index] > totals[best] { best = index }
        return candidates[best]
    }

    static func mean(_ values: [Double]) -> Double {
        values.isEmpty ? .nan : values.reduce(0, +) / Double(values.count)
    }
}
