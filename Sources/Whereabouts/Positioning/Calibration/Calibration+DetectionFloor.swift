import Foundation

extension Calibration {
    /// One receiver (a ``Scan/device``, or the scans without one) and the weakest valid RSSI it reported.
    struct Receiver {
        var device: String?
        var weakest = Double.infinity
        var readings = 0

        init(device: String?) {
            self.device = device
        }

        mutating func observe(_ rssi: Double) {
            readings += 1
            weakest = min(weakest, rssi)
        }
    }

    /// The fewest samples the venue fit keeps: a trimming step that would leave fewer is not taken.
    static let minimumTrimmedSamples = 10
    /// Trimming steps at most; the kept set normally settles in 2–6.
    static let maximumTrimmingIterations = 30
    /// Steps after which a sample once left out is never taken back.
    static let monotoneTrimmingAfter = 10

    /// The detection floor (dBm) of each receiver, or `nil` when the correction is off.
    func detectionFloors() -> [Double]? {
        guard options.correctsForDetectionFloor else { return nil }
        if let threshold = options.detectionThreshold, threshold.isFinite {
            return receivers.map { _ in threshold }
        }
        // A receiver with no valid reading has no samples either: its floor is never used.
        return receivers.map { $0.readings > 0 ? $0.weakest : -.infinity }
    }

    /// The spread of log10 d over some samples (0 when there are none).
    static func logSpread<Indices: Sequence<Int>>(_ indices: Indices, _ x: [Double]) -> Double {
        var low = Double.infinity, high = -Double.infinity
        for i in indices {
            low = min(low, x[i])
            high = max(high, x[i])
        }
        return high >= low ? high - low : 0
    }

    /// The outcome of fitting with the samples near the detection floor left out.
    struct Trimmed {
        /// The samples of the final fit, ascending.
        var kept: [Int]
        var outcome: CalibrationSolver.Outcome
        /// σ of the last selection (dB).
        var sigma: Double
        /// Each receiver's level relative to the fit (dB) in the last selection.
        var offsets: [Double]
        /// Refits made after the first.
        var iterations: Int
        /// Whether the kept set stopped changing (rather than hitting the iteration bound or a
        /// step that would leave too little to fit).
        var converged: Bool
        /// Whether a step was not taken because it would have left fewer than the minimum of
        /// samples or a too narrow range of distances.
        var stoppedShort: Bool
    }

    /// How ``trimmed(members:start:x:y:receiverOf:floors:margin:offsets:minimumKept:minimumSpread:fit:sigma:)``
    /// places each receiver's floor against the fitted line.
    enum ReceiverOffsets {
        /// Re-estimated at each step: receiver j's floor is compared with the fit's prediction
        /// plus oⱼ = median residual of j's kept samples − median residual of all kept samples
        /// (phones differ in gain by many dB; with one receiver oⱼ = 0).
        case estimated(receivers: Int)
        /// Given (the venue fit's, for the beacon fits).
        case fixed([Double])
        /// The device offsets δ that the fit itself estimated (``CalibrationSolver/Outcome/receiverOffsets``),
        /// 0 for every receiver when the fit gives none.
        case fitted(receivers: Int)
    }

    /// Truncated-regression trimming: fit `start`, keep the `members` whose predicted mean RSSI
    /// (plus their receiver's offset) is at least their receiver's floor + margin·σ, refit, until
    /// the kept set stops changing.
    ///
    /// A step that would keep fewer than `minimumKept` samples, or samples spread over less than
    /// `minimumSpread` in log10 d, is not taken: the fit of the current set is returned. After
    /// ``monotoneTrimmingAfter`` steps a sample once left out stays out, so that a selection that
    /// flips back and forth settles. With every floor at −∞ the first selection keeps every
    /// member, so the result is the plain fit of `start`.
    static func trimmed(members: [Int], start: [Int], x: [Double], y: [Double], receiverOf: [Int],
                        floors: [Double], margin: Double, offsets offsetRule: ReceiverOffsets,
                        minimumKept: Int, minimumSpread: Double,
                        fit: ([Int]) -> CalibrationSolver.Outcome?,
                        sigma: ([Int], CalibrationSolver.Estimate, [Double]) -> Double) -> Trimmed? {
        guard var outcome = fit(start) else { return nil }
        var kept = start
        var iterations = 0
        var isKept = [Bool](repeating: false, count: x.count)
        while true {
            let estimate = outcome.estimate
            let offsets: [Double]
            switch offsetRule {
            case .fixed(let given):
                offsets = given
            case .estimated(let count):
                offsets = receiverOffsets(kept: kept, x: x, y: y, receiverOf: receiverOf, count: count, estimate)
            case .fitted(let count):
                offsets = outcome.receiverOffsets.count == count ? outcome.receiverOffsets
                    : [Double](repeating: 0, count: count)
            }
            let scale = sigma(kept, estimate, offsets)
            for i in kept { isKept[i] = true }
            let monotone = iterations >= monotoneTrimmingAfter
            let candidate = members.filter { i in
                let predicted = estimate.txPower - 10 * estimate.exponent * x[i] + offsets[receiverOf[i]]
                return predicted >= floors[i] + margin * scale && (!monotone || isKept[i])
            }
            for i in kept { isKept[i] = false }
            func finish(converged: Bool, stoppedShort: Bool) -> Trimmed {
                Trimmed(kept: kept, outcome: outcome, sigma: scale, offsets: offsets, iterations: iterations,
                        converged: converged, stoppedShort: stoppedShort)
            }
            if candidate == kept { return finish(converged: true, stoppedShort: false) }
            guard iterations < maximumTrimmingIterations else { return finish(converged: false, stoppedShort: false) }
            guard candidate.count >= max(minimumKept, 1), logSpread(candidate, x) >= minimumSpread,
                  let next = fit(candidate)
            else { return finish(converged: false, stoppedShort: true) }
            kept = candidate
            outcome = next
            iterations += 1
        }
    }

    /// oⱼ = median residual of receiver j's kept samples − median residual of all kept samples
    /// (0 for a receiver without kept samples).
    static func receiverOffsets(kept: [Int], x: [Double], y: [Double], receiverOf: [Int], count: Int,
                                _ estimate: CalibrationSolver.Estimate) -> [Double] {
        guard count > 1 else { return [Double](repeating: 0, count: count) }
        var byReceiver = [[Double]](repeating: [], count: count)
        var all: [Double] = []
        all.reserveCapacity(kept.count)
        for i in kept {
            let residual = y[i] - (estimate.txPower - 10 * estimate.exponent * x[i])
            byReceiver[receiverOf[i]].append(residual)
            all.append(residual)
        }
        let centre = CalibrationSolver.median(all) ?? 0
        return byReceiver.map { residuals in CalibrationSolver.median(residuals).map { $0 - centre } ?? 0 }
    }

    /// What the correction did, for ``CalibrationResult/detectionFloor``.
    func report(floors: [Double]?, venueTrim: Trimmed, margin: Double,
                unfittedBeacons: [String]) -> CalibrationResult.DetectionFloor {
        let heard = receivers.indices.filter { receivers[$0].readings > 0 }
        let listed = heard.map {
            CalibrationResult.DetectionFloor.Receiver(
                device: receivers[$0].device, threshold: floors?[$0] ?? receivers[$0].weakest,
                readings: receivers[$0].readings)
        }
        let excluded = samples.count - venueTrim.kept.count
        let status: CalibrationResult.DetectionFloor.Status
        if floors == nil {
            status = .disabled
        } else if excluded > 0 {
            status = .corrected
        } else if venueTrim.stoppedShort {
            status = .insufficientData
        } else {
            status = .nothingNearFloor
        }
        let given = options.detectionThreshold.map(\.isFinite) ?? false
        return CalibrationResult.DetectionFloor(
            status: status, isEstimated: !given, receivers: listed, margin: margin, sigma: venueTrim.sigma,
            excludedSamples: excluded, iterations: venueTrim.iterations,
            converged: venueTrim.converged, unfittedBeacons: unfittedBeacons)
    }
}

extension CalibrationResult {
    /// How the fits dealt with the receivers' detection floor: receivers do not report signals
    /// weaker than their sensitivity, so where the predicted mean RSSI nears it only the readings
    /// that happened to be strong are heard, and fitting them as they come pulls the line up at
    /// long range (n and A too low). The fits leave those samples out (see ``Calibration``).
    public struct DetectionFloor: Hashable, Sendable {
        /// What the correction did.
        public enum Status: String, Hashable, Sendable {
            /// Off (``Calibration/Options/correctsForDetectionFloor`` is `false`): every sample was fitted.
            case disabled
            /// Every sample's predicted mean is at least the margin above its floor: every sample
            /// was fitted, as without the correction.
            case nothingNearFloor
            /// Samples whose predicted mean lies within the margin of the floor were left out.
            case corrected
            /// Leaving out the samples near the floor would leave fewer than 10 samples or a single
            /// distance: every sample was fitted, and the fit may be biased.
            case insufficientData
        }

        /// A receiver's detection floor.
        public struct Receiver: Hashable, Sendable {
            /// The receiver (``Scan/device``); `nil` for the scans that name none.
            public var device: String?
            /// The floor, dBm: the given ``Calibration/Options/detectionThreshold``, else the
            /// weakest valid RSSI the receiver reported.
            public var threshold: Double
            /// The valid readings the receiver reported (in every scan, with truth or not).
            public var readings: Int

            /// Creates a receiver's floor.
            public init(device: String?, threshold: Double, readings: Int) {
                self.device = device
                self.threshold = threshold
                self.readings = readings
            }
        }

        /// What the correction did.
        public var status: Status
        /// Whether the floors were estimated from the recording (`false`: given in the options).
        public var isEstimated: Bool
        /// The floor of each receiver that reported a valid reading, in order of appearance.
        public var receivers: [Receiver]
        /// k: samples were fitted when their predicted mean was at least floor + k·σ.
        public var margin: Double
        /// σ (dB), the venue fit's robust residual σ (at least the noise floor) that the margin is counted in.
        public var sigma: Double
        /// Samples the venue fit left out.
        public var excludedSamples: Int
        /// Refits after the first: how many times the kept set changed.
        public var iterations: Int
        /// Whether the kept set stopped changing within the bound of iterations.
        public var converged: Bool
        /// Beacons with samples none of which the venue fit kept (heard only near the floor): they
        /// have no fit of their own.
        public var unfittedBeacons: [String]

        /// Creates a report.
        public init(status: Status, isEstimated: Bool, receivers: [Receiver], margin: Double, sigma: Double,
                    excludedSamples: Int, iterations: Int, converged: Bool, unfittedBeacons: [String]) {
            self.status = status
            self.isEstimated = isEstimated
            self.receivers = receivers
            self.margin = margin
            self.sigma = sigma
            self.excludedSamples = excludedSamples
            self.iterations = iterations
            self.converged = converged
            self.unfittedBeacons = unfittedBeacons
        }

        /// The report of a fit made without the correction.
        public static let disabled = DetectionFloor(
            status: .disabled, isEstimated: false, receivers: [], margin: 0, sigma: 0, excludedSamples: 0,
            iterations: 0, converged: true, unfittedBeacons: [])

        /// The line of ``CalibrationResult/summary``, e.g.
        /// `Detection floor: -95 dBm (weakest reading); kept samples predicted ≥ 2σ (6.1 dB) above it: 1234 of 5316 left out, settled after 3 refits`.
        func summaryLine(samples: Int) -> String {
            guard status != .disabled else { return "Detection floor: not corrected (every sample fitted as heard)" }
            let source = isEstimated ? "weakest reading" : "given"
            var floors: String
            let thresholds = receivers.map(\.threshold)
            if let low = thresholds.min(), let high = thresholds.max(), low != high {
                if receivers.count <= 6 {
                    floors = receivers.map { "\($0.device ?? "(no device)") \(CalibrationResult.format($0.threshold, 0))" }
                        .joined(separator: ", ") + " dBm (\(source) per receiver)"
                } else {
                    floors = "\(CalibrationResult.format(low, 0)) to \(CalibrationResult.format(high, 0)) dBm "
                        + "(\(source) per receiver, \(receivers.count) receivers)"
                }
            } else {
                floors = thresholds.first.map { CalibrationResult.format($0, 0) + " dBm" } ?? "none"
                floors += " (\(source))"
            }
            let rule = "samples kept where the predicted RSSI is ≥ \(CalibrationResult.format(margin, 1))σ "
                + "(\(CalibrationResult.format(margin * sigma, 1)) dB) above it"
            var line = "Detection floor: \(floors); \(rule): "
            switch status {
            case .disabled:
                break
            case .nothingNearFloor:
                line += "all are, nothing left out"
            case .insufficientData:
                line += "too few would remain, so every sample was fitted (may be biased low in n)"
            case .corrected:
                line += "\(excludedSamples) of \(samples) left out, "
                line += converged ? "settled after \(iterations) refits" : "stopped after \(iterations) refits"
            }
            if !unfittedBeacons.isEmpty {
                line += "; no fit for \(unfittedBeacons.count.counted("beacon")) heard only near the floor ("
                    + unfittedBeacons.prefix(8).joined(separator: ", ") + (unfittedBeacons.count > 8 ? ", …)" : ")")
            }
            return line
        }
    }
}
