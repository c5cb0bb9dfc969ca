import Foundation

/// The likelihood weighed where the posterior holds its mass. Each scan is weighed first at the
/// centre cell of each block of ``PosteriorSolver/blockFactor`` × ``PosteriorSolver/blockFactor``
/// cells (``RadioMap/sampled(every:)``, a 25th of the cells); the prediction times each block's
/// likelihood (the largest of it and its neighbours', which bound the cells of a block nearer a
/// beacon than its centre) is the posterior they make, and the cells where that holds at least
/// ``PosteriorSolver/supportShare`` of its largest are weighed exactly; the others keep their
/// block's value. A cell left to its block holds little of the mass (a Gaussian's tail beyond 1 %
/// of its peak holds 1 % of it); a scan that makes it likely moves mass there, and the next scan
/// weighs it exactly. A track so weighs a 25th of the cells and a few hundred more, instead of
/// all of them. Measured against weighing every cell: the same mean errors to 0.01 m on the
/// four UJI sets and the family's tuning seeds and the same rooms on the three-room fixture;
/// 3.3 × the fixes a second on a two-floor venue (the benchmark's steps in Performance.md).
extension PosteriorSolver {
    /// The side of a block, in cells, whose centre cell stands for it outside the support: 5
    /// weighs the benchmark's scans 1.2 × as fast as 3 did (its blocks were half the cells
    /// weighed), with the same mean errors to 0.01 m on the UJI sets, within 0.02 m (under 1 %)
    /// on the family's venues, and the same rooms on the three-room fixture.
    static let blockFactor = 5
    /// The share of the blocks' posterior's largest weight from which a cell is weighed exactly.
    static let supportShare: Float = 0.01
    /// A gap of fewer cells than this in a row of the support is weighed exactly with it (a
    /// longer run costs less than two short ones).
    static let supportGap = 4

    /// The blocks' map of `map`, `nil` when its grid is under two blocks across or high.
    static func blockMap(of map: RadioMap?) -> RadioMap? {
        guard let map, map.grid.columns >= 2 * blockFactor, map.grid.rows >= 2 * blockFactor else { return nil }
        return map.sampled(every: blockFactor)
    }

    /// Per layer, the runs of cells (within the layer) whose weight is at least
    /// ``supportShare`` of the largest, with gaps shorter than ``supportGap`` closed; `nil` when
    /// they hold half the cells or more, or the weights hold nothing.
    static func supportRuns(of weights: [Float], grid: PosteriorGrid, layers: Int) -> [[Range<Int>]]? {
        let count = grid.count, columns = grid.columns
        guard count > 0, weights.count == count * layers else { return nil }
        let top = VectorMath.largest(weights)
        guard top > 0, top.isFinite else { return nil }
        let threshold = top * supportShare
        var runs = [[Range<Int>]](repeating: [], count: layers)
        var held = 0
        for layer in 0..<layers {
            let base = layer * count
            for row in 0..<grid.rows {
                // A row none of whose cells holds the share (most of them) is skipped at once.
                let rowCells = (base + row * columns)..<(base + (row + 1) * columns)
                guard weights.withUnsafeBufferPointer({ VectorMath.largest(in: UnsafeBufferPointer(rebasing: $0[rowCells])) })
                        >= threshold else { continue }
                var open: Range<Int>?
                for cell in (row * columns)..<((row + 1) * columns) where weights[base + cell] >= threshold {
                    if let run = open, cell - run.upperBound < supportGap {
                        open = run.lowerBound..<(cell + 1)
                    } else {
                        if let run = open { runs[layer].append(run) }
                        open = cell..<(cell + 1)
                    }
                }
                if let run = open { runs[layer].append(run) }
            }
            for run in runs[layer] { held += run.count }
        }
        return 2 * held >= weights.count ? nil : runs
    }

    /// The log-likelihood of the observation (``logLikelihood(of:map:offset:offsetVariance:runs:)``)
    /// weighed first at the blocks' centres, then exactly on the support of the posterior those
    /// make of `predicted` (the filter's weights after its motion; every cell alike without),
    /// each cell's block's value elsewhere; weighed exactly everywhere without a block map, or
    /// when the support holds half the cells.
    func logLikelihood(of observation: Observation, map: RadioMap, offset: Double, offsetVariance: Double,
                       predicted: [Float]?) -> (logs: [Float], offsets: [Float], used: Int)? {
        let grid = map.grid, layers = map.levels.count
        guard let blockMap, predicted == nil || predicted?.count == grid.count * layers,
              let blocks = logLikelihood(of: observation, map: blockMap, offset: offset, offsetVariance: offsetVariance)
        else {
            return logLikelihood(of: observation, map: map, offset: offset, offsetVariance: offsetVariance)
        }
        let blockGrid = blockMap.grid
        // The posterior the blocks make: each cell's prediction times its block's tempered
        // likelihood (relative to the largest).
        let alpha = Float(min(max(likelihood.temper, 0), 1))
        let top = VectorMath.largest(blocks.logs)
        guard top.isFinite else {
            return logLikelihood(of: observation, map: map, offset: offset, offsetVariance: offsetVariance)
        }
        let blockWeights = Self.neighbourhoodMaxima(of: blocks.logs.map { GridFilter.relativeLikelihood(alpha * ($0 - top)) },
                                                    grid: blockGrid, layers: layers)
        // The prediction times each cell's block's weight; every cell's block's values, which
        // the support's cells then get exactly. Each array written once, from no initial values.
        let total = grid.count * layers
        var spread = true
        func spreading(_ values: [Float], times factors: UnsafeBufferPointer<Float>?) -> [Float] {
            [Float](unsafeUninitializedCapacity: total) { buffer, initialized in
                let factorBase = factors?.count == total ? factors?.baseAddress : nil
                let covered = buffer.baseAddress.map { base in
                    Self.forEachRow(of: grid, in: blockGrid, layers: layers, expanding: values) { cells, expanded in
                        // Pointers, so that the loops run cells at once (no checked index sums).
                        guard let source = expanded.baseAddress else { return }
                        let target = base + cells.lowerBound, count = cells.count
                        if let factorBase {
                            let from = factorBase + cells.lowerBound
                            for index in 0..<count { target[index] = from[index] * source[index] }
                        } else {
                            target.update(from: source, count: count)
                        }
                    }
                } ?? false
                if !covered {
                    buffer.initialize(repeating: 0)
                    spread = false
                }
                initialized = total
            }
        }
        let approximate = predicted.map { predicted in
            predicted.withUnsafeBufferPointer { spreading(blockWeights, times: $0) }
        } ?? spreading(blockWeights, times: nil)
        var logs = spreading(blocks.logs, times: nil), offsets = spreading(blocks.offsets, times: nil)
        guard spread, let runs = Self.supportRuns(of: approximate, grid: grid, layers: layers) else {
            return logLikelihood(of: observation, map: map, offset: offset, offsetVariance: offsetVariance)
        }
        guard let used = weigh(observation, map: map, offset: offset, offsetVariance: offsetVariance, runs: runs,
                               logs: &logs, offsets: &offsets) else {
            return logLikelihood(of: observation, map: map, offset: offset, offsetVariance: offsetVariance)
        }
        return (logs, offsets, used)
    }

    /// Each value the largest of its own and its eight neighbours' on the same layer: a block's
    /// likelihood at its centre cell can miss a cell of it nearer a beacon, where the likelihood
    /// changes fastest, and its neighbours' bound it better.
    static func neighbourhoodMaxima(of values: [Float], grid: PosteriorGrid, layers: Int) -> [Float] {
        let columns = grid.columns, rows = grid.rows
        guard columns > 0, rows > 0, values.count >= grid.count * layers else { return values }
        // Along each row, then along each column: the 3 × 3 maximum in two passes of three.
        var along = values, result = values
        for layer in 0..<layers {
            let base = layer * grid.count
            for row in 0..<rows {
                let first = base + row * columns
                for column in 0..<columns {
                    let left = values[first + max(column - 1, 0)], right = values[first + min(column + 1, columns - 1)]
                    along[first + column] = max(values[first + column], max(left, right))
                }
            }
            for row in 0..<rows {
                let first = base + row * columns
                let below = base + max(row - 1, 0) * columns, above = base + min(row + 1, rows - 1) * columns
                for column in 0..<columns {
                    result[first + column] = max(along[first + column], max(along[below + column], along[above + column]))
                }
            }
        }
        return result
    }

    /// Calls `body` with the cells of each row of the grid (of every layer, cells numbered over
    /// all layers) and, for each of them, its block's value in `values` (one per block of each
    /// layer of `blockGrid`): a row of the blocks' values spread over the cells once for the rows
    /// of a block, so that each row's loop runs over cells alone. `false` (and `body` not called)
    /// when the blocks do not cover the grid.
    @inline(__always)
    private static func forEachRow(of grid: PosteriorGrid, in blockGrid: PosteriorGrid, layers: Int, expanding values: [Float],
                                   _ body: (Range<Int>, UnsafeBufferPointer<Float>) -> Void) -> Bool {
        let factor = blockFactor, columns = grid.columns
        guard columns > 0, values.count >= blockGrid.count * layers,
              (columns - 1) / factor < blockGrid.columns, (grid.rows - 1) / factor < blockGrid.rows else { return false }
        let expanded = UnsafeMutableBufferPointer<Float>.allocate(capacity: columns)
        defer { expanded.deallocate() }
        for layer in 0..<layers {
            let base = layer * grid.count, blockBase = layer * blockGrid.count
            for row in 0..<grid.rows {
                if row % factor == 0 {
                    let blockRow = blockBase + (row / factor) * blockGrid.columns
                    for column in 0..<columns { expanded[column] = values[blockRow + column / factor] }
                }
                let first = base + row * columns
                body(first..<(first + columns), UnsafeBufferPointer(expanded))
            }
        }
        return true
    }
}
