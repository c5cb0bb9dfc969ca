import Foundation

extension Calibration {
    /// Rounds of the alternation between (A, n) and the device offsets at most.
    static let maximumOffsetIterations = 50
    /// The alternation stops when no offset moves by more than this (dB).
    static let offsetTolerance = 1e-3

    /// The venue fit with one RSSI offset δ per receiver: alternately fit (A, n) to the samples
    /// less their receiver's δ (`fit`, given the corrected RSSI of `kept` in order) and set each δ
    /// to the shrunk robust-weighted mean of its receiver's residuals, recentred to a
    /// sample-weighted mean of 0. The outcome carries the offsets its fit was made with.
    static func fitWithDeviceOffsets(kept: [Int], x: [Double], y: [Double], receiverOf: [Int], receivers count: Int,
                                     priorSigma: Double,
                                     fit: ([Double]) -> CalibrationSolver.Outcome?) -> CalibrationSolver.Outcome? {
        var offsets = [Double](repeating: 0, count: count)
        var round = 0
        while true {
            guard var outcome = fit(kept.map { y[$0] - offsets[receiverOf[$0]] }) else { return nil }
            outcome.receiverOffsets = offsets
            round += 1
            let next = updatedOffsets(outcome, kept: kept, x: x, y: y, receiverOf: receiverOf, count: count,
                                      priorSigma: priorSigma).offsets
            let change = zip(next, offsets).reduce(0.0) { max($0, abs($1.0 - $1.1)) }
            guard change > offsetTolerance, round < maximumOffsetIterations,
                  next.allSatisfy(\.isFinite) else { return outcome }
            offsets = next
        }
    }

    /// The offsets that the residuals of `outcome` (raw RSSI against its (A, n)) imply, each
    /// δ_r = Σ wᵢ rᵢ / (Σ wᵢ + λ) with the outcome's robust weights and λ = scale²/τ_δ², then
    /// recentred over the receivers with samples so that Σ N_r δ_r = 0 (N_r their samples).
    /// Also each receiver's shrinkage λ / (Σ wᵢ + λ) and samples.
    static func updatedOffsets(_ outcome: CalibrationSolver.Outcome, kept: [Int], x: [Double], y: [Double],
                               receiverOf: [Int], count: Int, priorSigma: Double)
        -> (offsets: [Double], shrinkage: [Double], samples: [Int]) {
        var sums = [Double](repeating: 0, count: count)
        var weights = [Double](repeating: 0, count: count)
        var members = [Int](repeating: 0, count: count)
        let estimate = outcome.estimate
        for (j, i) in kept.enumerated() {
            let receiver = receiverOf[i]
            let w = j < outcome.weights.count ? outcome.weights[j] : 1
            sums[receiver] += w * (y[i] - (estimate.txPower - 10 * estimate.exponent * x[i]))
            weights[receiver] += w
            members[receiver] += 1
        }
        let lambda = penalty(noise: outcome.scale, priorSigma: priorSigma)
        var offsets = (0..<count).map { r in
            let denominator = weights[r] + lambda
            return denominator > 0 ? sums[r] / denominator : 0
        }
        let total = members.reduce(0, +)
        if total > 0 {
            let centre = (0..<count).reduce(0.0) { $0 + Double(members[$1]) * offsets[$1] } / Double(total)
            for r in 0..<count where members[r] > 0 { offsets[r] -= centre }
        }
        let shrinkage = (0..<count).map { r in
            let denominator = weights[r] + lambda
            return denominator > 0 ? lambda / denominator : 1
        }
        return (offsets, shrinkage, members)
    }

    /// The offsets of the venue fit, per receiver with samples in the fit, for
    /// ``CalibrationResult/deviceOffsets``.
    func deviceOffsetReport(venueTrim: Trimmed, receiverOf: [Int]) -> [CalibrationResult.DeviceOffset] {
        let x = samples.map(\.logDistance), y = samples.map(\.rssi)
        let outcome = venueTrim.outcome
        let offsets = outcome.receiverOffsets.count == receivers.count ? outcome.receiverOffsets
            : [Double](repeating: 0, count: receivers.count)
        // The shrinkage and sample counts as the final round of the fit saw them.
        let state = Self.updatedOffsets(outcome, kept: venueTrim.kept, x: x, y: y, receiverOf: receiverOf,
                                        count: receivers.count, priorSigma: options.deviceOffsetPriorSigma)
        return receivers.indices.filter { state.samples[$0] > 0 }.map {
            CalibrationResult.DeviceOffset(device: receivers[$0].device, offset: offsets[$0], samples: state.samples[$0],
                                           shrinkage: state.shrinkage[$0])
        }
    }
}

extension CalibrationResult {
    /// One receiver's RSSI offset: how many dB it reads above (positive) or below the venue fit's
    /// level, which is that of the average training sample's receiver.
    public struct DeviceOffset: Hashable, Sendable {
        /// The receiver (``Scan/device``); `nil` for the scans that name none.
        public var device: String?
        /// δ, dB: subtract it from the receiver's readings to bring them to the venue fit.
        public var offset: Double
        /// The receiver's samples in the venue fit.
        public var samples: Int
        /// How much of δ the prior took away: λ / (Σ wᵢ + λ), 0 (the device's own data alone) … 1
        /// (held at 0).
        public var shrinkage: Double

        /// Creates a device offset.
        public init(device: String?, offset: Double, samples: Int, shrinkage: Double) {
            self.device = device
            self.offset = offset
            self.samples = samples
            self.shrinkage = shrinkage
        }
    }

    /// The offsets of the named devices, as ``LocatorConfiguration/deviceOffsets`` takes them
    /// (the scans without a device are left out: a locator gives them 0).
    public var offsetsByDevice: [String: Double] {
        var offsets: [String: Double] = [:]
        for entry in deviceOffsets {
            guard let device = entry.device, entry.offset.isFinite else { continue }
            offsets[device] = entry.offset
        }
        return offsets
    }

    /// `Device offsets: A5 +9.95, BQ -5.01, S6 -4.67 dB (samples 3057, 3694, 3061; sample-weighted mean 0)`,
    /// or `nil` when no offsets were fitted.
    var deviceOffsetsSummaryLine: String? {
        guard !deviceOffsets.isEmpty else { return nil }
        func signed(_ value: Double) -> String {
            let text = Self.format(value, 2)
            return text.hasPrefix("-") || text == "0.00" ? text : "+" + text
        }
        let shown = deviceOffsets.prefix(12)
        var line = "Device offsets: " + shown.map { "\($0.device ?? "(no device)") \(signed($0.offset))" }
            .joined(separator: ", ") + " dB"
        if deviceOffsets.count > shown.count { line += " and \(deviceOffsets.count - shown.count) more" }
        line += " (samples " + shown.map { String($0.samples) }.joined(separator: ", ") + "; sample-weighted mean 0"
        let shrunk = deviceOffsets.filter { $0.shrinkage >= 0.05 }
        if !shrunk.isEmpty {
            line += "; shrunk toward 0: " + shrunk.prefix(6).map { "\($0.device ?? "(no device)") \(Self.format($0.shrinkage * 100, 0)) %" }
                .joined(separator: ", ")
        }
        return line + ")"
    }
}
