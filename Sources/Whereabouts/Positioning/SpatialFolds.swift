/// Training positions dealt into cross-validation folds by square spatial block, like
/// scikit-learn's `GroupKFold`: neighbours in one block never sit on both sides of a fold, blocks
/// go largest first, each to the lightest fold. Deterministic.
struct SpatialFolds: Sendable {
    struct Block: Hashable, Sendable {
        var x: Int, y: Int, floor: Int?
    }

    /// The fold of each block.
    let folds: [Block: Int]
    /// How many folds hold positions (0 when there are fewer than two blocks).
    let count: Int
    /// The side of a block, venue units.
    let size: Double

    /// Deals the blocks of `locations` into (at most) `requested` folds, at least two.
    init(locations: [(point: PlanarPoint, floor: Int?)], blockSize: Double, folds requested: Int) {
        size = blockSize.isFinite && blockSize > 0 ? blockSize : 1
        var order: [Block] = []
        var sizes: [Block: Int] = [:]
        for location in locations {
            let block = Self.block(of: location.point, floor: location.floor, size: size)
            if sizes[block] == nil { order.append(block) }
            sizes[block, default: 0] += 1
        }
        let count = max(0, min(max(requested, 2), order.count))
        var folds: [Block: Int] = [:]
        if count >= 2 {
            // Largest blocks first (stable for equal sizes), each to the lightest fold.
            let sorted = order.enumerated().sorted { lhs, rhs in
                let l = sizes[lhs.element] ?? 0, r = sizes[rhs.element] ?? 0
                return l != r ? l > r : lhs.offset < rhs.offset
            }
            var load = [Int](repeating: 0, count: count)
            for (_, block) in sorted {
                var lightest = 0
                for candidate in 1..<count where load[candidate] < load[lightest] { lightest = candidate }
                load[lightest] += sizes[block] ?? 0
                folds[block] = lightest
            }
        }
        self.folds = folds
        self.count = count
    }

    static func block(of point: PlanarPoint, floor: Int?, size: Double) -> Block {
        let bx = (point.x / size).rounded(.down), by = (point.y / size).rounded(.down)
        return Block(x: Int(max(min(bx, 1e9), -1e9)), y: Int(max(min(by, 1e9), -1e9)), floor: floor)
    }

    /// The fold of a position; `nil` (never held out) for a block no position fell in.
    func fold(of point: PlanarPoint, floor: Int?) -> Int? {
        folds[Self.block(of: point, floor: floor, size: size)]
    }
}
