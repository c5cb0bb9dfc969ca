import Foundation

/// A Bayes filter over the cells of a ``PosteriorGrid`` on each floor of a venue: the probability
/// of each cell of each floor (a *layer*), moved by a walking motion model and weighed by each
/// scan's likelihood. Deterministic; its state is one `Float` per cell and layer (at most
/// ``PosteriorSolver/Options/maximumCells`` cells a layer, 16,384 over all layers: 64 KiB).
///
/// **Motion** over `dt` seconds: with probability `1 − exp(−jumpRate·dt)` the device is anywhere
/// (a restart, a gap, a walk the scans missed), on any floor; otherwise it stood still with
/// probability `stayProbability` or walked, spreading by a Gaussian of σ = `speed·dt` (a person's
/// bounded walking speed, applied separably along both axes, the mass that would leave the grid
/// kept in it). Then, with several layers, with probability `1 − exp(−floorChangeRate·dt)` it
/// took the stairs: the mass of a cell goes to the same cell of the other floors, evenly.
///
/// ```swift
/// var filter = GridFilter(grid: grid)
/// filter.predict(seconds: 1, motion: motion)
/// filter.update(logLikelihood: logs, temper: 0.5)
/// ```
public struct GridFilter: Sendable {
    /// How a device moves between scans.
    public struct Motion: Hashable, Sendable {
        /// The σ of a walking device's displacement per second, venue units.
        public var speed: Double
        /// The probability that the device did not move between two scans.
        public var stayProbability: Double
        /// The rate (per second) at which the device may have gone anywhere.
        public var jumpRate: Double
        /// The rate (per second) at which the device changes floors (with several layers).
        public var floorChangeRate: Double

        /// Creates a motion model.
        public init(speed: Double, stayProbability: Double, jumpRate: Double, floorChangeRate: Double = 0) {
            self.speed = speed
            self.stayProbability = stayProbability
            self.jumpRate = jumpRate
            self.floorChangeRate = floorChangeRate
        }
    }

    /// The cells of one layer.
    public let grid: PosteriorGrid
    /// How many layers (floors) the filter holds, each the grid's cells: 1 for one floor.
    public let layers: Int
    /// The probability of each cell of each layer (summing to 1), layer after layer: cell `c` of
    /// layer `l` is at `l · grid.count + c`.
    public private(set) var weights: [Float]

    /// A filter with every cell of every layer equally likely.
    public init(grid: PosteriorGrid, layers: Int = 1) {
        self.grid = grid
        self.layers = max(layers, 1)
        let count = grid.count * self.layers
        weights = [Float](repeating: 1 / Float(max(count, 1)), count: count)
    }

    /// A filter holding `weights` (one per cell and layer, renormalised; uniform when there are
    /// not as many or they hold nothing).
    init(grid: PosteriorGrid, layers: Int = 1, weights: [Float]) {
        self.grid = grid
        self.layers = max(layers, 1)
        let count = grid.count * self.layers
        self.weights = weights.count == count ? weights : [Float](repeating: 1, count: count)
        normalise(sum: self.weights.reduce(0, +))
    }

    /// One scan of a track as the forward filter saw it, kept for smoothing.
    struct SmoothingStep: Sendable {
        /// The filtered probability of each cell after the scan.
        var filtered: [Float]
        /// The scan's evidence at each cell: its tempered log-likelihood plus the log-prior it
        /// was weighed with; `nil` for none (a silent scan without a prior).
        var evidence: [Float]?
        /// The seconds since the previous step.
        var seconds: Double
        /// Whether the step continues the previous one (`false`: the filter started afresh).
        var continues: Bool
    }

    /// The smoothed posterior at each step: the forward filter's times a backward
    /// message carrying the evidence of the steps after it through the same motion,
    /// `p(xₜ | all) ∝ p(xₜ | up to t) · βₜ(xₜ)`, `βₜ = K(e^{evidenceₜ₊₁} ⊙ βₜ₊₁)`, `β` of the last
    /// step (and of one before a fresh start) uniform. The motion model is symmetric, so `K`
    /// is the forward step itself (``transition(_:seconds:motion:grid:)``); each message is
    /// scaled to a maximum of 1, and each result renormalised.
    ///
    /// With a `count`, only the first `count` steps' posteriors are given (the messages still
    /// come back from the last step): a fixed-lag smoother asks for the oldest step alone.
    static func smoothed(_ steps: [SmoothingStep], motion: Motion, grid: PosteriorGrid, layers: Int = 1,
                         count: Int? = nil) -> [GridFilter] {
        let wanted = min(max(count ?? steps.count, 0), steps.count)
        guard wanted > 0 else { return [] }
        let layers = max(layers, 1)
        var results = [GridFilter](repeating: GridFilter(grid: grid, layers: layers), count: wanted)
        var message: [Float]?   // βₜ; nil: uniform
        for index in stride(from: steps.count - 1, through: 0, by: -1) {
            if index < steps.count - 1 {
                let next = steps[index + 1]
                if next.continues {
                    var carried = message ?? [Float](repeating: 1, count: grid.count * layers)
                    if let evidence = next.evidence, evidence.count == carried.count {
                        let top = evidence.max() ?? 0
                        for cell in carried.indices { carried[cell] *= exp(evidence[cell] - top) }
                    }
                    carried = transition(carried, seconds: next.seconds, motion: motion, grid: grid, layers: layers) ?? carried
                    let largest = carried.max() ?? 0
                    message = largest > 0 && largest.isFinite ? carried.map { $0 / largest } : nil
                } else {
                    message = nil
                }
            }
            guard index < wanted else { continue }
            var weights = steps[index].filtered
            if let message, message.count == weights.count {
                for cell in weights.indices { weights[cell] *= message[cell] }
                // A message that rules out every cell the filter held: the filter's own.
                if !(weights.reduce(0, +) > 1e-30) { weights = steps[index].filtered }
            }
            results[index] = GridFilter(grid: grid, layers: layers, weights: weights)
        }
        return results
    }

    /// The bytes of state the filter keeps (its weights).
    public var stateBytes: Int { weights.count * MemoryLayout<Float>.stride }

    /// Moves the probability by `motion` over `seconds` (negative or not finite: 0).
    ///
    /// With a `walkingShare`, only the cells within the walk's reach (3 σ) of one holding at least
    /// that share of the largest weight walk — the box around them on each layer, walked as the
    /// whole grid would walk it with nothing outside —; the others, holding less each, stay where
    /// they are, and jump and change floors alike. Measured with a share of 1 %: the same mean
    /// errors to 0.01 m on the shared datasets and the family's tuning seeds, 5 % more fixes a second.
    /// A share that is not finite walks every cell.
    public mutating func predict(seconds: Double, motion: Motion, walkingShare: Float? = nil) {
        predict(seconds: seconds, motion: motion, walkingShare: walkingShare, normalising: true)
    }

    /// ``predict(seconds:motion:walkingShare:)``, renormalised only when `normalising`: a
    /// prediction the next scan weighs at once (``update(logLikelihood:temper:logPrior:)``
    /// renormalises) need not be, its total being within rounding of the mass the walk keeps.
    mutating func predict(seconds: Double, motion: Motion, walkingShare: Float?, normalising: Bool) {
        guard let moved = Self.transition(weights, seconds: seconds, motion: motion, grid: grid, layers: layers,
                                          walkingShare: walkingShare) else { return }
        weights = moved
        if normalising { normalise(sum: VectorMath.sum(weights)) }
    }

    /// `values` (one per cell and layer) carried by `motion` over `seconds`, unnormalised; `nil`
    /// when nothing moves (no time, one cell). The motion is symmetric — a walk from a cell to
    /// another is as likely as back, the jumps go anywhere alike, a floor change goes to every
    /// other floor alike — so the same step carries a smoother's backward message
    /// (``smoothed(_:motion:grid:layers:count:)``) as it carries the forward probability; the
    /// jumps spread the values' own total, so that neither needs to sum to 1.
    static func transition(_ values: [Float], seconds: Double, motion: Motion, grid: PosteriorGrid,
                           layers: Int = 1, walkingShare: Float? = nil) -> [Float]? {
        let dt = seconds.isFinite ? max(seconds, 0) : 0
        let layers = max(layers, 1)
        guard dt > 0, values.count > 1, values.count == grid.count * layers else { return nil }
        let jump = Float(1 - exp(-max(motion.jumpRate, 0) * dt))
        let stay = Float(min(max(motion.stayProbability, 0), 1))
        let sigma = max(motion.speed, 0) * dt / grid.cellSize
        let total = VectorMath.sum(values)
        let uniform = jump * total / Float(values.count)
        // What a cell keeps, given what walked into it: the share that stood still, the share
        // that walked, and its share of the jumps.
        @inline(__always) func mixed(_ value: Float, _ walked: Float) -> Float {
            (1 - jump) * (stay * value + (1 - stay) * walked) + uniform
        }
        var moved = values
        if sigma > 0.3 {
            let radius = Int((3 * sigma).rounded(.up))
            if radius >= max(grid.columns, grid.rows) * 2 {
                // Spread wider than the grid: about uniform on each floor.
                for layer in 0..<layers {
                    let range = (layer * grid.count)..<((layer + 1) * grid.count)
                    let mass = layers == 1 ? total : values[range].reduce(0, +)
                    moved.replaceSubrange(range, with: repeatElement(mass / Float(grid.count), count: grid.count))
                }
            } else {
                let kernel = (-radius...radius).map { Float(exp(-Double($0 * $0) / (2 * sigma * sigma))) }
                let kernelTotal = kernel.reduce(0, +)
                let normalised = kernel.map { $0 / kernelTotal }
                if let walkingShare, walkingShare.isFinite, case let largest = VectorMath.largest(values), largest > 0 {
                    // Every cell as if nothing walked into it (what a cell outside the boxes
                    // keeps), then each box's cells with what walked.
                    var result = values
                    result.withUnsafeMutableBufferPointer { result in
                        for cell in result.indices { result[cell] = mixed(result[cell], result[cell]) }
                    }
                    let threshold = largest * min(walkingShare, 1)
                    for layer in 0..<layers {
                        let base = layer * grid.count
                        guard let box = Self.box(of: values, from: base, grid: grid, atLeast: threshold, margin: radius)
                        else { continue }
                        var inside = [Float](repeating: 0, count: box.columns.count * box.rows.count)
                        for (index, row) in box.rows.enumerated() {
                            let source = base + row * grid.columns
                            inside.replaceSubrange((index * box.columns.count)..<((index + 1) * box.columns.count),
                                                   with: values[(source + box.columns.lowerBound)..<(source + box.columns.upperBound)])
                        }
                        let walked = Self.blurred(inside, columns: box.columns.count, rows: box.rows.count,
                                                  kernel: normalised, radius: radius,
                                                  margins: (box.columns.lowerBound, grid.columns - box.columns.upperBound,
                                                            box.rows.lowerBound, grid.rows - box.rows.upperBound))
                        result.withUnsafeMutableBufferPointer { result in
                            values.withUnsafeBufferPointer { values in
                                walked.withUnsafeBufferPointer { walked in
                                    for (index, row) in box.rows.enumerated() {
                                        let target = base + row * grid.columns + box.columns.lowerBound
                                        let from = index * box.columns.count
                                        for column in 0..<box.columns.count {
                                            result[target + column] = mixed(values[target + column], walked[from + column])
                                        }
                                    }
                                }
                            }
                        }
                    }
                    return Self.changingFloors(result, seconds: dt, motion: motion, grid: grid, layers: layers)
                } else if layers == 1 {
                    moved = Self.blurred(moved, columns: grid.columns, rows: grid.rows, kernel: normalised, radius: radius)
                } else {
                    for layer in 0..<layers {
                        let range = (layer * grid.count)..<((layer + 1) * grid.count)
                        moved.replaceSubrange(range, with: Self.blurred(Array(values[range]), columns: grid.columns,
                                                                        rows: grid.rows, kernel: normalised, radius: radius))
                    }
                }
            }
        }
        var result = values
        for cell in result.indices { result[cell] = mixed(values[cell], moved[cell]) }
        return Self.changingFloors(result, seconds: dt, motion: motion, grid: grid, layers: layers)
    }

    /// `values` after `seconds` of floor changes: with several layers, each cell's mass shared
    /// with the same cell of the other floors at `motion`'s rate.
    private static func changingFloors(_ values: [Float], seconds dt: Double, motion: Motion, grid: PosteriorGrid,
                                       layers: Int) -> [Float] {
        var result = values
        if layers > 1, motion.floorChangeRate > 0, motion.floorChangeRate.isFinite {
            // Each cell's mass shared with the same cell of the other floors.
            let change = Float(1 - exp(-motion.floorChangeRate * dt)), count = grid.count
            let share = change / Float(layers - 1)
            for cell in 0..<count {
                var total: Float = 0
                for layer in 0..<layers { total += result[layer * count + cell] }
                for layer in 0..<layers {
                    let own = result[layer * count + cell]
                    result[layer * count + cell] = (1 - change) * own + share * (total - own)
                }
            }
        }
        return result
    }

    /// The columns and rows of a layer (its cells from `base`) around its cells holding at least
    /// `threshold`, widened by `margin` cells within the grid; `nil` when none does.
    static func box(of values: [Float], from base: Int, grid: PosteriorGrid, atLeast threshold: Float, margin: Int)
        -> (columns: Range<Int>, rows: Range<Int>)? {
        var lowColumn = grid.columns, highColumn = -1, lowRow = grid.rows, highRow = -1
        for row in 0..<grid.rows {
            let first = base + row * grid.columns
            // A row without such a cell (most of them) is skipped at once; in the others, the
            // first and the last from either end.
            let cells = first..<(first + grid.columns)
            guard values.withUnsafeBufferPointer({ VectorMath.largest(in: UnsafeBufferPointer(rebasing: $0[cells])) })
                    >= threshold else { continue }
            var low = 0, high = grid.columns - 1
            while low < grid.columns, !(values[first + low] >= threshold) { low += 1 }
            while high >= 0, !(values[first + high] >= threshold) { high -= 1 }
            guard high >= 0 else { continue }
            lowColumn = min(lowColumn, low)
            highColumn = max(highColumn, high)
            lowRow = min(lowRow, row)
            highRow = row
        }
        guard highRow >= 0 else { return nil }
        return (max(lowColumn - margin, 0)..<min(highColumn + margin + 1, grid.columns),
                max(lowRow - margin, 0)..<min(highRow + margin + 1, grid.rows))
    }

    /// `values` convolved with `kernel` along rows then columns, each pass's edges renormalised
    /// so that no mass leaves the grid.
    ///
    /// With `margins`, the values are a box of a larger grid that many cells short of its west,
    /// east, south and north edges, the cells beyond taken as 0: each edge of the box is
    /// renormalised only where it is the grid's.
    static func blurred(_ values: [Float], columns: Int, rows: Int, kernel: [Float], radius: Int,
                        margins: (west: Int, east: Int, south: Int, north: Int) = (0, 0, 0, 0)) -> [Float] {
        guard columns > 0, rows > 0, values.count >= columns * rows, kernel.count >= 2 * radius + 1 else { return values }
        var horizontal = [Float](repeating: 0, count: values.count)
        var result = [Float](repeating: 0, count: values.count)
        // Tap by tap over a whole row (contiguous, so that it vectorises), each cell's sums
        // taken in the same order as source by source would.
        let scratch = UnsafeMutableBufferPointer<Float>.allocate(capacity: 2 * columns)
        defer { scratch.deallocate() }
        let acc = UnsafeMutableBufferPointer(rebasing: scratch[0..<columns])
        let mass = UnsafeMutableBufferPointer(rebasing: scratch[columns..<(2 * columns)])
        kernel.withUnsafeBufferPointer { kernel in
            values.withUnsafeBufferPointer { values in
                horizontal.withUnsafeMutableBufferPointer { horizontal in
                    guard let first = values.baseAddress else { return }
                    // The kernel's mass within the grid at each column, the same on every row.
                    mass.initialize(repeating: 0)
                    for offset in -radius...radius {
                        let k = kernel[offset + radius]
                        let inside = max(0, -offset - margins.west), reach = min(columns - 1, columns - 1 - offset + margins.east)
                        if inside <= reach {
                            for column in inside...reach { mass[column] += k }
                        }
                    }
                    for row in 0..<rows {
                        let base = row * columns
                        acc.initialize(repeating: 0)
                        for offset in -radius...radius {
                            let k = kernel[offset + radius]
                            let low = max(0, -offset), high = min(columns - 1, columns - 1 - offset)
                            if low <= high {
                                // The row's values `offset` cells along: no index arithmetic in the
                                // loop (whose overflow checks kept it from running cells at once).
                                let source = first + (base + offset)
                                for column in low...high { acc[column] += k * source[column] }
                            }
                        }
                        let target = UnsafeMutableBufferPointer(rebasing: horizontal[base..<(base + columns)])
                        for column in 0..<columns {
                            target[column] = mass[column] > 0 ? acc[column] / mass[column] : 0
                        }
                    }
                }
            }
            horizontal.withUnsafeBufferPointer { horizontal in
                result.withUnsafeMutableBufferPointer { result in
                    guard let first = horizontal.baseAddress else { return }
                    for row in 0..<rows {
                        acc.initialize(repeating: 0)
                        var rowMass: Float = 0
                        for source in max(row - radius, -margins.south)...min(row + radius, rows - 1 + margins.north) {
                            let k = kernel[source - row + radius]
                            rowMass += k
                            guard source >= 0, source < rows else { continue }
                            let sourceRow = first + source * columns
                            for column in 0..<columns { acc[column] += k * sourceRow[column] }
                        }
                        let base = row * columns
                        let target = UnsafeMutableBufferPointer(rebasing: result[base..<(base + columns)])
                        for column in 0..<columns { target[column] = rowMass > 0 ? acc[column] / rowMass : 0 }
                    }
                }
            }
        }
        return result
    }

    /// Weighs each cell by `exp(temper·logLikelihood + logPrior)` (one value per cell; the
    /// prior, untempered, when given with as many values) and renormalises. When no cell keeps
    /// any weight (evidence against every cell the filter allowed), the likelihood and prior
    /// alone are kept.
    public mutating func update(logLikelihood: [Float], temper: Double, logPrior: [Float]? = nil) {
        guard logLikelihood.count == weights.count, !weights.isEmpty else { return }
        let count = weights.count
        let prior = logPrior.flatMap { $0.count == count ? $0 : nil }
        let alpha = Float(min(max(temper, 0), 1))
        // Each cell's evidence `alpha·log + prior`, computed where it is read (not kept): its
        // largest, then each weight times e^(evidence − the largest), the exponential in
        // arithmetic that runs several cells at once (``VectorMath/exp(_:)``).
        let top = logLikelihood.withUnsafeBufferPointer { logs in
            guard let prior else { return Self.largestEvidence(logs, alpha: alpha, prior: nil) }
            return prior.withUnsafeBufferPointer { Self.largestEvidence(logs, alpha: alpha, prior: $0) }
        }
        guard top.isFinite else { return }
        weights.withUnsafeMutableBufferPointer { weights in
            logLikelihood.withUnsafeBufferPointer { logs in
                if let prior {
                    prior.withUnsafeBufferPointer { prior in
                        for cell in 0..<count {
                            weights[cell] *= Self.relativeLikelihood(alpha * logs[cell] + prior[cell] - top)
                        }
                    }
                } else {
                    for cell in 0..<count { weights[cell] *= Self.relativeLikelihood(alpha * logs[cell] - top) }
                }
            }
        }
        var sum = VectorMath.sum(weights)
        if !(sum > 1e-30) || !sum.isFinite {
            sum = 0
            for cell in 0..<count {
                let value = Self.relativeLikelihood(alpha * logLikelihood[cell] + (prior?[cell] ?? 0) - top)
                weights[cell] = value
                sum += value
            }
        }
        normalise(sum: sum)
    }

    /// e^difference for a difference ≤ 0 from the largest evidence; 0 below −87 (and for −∞ and
    /// NaN), where `Float` holds no more than a denormal of it.
    @inline(__always)
    static func relativeLikelihood(_ difference: Float) -> Float {
        difference > -87 ? VectorMath.exp(difference) : 0
    }

    /// The largest `alpha·log + prior` over the cells (`prior` as many as `logs`, or none), −∞
    /// when none is a number (``VectorMath/largest(count:eight:one:)``).
    static func largestEvidence(_ logs: UnsafeBufferPointer<Float>, alpha: Float,
                                prior: UnsafeBufferPointer<Float>?) -> Float {
        guard let base = logs.baseAddress else { return -.infinity }
        typealias Lanes = SIMD8<Float>
        if let priorBase = prior?.baseAddress {
            return VectorMath.largest(count: logs.count,
                                      eight: { alpha * UnsafeRawPointer(base + $0).loadUnaligned(as: Lanes.self)
                                          + UnsafeRawPointer(priorBase + $0).loadUnaligned(as: Lanes.self) },
                                      one: { alpha * base[$0] + priorBase[$0] })
        }
        return VectorMath.largest(count: logs.count,
                                  eight: { alpha * UnsafeRawPointer(base + $0).loadUnaligned(as: Lanes.self) },
                                  one: { alpha * base[$0] })
    }

    /// Weighs each cell by `exp(logPrior)` (one value per cell; ignored otherwise) and
    /// renormalises: where the device may be, without a scan's evidence.
    public mutating func weigh(logPrior: [Float]) {
        guard logPrior.count == weights.count else { return }
        update(logLikelihood: [Float](repeating: 0, count: weights.count), temper: 1, logPrior: logPrior)
    }

    /// Divides every weight by `sum`; back to uniform when it is not positive and finite.
    private mutating func normalise(sum: Float) {
        guard sum > 0, sum.isFinite else {
            weights = [Float](repeating: 1 / Float(max(weights.count, 1)), count: weights.count)
            return
        }
        let inverse = 1 / sum
        for cell in weights.indices { weights[cell] *= inverse }
    }

    /// The probability of each layer: the sum of its cells' weights.
    public var layerProbabilities: [Double] {
        (0..<layers).map { layer in
            weights[(layer * grid.count)..<((layer + 1) * grid.count)].reduce(0.0) { $0 + Double($1) }
        }
    }

    /// The posterior's mean on a layer, its per-axis variances (venue units²) and its most
    /// probable cell's centre there (the layer's weights renormalised).
    public func summary(layer: Int = 0) -> (mean: PlanarPoint, variance: (x: Double, y: Double), mode: PlanarPoint) {
        let base = min(max(layer, 0), layers - 1) * grid.count
        let columns = grid.columns, rows = grid.rows
        // The layer's mass per column and per row (its marginals), then their moments.
        var columnMass = [Double](repeating: 0, count: columns)
        var rowMass = [Double](repeating: 0, count: rows)
        var best = base, bestWeight = weights[base]
        weights.withUnsafeBufferPointer { weights in
            columnMass.withUnsafeMutableBufferPointer { columnMass in
                for row in 0..<rows {
                    let first = base + row * columns
                    // The row's mass in four sums side by side, each column's added to its own.
                    var lanes = SIMD4<Double>(), column = 0
                    while column + 4 <= columns {
                        let w = SIMD4<Double>(Double(weights[first + column]), Double(weights[first + column + 1]),
                                              Double(weights[first + column + 2]), Double(weights[first + column + 3]))
                        columnMass[column] += w[0]
                        columnMass[column + 1] += w[1]
                        columnMass[column + 2] += w[2]
                        columnMass[column + 3] += w[3]
                        lanes += w
                        column += 4
                    }
                    var mass = lanes.sum()
                    while column < columns {
                        let w = Double(weights[first + column])
                        columnMass[column] += w
                        mass += w
                        column += 1
                    }
                    rowMass[row] = mass
                    // The first largest cell: a row is looked through only when it holds a larger one.
                    let cells = UnsafeBufferPointer(rebasing: weights[first..<(first + columns)])
                    guard VectorMath.largest(in: cells) > bestWeight else { continue }
                    for cell in first..<(first + columns) where weights[cell] > bestWeight {
                        best = cell
                        bestWeight = weights[cell]
                    }
                }
            }
        }
        func moments(_ mass: [Double], origin: Double) -> (total: Double, sum: Double, squares: Double) {
            var total = 0.0, sum = 0.0, squares = 0.0
            for index in mass.indices {
                let centre = origin + (Double(index) + 0.5) * grid.cellSize
                total += mass[index]
                sum += mass[index] * centre
                squares += mass[index] * centre * centre
            }
            return (total, sum, squares)
        }
        let x = moments(columnMass, origin: grid.minX), y = moments(rowMass, origin: grid.minY)
        let total = y.total
        guard total > 0 else {
            let centre = grid.centre(of: grid.count / 2)
            return (centre, (0, 0), centre)
        }
        let mx = x.sum / total, my = y.sum / total
        // A cell spreads its mass uniformly: add its own variance, size²/12 per axis.
        let own = grid.cellSize * grid.cellSize / 12
        return (PlanarPoint(x: mx, y: my), (max(x.squares / total - mx * mx, 0) + own, max(y.squares / total - my * my, 0) + own),
                grid.centre(of: best - base))
    }
}
