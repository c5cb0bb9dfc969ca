/// The reference fingerprints as one flat row-major matrix, and the search over it.
struct FingerprintTable: Sendable {
    /// One candidate neighbour: its signal distance and its row.
    struct Neighbour: Sendable {
        var distance: Double
        var row: Int
    }

    /// Beacons per row.
    let width: Int
    /// RSSI by row and beacon, NaN when not heard.
    let values: ContiguousArray<Double>
    /// The same values by blocks of eight rows: block b, beacon c holds rows 8b…8b+7 of column c
    /// (NaN past the last row), so that eight rows are measured at once, each in column order.
    /// "Not heard" is ``blockFill`` there when it is set. Single precision, as every distance of
    /// the search is: a `Float` keeps an RSSI to 1e-5 dB, and eight of them take half the vector
    /// operations of eight `Double`s.
    let blocks: ContiguousArray<SIMD8<Float>>
    /// The fill of "not heard" in ``blocks``, or `nil` when they keep NaN.
    let blockFill: Double?
    /// Per block, its centre: the mean of its rows' values (as in ``blocks``), one per beacon, so
    /// that a block far from a query is passed over on the triangle inequality. Block b's starts
    /// at b · ``centreStride``, zeros after its last beacon. Empty when the blocks keep NaN.
    /// Single precision, as the search's sums: the bound is worked out on eight beacons at once.
    let centres: ContiguousArray<Float>
    /// The width rounded up to a multiple of eight.
    var centreStride: Int { (width + 7) / 8 * 8 }
    /// Per block, each row's Manhattan distance to the centre over every beacon, rounded up.
    let manhattanRadii: ContiguousArray<SIMD8<Float>>
    /// Per block, each row's Euclidean distance to the centre over every beacon, rounded up.
    let euclideanRadii: ContiguousArray<SIMD8<Float>>
    /// The blocks measured first for a query whose loudest beacon is c: entries
    /// c · ``seedsPerBeacon`` … (see ``seeds(of:width:)``).
    let seeds: ContiguousArray<Int>
    /// Position of each row.
    let points: ContiguousArray<PlanarPoint>
    /// Floor of each row, `Int.min` when unknown.
    let floors: ContiguousArray<Int>
    /// Per block of ``blocks``: the floor its eight rows share (`Int.min` when all unknown), or
    /// ``mixedFloors`` when they differ or the block has fewer than eight rows.
    let blockFloors: ContiguousArray<Int>
    /// Floor of each beacon.
    let beaconFloors: ContiguousArray<Int>
    /// Every beacon index.
    let allBeacons: ContiguousArray<Int>
    /// The beacon indices of each floor.
    let floorBeacons: [Int: ContiguousArray<Int>]

    var count: Int { points.count }

    /// A table of `samples` whose rows' floors and beacons' floors come from `venue`.
    init(_ samples: [FingerprintSample], width: Int, venue: PositioningVenue, fill: Double? = nil) {
        self.init(samples, width: width, fill: fill,
                  floors: ContiguousArray(samples.map { $0.floor ?? Int.min }),
                  beaconFloors: ContiguousArray((0..<width).map { $0 < venue.floors.count ? venue.floors[$0] : 0 }))
    }

    /// A table of `references` with every floor unknown and every beacon on floor 0.
    init(references: [FingerprintSample], width: Int, fill: Double? = nil) {
        self.init(references, width: width, fill: fill,
                  floors: ContiguousArray(repeating: Int.min, count: references.count),
                  beaconFloors: ContiguousArray(repeating: 0, count: width))
    }

    /// A table of `samples`, with the floor of each row (`Int.min` when unknown) and of each beacon.
    private init(_ samples: [FingerprintSample], width: Int, fill: Double?, floors: ContiguousArray<Int>,
                 beaconFloors: ContiguousArray<Int>) {
        self.width = width
        var values = ContiguousArray<Double>()
        values.reserveCapacity(samples.count * width)
        for sample in samples { values.append(contentsOf: sample.values) }
        self.values = values
        blockFill = fill
        blocks = Self.blocks(of: values, width: width, fill: fill)
        (centres, manhattanRadii, euclideanRadii) = Self.centres(of: blocks, width: width, rows: samples.count,
                                                                 filled: fill != nil)
        seeds = Self.seeds(of: values, width: width)
        points = ContiguousArray(samples.map(\.point))
        self.floors = floors
        blockFloors = Self.blockFloors(of: floors)
        self.beaconFloors = beaconFloors
        allBeacons = ContiguousArray(0..<width)
        var byFloor: [Int: ContiguousArray<Int>] = [:]
        for index in 0..<width { byFloor[beaconFloors[index], default: []].append(index) }
        floorBeacons = byFloor
    }

    /// The row-major `values` rearranged into blocks of eight rows (see ``blocks``).
    static func blocks(of values: ContiguousArray<Double>, width: Int, fill: Double?) -> ContiguousArray<SIMD8<Float>> {
        guard width > 0 else { return [] }
        let rows = values.count / width
        let blockCount = (rows + 7) / 8
        var blocks = ContiguousArray(repeating: SIMD8<Float>(repeating: .nan), count: blockCount * width)
        for row in 0..<rows {
            for column in 0..<width {
                let value = values[row * width + column]
                blocks[(row / 8) * width + column][row % 8] = Float(value.isNaN ? fill ?? value : value)
            }
        }
        return blocks
    }

    /// The ``centres`` of filled `blocks` of `rows` rows and their rows' distances to them (rows
    /// past the last: 0); nothing when the blocks are not filled. Each centre is the mean rounded
    /// to single precision, and the distances are worked out in double precision from that
    /// rounded centre, then rounded up, so that they are never below the true ones.
    static func centres(of blocks: ContiguousArray<SIMD8<Float>>, width: Int, rows: Int, filled: Bool)
        -> (ContiguousArray<Float>, ContiguousArray<SIMD8<Float>>, ContiguousArray<SIMD8<Float>>) {
        guard filled, width > 0 else { return ([], [], []) }
        let blockCount = blocks.count / width
        let stride = (width + 7) / 8 * 8
        var centres = ContiguousArray<Float>(repeating: 0, count: blockCount * stride)
        var manhattan = ContiguousArray<SIMD8<Float>>(repeating: .zero, count: blockCount)
        var euclidean = ContiguousArray<SIMD8<Float>>(repeating: .zero, count: blockCount)
        /// `value` rounded up to single precision.
        func roundedUp(_ value: Double) -> Float {
            let rounded = Float(value)
            return Double(rounded) < value ? rounded.nextUp : rounded
        }
        for block in 0..<blockCount {
            let lanes = min(8, rows - block * 8)
            var absolutes = SIMD8<Double>.zero, squares = SIMD8<Double>.zero
            for column in 0..<width {
                let values = SIMD8<Double>(blocks[block * width + column])
                var sum = 0.0
                for lane in 0..<lanes { sum += values[lane] }
                let centre = Float(sum / Double(lanes))
                centres[block * stride + column] = centre
                for lane in 0..<lanes {
                    let d = values[lane] - Double(centre)
                    absolutes[lane] += abs(d)
                    squares[lane] += d * d
                }
            }
            for lane in 0..<lanes {
                manhattan[block][lane] = roundedUp(absolutes[lane])
                euclidean[block][lane] = roundedUp(squares[lane].squareRoot())
            }
        }
        return (centres, manhattan, euclidean)
    }

    /// The ``blockFloors`` entry of a block whose rows do not share one floor.
    static let mixedFloors = Int.max

    /// The floor shared by each block's eight rows (see ``blockFloors``).
    static func blockFloors(of floors: ContiguousArray<Int>) -> ContiguousArray<Int> {
        let rows = floors.count
        return ContiguousArray((0..<(rows + 7) / 8).map { block in
            let start = block * 8
            guard start + 8 <= rows else { return mixedFloors }
            let first = floors[start]
            return floors[start..<start + 8].allSatisfy { $0 == first } && first != mixedFloors ? first : mixedFloors
        })
    }

    /// The relative margin by which the lower bound must exceed the k-th distance for a search
    /// over `width` beacons. The rows' sums, the k-th distance and the bound's own sums (the
    /// query's distance to a centre, the subtraction of a radius) are all single-precision sums of
    /// at most `width` terms and their differences and squares, each rounded by less than
    /// (width + 2)·2⁻²⁴ of its size; the margin is four times that, 4·(width + 2)·2⁻²⁴, still far
    /// below any real difference (1.4e-6 for 4 beacons, 6.2e-6 for 24).
    static func boundMargin(width: Int) -> Float {
        Float(4 * (width + 2)) * Float.ulpOfOne / 2
    }

    /// How many blocks ``seeds`` holds per beacon.
    static let seedsPerBeacon = 4

    /// How many of the query's loudest beacons lend their ``seeds`` (1…4).
    static let seedBeacons = 3

    /// For each beacon, the ``seedsPerBeacon`` blocks holding the rows that heard it loudest
    /// (strongest first, −1 past the blocks that heard it): the blocks a query measures first.
    static func seeds(of values: ContiguousArray<Double>, width: Int) -> ContiguousArray<Int> {
        guard width > 0 else { return [] }
        let rows = values.count / width
        var seeds = ContiguousArray<Int>(repeating: -1, count: width * seedsPerBeacon)
        for column in 0..<width {
            var loudest: [(rssi: Double, block: Int)] = []
            for block in 0..<(rows + 7) / 8 {
                var best = -Double.infinity
                for row in (block * 8)..<min(block * 8 + 8, rows) where !values[row * width + column].isNaN {
                    best = max(best, values[row * width + column])
                }
                if best > -.infinity { loudest.append((best, block)) }
            }
            loudest.sort { $0.rssi > $1.rssi || ($0.rssi == $1.rssi && $0.block < $1.block) }
            for (index, entry) in loudest.prefix(seedsPerBeacon).enumerated() {
                seeds[column * seedsPerBeacon + index] = entry.block
            }
        }
        return seeds
    }
}
