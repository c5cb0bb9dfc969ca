/// One training fingerprint: where, on which floor, by which device, and the RSSI of every venue
/// beacon (NaN when not heard).
struct FingerprintSample: Sendable {
    var point: PlanarPoint
    var floor: Int?
    var device: String?
    var values: [Double]

    /// The fingerprints of the scans with truth x/y that heard at least one venue beacon.
    static func samples(of training: [Scan], venue: PositioningVenue, filter: LocatorConfiguration?) -> [FingerprintSample] {
        let width = venue.venue.beacons.count
        var samples: [FingerprintSample] = []
        guard width > 0 else { return samples }
        if let filter {
            var locators: [String: Locator] = [:]
            for scan in training {
                let key = "\(scan.device ?? "")\u{1F}\(scan.track ?? "")"
                var locator = locators[key] ?? Locator(venue: venue, solver: WeightedCentroid(venue: venue), configuration: filter)
                let observation = locator.observe(scan)
                locators[key] = locator
                guard let truth = scan.truth, let point = truth.planarPoint, point.x.isFinite, point.y.isFinite else { continue }
                var values = [Double](repeating: .nan, count: width)
                var heard = false
                for signal in observation.signals where signal.rssi.isFinite && signal.beaconIndex >= 0 && signal.beaconIndex < width {
                    values[signal.beaconIndex] = signal.rssi
                    heard = true
                }
                if heard { samples.append(FingerprintSample(point: point, floor: truth.floor, device: scan.device, values: values)) }
            }
            return samples
        }
        var sums = [Double](repeating: 0, count: width)
        var counts = [Int](repeating: 0, count: width)
        for scan in training {
            guard let truth = scan.truth, let point = truth.planarPoint, point.x.isFinite, point.y.isFinite else { continue }
            for index in 0..<width {
                sums[index] = 0
                counts[index] = 0
            }
            var heard = false
            for reading in scan.readings where reading.isValid {
                guard let index = venue.directory.index(for: reading.beacon) else { continue }
                sums[index] += reading.rssi
                counts[index] += 1
                heard = true
            }
            guard heard else { continue }
            let values = (0..<width).map { counts[$0] > 0 ? sums[$0] / Double(counts[$0]) : .nan }
            samples.append(FingerprintSample(point: point, floor: truth.floor, device: scan.device, values: values))
        }
        return samples
    }

    /// One fingerprint per device, position and floor (in order of first appearance): per beacon,
    /// the mean of the RSSI heard when at least half of the scans heard it, NaN otherwise.
    static func merged(_ samples: [FingerprintSample]) -> [FingerprintSample] {
        struct Key: Hashable {
            var x: Double, y: Double, floor: Int?, device: String?
        }
        var order: [Key] = []
        var groups: [Key: (count: Int, sums: [Double], heard: [Int])] = [:]
        for sample in samples {
            let key = Key(x: sample.point.x, y: sample.point.y, floor: sample.floor, device: sample.device)
            var group = groups[key] ?? (0, [Double](repeating: 0, count: sample.values.count),
                                        [Int](repeating: 0, count: sample.values.count))
            if group.count == 0 { order.append(key) }
            group.count += 1
            for (index, value) in sample.values.enumerated() where !value.isNaN {
                group.sums[index] += value
                group.heard[index] += 1
            }
            groups[key] = group
        }
        return order.compactMap { key in
            guard let group = groups[key] else { return nil }
            let values = zip(group.sums, group.heard).map { sum, heard in
                heard > 0 && 2 * heard >= group.count ? sum / Double(heard) : .nan
            }
            guard values.contains(where: { !$0.isNaN }) else { return nil }
            return FingerprintSample(point: PlanarPoint(x: key.x, y: key.y), floor: key.floor, device: key.device, values: values)
        }
    }

    /// The fills cross-validation tries: the lowest RSSI − 5 dB but at most −100 dBm, then the
    /// 1st, 5th and 10th percentiles of the RSSI heard (duplicates dropped); −100 dBm alone
    /// without samples.
    static func fillCandidates(of samples: [FingerprintSample]) -> [Double] {
        var heard: [Double] = []
        for sample in samples {
            for value in sample.values where !value.isNaN { heard.append(value) }
        }
        guard !heard.isEmpty else { return [-100] }
        heard.sort()
        var fills = [min(heard[0] - 5, -100)]
        for quantile in [0.01, 0.05, 0.10] {
            let fill = Quantile.ofSorted(heard, quantile)
            if !fills.contains(fill) { fills.append(fill) }
        }
        return fills
    }

    /// Half the median distance from each distinct training position to the nearest other one,
    /// or `fallback` with fewer than two positions.
    static func halfSpacing(of samples: [FingerprintSample], fallback: Double) -> Double {
        var seen: Set<PlanarPoint> = []
        var points: [PlanarPoint] = []
        for sample in samples where seen.insert(sample.point).inserted { points.append(sample.point) }
        guard points.count >= 2 else { return fallback }
        var nearest: [Double] = []
        nearest.reserveCapacity(points.count)
        for (i, p) in points.enumerated() {
            var best = Double.infinity
            for (j, q) in points.enumerated() where i != j { best = min(best, p.distance(to: q)) }
            nearest.append(best)
        }
        let half = Quantile.ofSorted(nearest.sorted(), 0.5) / 2
        return half.isFinite && half > 0 ? half : fallback
    }
}
