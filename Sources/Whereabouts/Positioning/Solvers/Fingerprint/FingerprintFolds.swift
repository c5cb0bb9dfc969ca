/// Training fingerprints dealt into folds by spatial block (``SpatialFolds``).
struct FingerprintFolds: Sendable {
    let spatial: SpatialFolds

    /// How many folds hold samples.
    var count: Int { spatial.count }

    init(samples: [FingerprintSample], blockSize: Double, folds requested: Int) {
        spatial = SpatialFolds(locations: samples.map { ($0.point, $0.floor) }, blockSize: blockSize, folds: requested)
    }

    /// The fold of a sample; `nil` (never held out) for a block no query fell in.
    func fold(of sample: FingerprintSample) -> Int? {
        spatial.fold(of: sample.point, floor: sample.floor)
    }

    /// Locates held-out `queries` (an even sample of at most `maximumQueries`) from the other
    /// folds' `references` for every `k` at once: the sum of errors per `k`, and per `k` each
    /// query's error over its radius before scaling.
    func validate(queries: [FingerprintSample], references: [FingerprintSample], width: Int,
                  metric: FingerprintSolver.Metric, merge: Bool, fill: Double,
                  ks: [Int], minimumSpread: Double, maximumQueries: Int)
        -> (queries: Int, errorSums: [Double], ratios: [[Double]]) {
        var errorSums = [Double](repeating: 0, count: ks.count)
        var ratios = [[Double]](repeating: [], count: ks.count)
        guard count >= 2, let largest = ks.last, width > 0 else { return (0, errorSums, ratios) }
        let limit = max(1, maximumQueries)
        let stride = max(1, (queries.count + limit - 1) / limit)
        let queryFolds = queries.map { fold(of: $0) }
        let referenceFolds = references.map { fold(of: $0) }
        var located = 0
        let beacons = ContiguousArray(0..<width)
        var buffer = [FingerprintTable.Neighbour](repeating: .init(distance: 0, row: 0), count: largest)
        for current in 0..<count {
            let training = references.indices.filter { referenceFolds[$0] != current }.map { references[$0] }
            let kept = merge ? FingerprintSample.merged(training) : training
            guard !kept.isEmpty else { continue }
            // Floors are left out: held-out scans are located over every fingerprint.
            let table = FingerprintTable(references: kept, width: width,
                                          fill: FingerprintSolver.usesFill(metric) ? fill : nil)
            for index in queries.indices where queryFolds[index] == current && index % stride == 0 {
                let sample = queries[index]
                let found = sample.values.withUnsafeBufferPointer { query in
                    buffer.withUnsafeMutableBufferPointer { neighbours in
                        table.nearest(to: query, beacons: beacons, floor: nil, metric: metric, fill: fill, into: neighbours)
                    }
                }
                guard found > 0 else { continue }
                located += 1
                for (position, k) in ks.enumerated() {
                    let estimate = buffer.withUnsafeMutableBufferPointer {
                        FingerprintTable.estimate($0, count: min(k, found), points: table.points)
                    }
                    guard let estimate else { continue }
                    let error = estimate.point.distance(to: sample.point)
                    errorSums[position] += error
                    ratios[position].append(error / max(estimate.spread, minimumSpread))
                }
            }
        }
        return (located, errorSums, ratios)
    }
}
