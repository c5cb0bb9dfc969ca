import Foundation

/// What a ``Calibration`` found: the venue-wide path-loss fit, one fit per beacon heard, and the
/// counts of samples used and skipped.
///
/// ```swift
/// let result = try Calibration.fit(scans, in: venue)
/// print(result.summary)                       // a table for people
/// let venue = result.applied(to: venue, perBeacon: true)
/// try VenueFile.write(venue, to: url)
/// ```
public struct CalibrationResult: Hashable, Sendable, CustomStringConvertible {
    /// How the path-loss exponent of a fit was obtained.
    public enum ExponentStatus: String, Hashable, Sendable {
        /// Estimated from the data.
        case fitted
        /// The estimate fell outside ``Calibration/Options/exponentRange`` and was held at its bound
        /// (txPower then fitted with that exponent).
        case clamped
        /// The data cannot identify it (every sample at one distance), so it was held at the
        /// fallback (``Calibration/Options/fallbackExponent`` or the venue's default) and only
        /// txPower was fitted.
        case fixed
    }

    /// One fit of `rssi = txPower − 10·n·log10(d)` and how well it describes its samples.
    public struct Fit: Hashable, Sendable {
        /// A, the RSSI at 1 m (dBm).
        public var txPower: Double
        /// n, the path-loss exponent.
        public var pathLossExponent: Double
        /// Whether n was fitted, clamped to the physical range, or held fixed.
        public var exponentStatus: ExponentStatus
        /// The samples (readings) fitted.
        public var samples: Int
        /// 1.4826 × the median absolute deviation of the residuals (dB): the spread of the bulk.
        public var robustSigma: Double
        /// The root mean square of the residuals (dB), outliers included.
        public var rms: Double
        /// Pearson's correlation of log10(d) with RSSI (negative when RSSI falls with distance);
        /// `nil` when either is constant.
        public var correlation: Double?
        /// Samples whose residual exceeds 3 robust σ (σ at least the noise floor).
        public var outliers: Int
        /// The shortest and the longest distance fitted, after clamping (metres, or cells).
        public var distanceRange: ClosedRange<Double>

        /// Creates a fit.
        public init(txPower: Double, pathLossExponent: Double, exponentStatus: ExponentStatus, samples: Int,
                    robustSigma: Double, rms: Double, correlation: Double?, outliers: Int,
                    distanceRange: ClosedRange<Double>) {
            self.txPower = txPower
            self.pathLossExponent = pathLossExponent
            self.exponentStatus = exponentStatus
            self.samples = samples
            self.robustSigma = robustSigma
            self.rms = rms
            self.correlation = correlation
            self.outliers = outliers
            self.distanceRange = distanceRange
        }

        /// The RSSI the fit predicts at a distance (metres, or cells), not closer than `minimum`.
        public func rssi(atDistance distance: Double, minimum: Double = 0.5) -> Double {
            txPower - 10 * pathLossExponent * log10(max(distance, minimum, 1e-6))
        }
    }

    /// The fit of one beacon: its own samples, pulled toward the venue fit by a Gaussian prior.
    public struct BeaconFit: Hashable, Sendable {
        /// The beacon's index in the venue's ``Venue/beacons``.
        public var beaconIndex: Int
        /// The beacon's id.
        public var beaconID: String
        /// The fit and its residuals (``Fit/robustSigma`` and ``Fit/rms`` about this beacon's fit).
        public var fit: Fit
        /// How much of txPower comes from the prior: the posterior variance over the prior
        /// variance, 0 (the beacon's own data alone) … 1 (the venue fit alone).
        public var txPowerShrinkage: Double
        /// How much of the exponent comes from the prior, on the same 0…1 scale.
        public var exponentShrinkage: Double
        /// The beacon's samples left out because its fit predicts them within the margin of the
        /// detection floor (``DetectionFloor``); ``Fit/samples`` counts the others.
        public var excludedSamples: Int

        /// Creates a beacon fit.
        public init(beaconIndex: Int, beaconID: String, fit: Fit, txPowerShrinkage: Double, exponentShrinkage: Double,
                    excludedSamples: Int = 0) {
            self.beaconIndex = beaconIndex
            self.beaconID = beaconID
            self.fit = fit
            self.txPowerShrinkage = txPowerShrinkage
            self.exponentShrinkage = exponentShrinkage
            self.excludedSamples = excludedSamples
        }
    }

    /// The venue-wide fit of the samples (those not left out near the detection floor).
    public var venueFit: Fit
    /// One fit per beacon that has samples, in the venue's beacon order.
    public var beaconFits: [BeaconFit]
    /// Scans and readings seen, used and skipped.
    public var counts: Calibration.Counts
    /// The options the fit was made with.
    public var options: Calibration.Options
    /// Whether distances are metres (`false`: grid cells).
    public var distancesInMetres: Bool
    /// The receivers' detection floors and the samples left out because of them.
    public var detectionFloor: DetectionFloor
    /// Each receiver's RSSI offset δ (``Calibration``'s discussion of device offsets), in order of
    /// appearance; empty when the samples come from one receiver or offsets were not fitted.
    public var deviceOffsets: [DeviceOffset]

    /// Creates a result.
    public init(venueFit: Fit, beaconFits: [BeaconFit], counts: Calibration.Counts, options: Calibration.Options,
                distancesInMetres: Bool, detectionFloor: DetectionFloor = .disabled, deviceOffsets: [DeviceOffset] = []) {
        self.deviceOffsets = deviceOffsets
        self.venueFit = venueFit
        self.beaconFits = beaconFits
        self.counts = counts
        self.options = options
        self.distancesInMetres = distancesInMetres
        self.detectionFloor = detectionFloor
    }

    /// The fit of the beacon with this id, if it had samples.
    public func beaconFit(id: String) -> BeaconFit? {
        beaconFits.first { $0.beaconID == id }
    }

    /// A copy of `venue` with the venue fit as its defaults (``Venue/Defaults/txPower`` and
    /// ``Venue/Defaults/pathLossExponent``) and, when `perBeacon` is true, each fitted beacon's
    /// own `txPower` and `pathLossExponent` set to its fit (matched by id).
    ///
    /// Beacons without samples are left as they are; note that a beacon that already carries its
    /// own values keeps overriding the new defaults unless `perBeacon` replaces them. The devices
    /// of the fit become the venue's ``Venue/devices`` with their offsets (0 for each when the fit
    /// had one receiver), replacing what the venue said about them and keeping the others.
    public func applied(to venue: Venue, perBeacon: Bool) -> Venue {
        var venue = venue
        let fitted = offsetsByDevice
        if !fitted.isEmpty {
            venue.devices.removeAll { fitted[$0.id] != nil }
            venue.devices += fitted.keys.sorted().map { Venue.Device(id: $0, rssiOffset: fitted[$0] ?? 0) }
        }
        venue.defaults.txPower = venueFit.txPower
        venue.defaults.pathLossExponent = venueFit.pathLossExponent
        guard perBeacon else { return venue }
        var indexByID: [String: Int] = [:]
        for (index, beacon) in venue.beacons.enumerated() where indexByID[beacon.id] == nil {
            indexByID[beacon.id] = index
        }
        for beaconFit in beaconFits {
            guard let index = indexByID[beaconFit.beaconID] else { continue }
            venue.beacons[index].txPower = beaconFit.fit.txPower
            venue.beacons[index].pathLossExponent = beaconFit.fit.pathLossExponent
        }
        return venue
    }

    /// A copy of `venue` whose ``Venue/receivers`` carry this fit — a fit made with the receivers
    /// as beacons (``Venue/receiversAsBeacons()``, ``ReceiverFusion/sightings(in:)``): each
    /// receiver's `rssiOffset` is its fitted txPower (its own when `perReceiver` is true and it had
    /// samples, else the venue fit's) over the venue's ``Venue/Defaults/txPower``, held within
    /// ±40 dB, and its `pathLossExponent` the fitted one. The defaults are kept, so that the
    /// venue's beacons read as before; the fit's devices (the tags) join ``Venue/devices`` with
    /// their offsets.
    public func appliedToReceivers(of venue: Venue, perReceiver: Bool) -> Venue {
        var venue = venue
        let fitted = offsetsByDevice
        if !fitted.isEmpty {
            venue.devices.removeAll { fitted[$0.id] != nil }
            venue.devices += fitted.keys.sorted().map { Venue.Device(id: $0, rssiOffset: fitted[$0] ?? 0) }
        }
        for index in venue.receivers.indices {
            let own = perReceiver ? beaconFit(id: venue.receivers[index].id)?.fit : nil
            let fit = own ?? venueFit
            venue.receivers[index].rssiOffset = min(40, max(-40, fit.txPower - venue.defaults.txPower))
            venue.receivers[index].pathLossExponent = fit.pathLossExponent
        }
        return venue
    }

    /// ``summary``.
    public var description: String { summary }

    /// A multi-line report for people: what was used and skipped, the detection floor and what
    /// it left out, the device offsets (when fitted), the venue fit, and a table of the beacon fits (id, samples fitted, samples left
    /// out near the floor when any were, A, n, σ, shrinkage, distances).
    ///
    /// ```text
    /// Calibration (Tukey IRLS): 9956 samples from 876 of 876 scans, 2-D distances in m, n held to 1.0–6.0
    /// Skipped: nothing
    /// Venue fit: A = -63.51 dBm, n = 2.48  (robust σ 8.01 dB, RMS 9.67 dB, r = -0.57, 292 outliers > 3σ, d 0.5–15.7 m)
    /// Detection floor: A5 -91, BQ -103, S6 -100 dBm (weakest reading per receiver); samples kept where …
    /// Device offsets: A5 +9.95, BQ -5.01, S6 -4.67 dB (samples 3057, 3694, 3061; sample-weighted mean 0)
    ///
    /// beacon  samples  left out       A     n  σ (dB)  shrink A/n  d (m)
    /// 23          289        12  -64.37  2.39    6.01   0.20/0.27  1.9–13.9
    /// 24          306         9  -64.74  2.54    6.52   0.18/0.30  1.9–14.1
    /// …
    /// Beacons: 24, n from 2.07 to 2.72
    /// ```
    public var summary: String {
        let unit = distancesInMetres ? "m" : "cells"
        var lines: [String] = []
        let dimension = counts.spatialSamples == 0 ? "2-D"
            : counts.spatialSamples == counts.samples ? "3-D" : "2-D/3-D (\(counts.spatialSamples) 3-D)"
        let scansUsed = counts.scans - counts.scansWithoutTruth
        lines.append("Calibration (\(Self.lossName(options.loss))): \(counts.samples) samples from \(scansUsed) "
            + "of \(counts.scans) scans, \(dimension) distances in \(unit), n held to "
            + "\(Self.format(options.exponentRange.lowerBound, 1))–\(Self.format(options.exponentRange.upperBound, 1))")
        var skipped: [String] = []
        if counts.scansWithoutTruth > 0 { skipped.append("\(counts.scansWithoutTruth.counted("scan")) without truth x/y") }
        if counts.invalidReadings > 0 { skipped.append("\(counts.invalidReadings.counted("invalid reading"))") }
        if counts.unresolvedReadings > 0 { skipped.append("\(counts.unresolvedReadings.counted("reading")) of unknown beacons") }
        if counts.readingsFromUnplacedBeacons > 0 {
            skipped.append("\(counts.readingsFromUnplacedBeacons.counted("reading")) of beacons without position")
        }
        if counts.readingsAcrossFloors > 0 { skipped.append("\(counts.readingsAcrossFloors.counted("reading")) across floors") }
        lines.append("Skipped: " + (skipped.isEmpty ? "nothing" : skipped.joined(separator: ", ")))
        let v = venueFit
        var details = "robust σ \(Self.format(v.robustSigma, 2)) dB, RMS \(Self.format(v.rms, 2)) dB"
        if let r = v.correlation { details += ", r = \(Self.format(r, 2))" }
        details += ", \(v.outliers) outliers > 3σ, d \(Self.format(v.distanceRange.lowerBound, 1))–"
            + "\(Self.format(v.distanceRange.upperBound, 1)) \(unit)"
        lines.append("Venue fit: A = \(Self.format(v.txPower, 2)) dBm, n = \(Self.format(v.pathLossExponent, 2))  (\(details))")
        switch v.exponentStatus {
        case .fitted: break
        case .clamped: lines.append("Note: the venue's n fell outside the physical range and was held at its bound.")
        case .fixed: lines.append("Note: every sample is at the same distance, so n cannot be fitted: "
            + "it is held at \(Self.format(v.pathLossExponent, 2)) and only A was fitted.")
        }
        lines.append(detectionFloor.summaryLine(samples: counts.samples))
        if let line = deviceOffsetsSummaryLine { lines.append(line) }
        guard !beaconFits.isEmpty else { return lines.joined(separator: "\n") }
        lines.append("")
        // The "left out" column only when the detection floor left something out.
        let showsExcluded = beaconFits.contains { $0.excludedSamples > 0 }
        let header = ["beacon", "samples"] + (showsExcluded ? ["left out"] : [])
            + ["A", "n", "σ (dB)", "shrink A/n", "d (\(unit))"]
        var rows: [[String]] = [header]
        for beaconFit in beaconFits {
            let fit = beaconFit.fit
            let mark = fit.exponentStatus == .clamped ? "*" : ""
            rows.append([beaconFit.beaconID, String(fit.samples)]
                + (showsExcluded ? [String(beaconFit.excludedSamples)] : []) + [
                Self.format(fit.txPower, 2),
                Self.format(fit.pathLossExponent, 2) + mark, Self.format(fit.robustSigma, 2),
                Self.format(beaconFit.txPowerShrinkage, 2) + "/" + Self.format(beaconFit.exponentShrinkage, 2),
                Self.format(fit.distanceRange.lowerBound, 1) + "–" + Self.format(fit.distanceRange.upperBound, 1),
            ])
        }
        let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            var line = ""
            for (column, cell) in row.enumerated() {
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                // The id and the distance range read left-aligned, numbers right-aligned.
                let isText = column == 0 || column == row.count - 1
                line += column == 0 ? "" : "  "
                line += isText ? cell + padding : padding + cell
            }
            while line.last == " " { line.removeLast() }
            lines.append(line)
        }
        if beaconFits.contains(where: { $0.fit.exponentStatus == .clamped }) {
            lines.append("* n held at a bound of the physical range")
        }
        let exponents = beaconFits.map(\.fit.pathLossExponent)
        if let low = exponents.min(), let high = exponents.max() {
            lines.append("Beacons: \(beaconFits.count), n from \(Self.format(low, 2)) to \(Self.format(high, 2))")
        }
        return lines.joined(separator: "\n")
    }

    static func lossName(_ loss: Calibration.Loss) -> String {
        switch loss {
        case .leastSquares: "least squares"
        case .huber: "Huber IRLS"
        case .tukey: "Tukey IRLS"
        }
    }

    static func format(_ value: Double, _ digits: Int) -> String {
        let text = String(format: "%.\(digits)f", value)
        // Avoid "-0.00".
        return text.hasPrefix("-") && text.dropFirst().allSatisfy { $0 == "0" || $0 == "." } ? String(text.dropFirst()) : text
    }
}
