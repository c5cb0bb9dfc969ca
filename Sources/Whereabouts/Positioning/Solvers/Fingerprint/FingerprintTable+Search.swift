extension FingerprintTable {
    /// Fills `buffer` with the nearest rows to `query` (NaN = not heard), nearest first, over the
    /// beacons `beacons`, keeping only rows of `floor` (or of no known floor) when it is set;
    /// returns how many it found (at most `buffer.count`). Ties keep the earlier row.
    ///
    /// Eight rows at a time, in single precision: each lane sums its row's terms in column order, exactly as
    /// ``nearestRowByRow(to:beacons:floor:metric:fill:into:)`` does (a beacon heard on neither side
    /// adds an exact zero there instead of nothing). The blocks that heard the query's loudest
    /// beacon loudest (``seeds``) are measured first, so that the k-th distance is small early,
    /// then the others in order. A sorted list holds the `k` least (distance, row) pairs seen so
    /// far, whatever the order they come in, each as one integer (the distance's bits above the
    /// row's, which order as the pairs do), so the neighbours, their distances and the ties are
    /// those of the row-by-row search. Once the list is full, a block is passed over when the
    /// triangle inequality around its centre (``centres``) puts every row past the k-th distance by
    /// more than ``boundMargin(width:)`` (the single-precision sums are rounded by less), and one whose floor
    /// (``blockFloors``) is not the query's is passed over at once. A block stops early once every
    /// lane is past the distance of the current k-th neighbour (checked every four beacons), and
    /// its lanes are looked at only when one of them can enter the list.
    func nearest(to query: UnsafeBufferPointer<Double>, beacons: ContiguousArray<Int>, floor: Int?,
                 metric: FingerprintSolver.Metric, fill: Double,
                 into buffer: UnsafeMutableBufferPointer<Neighbour>) -> Int {
        let capacity = buffer.count
        guard capacity > 0, width > 0, query.count >= width else { return 0 }
        let code: Int, penalty: Double
        switch metric {
        case .euclidean: (code, penalty) = (0, 0)
        case .manhattan: (code, penalty) = (1, 0)
        case .sharedWithPenalty(let value): (code, penalty) = (2, value.isFinite ? value * value : 0)
        }
        // The blocks hold one fill (or none): any other pairing is measured row by row.
        let prefilled = blockFill.map { $0.bitPattern == fill.bitPattern && code != 2 } ?? (code == 2)
        // Rows are numbered in 32 bits in the list of the nearest.
        guard prefilled, points.count < 1 << 32 else {
            return nearestRowByRow(to: query, beacons: beacons, floor: floor, metric: metric, fill: fill, into: buffer)
        }
        let rows = points.count
        let blockCount = (rows + 7) / 8
        // Distances, and the bound on the centres, are worked out in single precision (see ``blocks``).
        typealias Lanes = SIMD8<Float>
        let penalties = Lanes(repeating: Float(penalty)), zeros = Lanes(repeating: 0)
        let magnitude = SIMD8<UInt32>(repeating: ~(1 << 31))
        let margin = Self.boundMargin(width: width)
        // The seeds: the blocks of the ``seedBeacons`` loudest beacons the query heard among
        // `beacons`, loudest first (the earlier column on equal RSSI).
        var loudest = SIMD4<Int>(repeating: -1), loudestRSSI = SIMD4<Double>(repeating: -.infinity)
        for column in beacons where column >= 0 && column < width && query[column] > loudestRSSI[Self.seedBeacons - 1] {
            var slot = Self.seedBeacons - 1
            while slot > 0 && loudestRSSI[slot - 1] < query[column] {
                (loudest[slot], loudestRSSI[slot]) = (loudest[slot - 1], loudestRSSI[slot - 1])
                slot -= 1
            }
            (loudest[slot], loudestRSSI[slot]) = (column, query[column])
        }
        // The query with "not heard" as the fill, for the metrics that fill, in single precision,
        // zeros past the last beacon up to the ``centreStride`` (the centres' padding), so that
        // the bound works on the very values measured.
        let stride = centreStride
        let found = withUnsafeTemporaryAllocation(of: Float.self, capacity: max(stride, width)) { narrow -> Int in
        for column in 0..<width {
            narrow.initializeElement(at: column, to: Float(query[column].isNaN ? fill : query[column]))
        }
        for column in width..<max(stride, width) { narrow.initializeElement(at: column, to: 0) }
        defer { narrow.deinitialize() }
        // The centres bound the distances of the metrics that fill (see ``centres``).
        let bounded = code != 2 && blockFill != nil && centres.count == blockCount * stride
        return blocks.withUnsafeBufferPointer { matrix -> Int in
          centres.withUnsafeBufferPointer { centres -> Int in
            beacons.withUnsafeBufferPointer { columns -> Int in
                withUnsafeTemporaryAllocation(of: Int.self, capacity: blockCount) { order -> Int in
                withUnsafeTemporaryAllocation(of: UInt64.self, capacity: capacity) { keys -> Int in
                let count = columns.count
                // `beacons` holds distinct columns: as many as the width are all of them.
                let queryChunks = UnsafeRawPointer(narrow.baseAddress)
                let centreChunks = UnsafeRawPointer(centres.baseAddress)
                // The order measured: the seeds, so that the k-th distance is small early, then the
                // others in order.
                var ordered = 0
                withUnsafeTemporaryAllocation(of: Bool.self, capacity: blockCount) { measured in
                    measured.initialize(repeating: false)
                    seeds.withUnsafeBufferPointer { seeds in
                        for beacon in 0..<Self.seedBeacons where loudest[beacon] >= 0 {
                            let first = loudest[beacon] * Self.seedsPerBeacon
                            for index in 0..<Self.seedsPerBeacon {
                                let block = seeds[first + index]
                                guard block >= 0, block < blockCount, !measured[block] else { continue }
                                measured[block] = true
                                order[ordered] = block
                                ordered += 1
                            }
                        }
                    }
                    for block in 0..<blockCount where !measured[block] {
                        order[ordered] = block
                        ordered += 1
                    }
                }
                var found = 0
                var worstDistance = Float.infinity
                /// The distance a key of the list holds (its upper 32 bits).
                @inline(__always) func distance(of key: UInt64) -> Float {
                    Float(bitPattern: UInt32(truncatingIfNeeded: key >> 32))
                }
                /// The term of beacon `column` for the eight rows of the block at `base`.
                @inline(__always) func term(_ code: Int, _ column: Int, _ base: Int) -> Lanes {
                    switch code {
                    case 0:
                        let d = Lanes(repeating: narrow[column]) - matrix[base + column]
                        return d * d
                    case 1:
                        let d = Lanes(repeating: narrow[column]) - matrix[base + column]
                        // |d|: the sign bit cleared, as `abs` does.
                        return unsafeBitCast(unsafeBitCast(d, to: SIMD8<UInt32>.self) & magnitude, to: Lanes.self)
                    default:
                        let a = Float(query[column]), b = matrix[base + column]
                        let bHeard = b .== b
                        if a.isNaN { return zeros.replacing(with: penalties, where: bHeard) }
                        let d = Lanes(repeating: a) - b
                        return penalties.replacing(with: d * d, where: bHeard)
                    }
                }
                for block in UnsafeBufferPointer(rebasing: order[..<ordered]) {
                    let start = block * 8
                    let base = block * width
                    // Lanes that are not rows of the floor (or not rows at all) start at infinity.
                    var sum = zeros
                    let shared = blockFloors[block]
                    if shared == Self.mixedFloors {
                        for lane in 0..<8 {
                            let row = start + lane
                            if row >= rows || (floor != nil && floors[row] != Int.min && floors[row] != floor) {
                                sum[lane] = .infinity
                            }
                        }
                    } else if let floor, shared != Int.min, shared != floor {
                        continue
                    }
                    let full = found == capacity
                    if full, bounded {
                        // The triangle inequality around the block's centre p: a row r is at least
                        // d(q, p) − d(p, r) from the query (over the beacons measured; d(p, r) over
                        // every beacon is at least as large). Rounding moves those sums by a few
                        // ulps, never by the relative margin: a lane it puts past the k-th distance
                        // plus the margin cannot enter.
                        let centre = block * stride
                        var toCentre: Float = 0
                        if let queryChunks, let centreChunks, count == width {
                            // Eight beacons at a time, the padding adding zeros (any order bounds as well).
                            var partial = zeros
                            for offset in Swift.stride(from: 0, to: stride, by: 8) {
                                let d = queryChunks.loadUnaligned(fromByteOffset: offset * 4, as: Lanes.self)
                                    - centreChunks.loadUnaligned(fromByteOffset: (centre + offset) * 4, as: Lanes.self)
                                partial += code == 1
                                    ? unsafeBitCast(unsafeBitCast(d, to: SIMD8<UInt32>.self) & magnitude, to: Lanes.self)
                                    : d * d
                            }
                            toCentre = partial.sum()
                        } else {
                            for column in columns {
                                let d = narrow[column] - centres[centre + column]
                                toCentre += code == 1 ? abs(d) : d * d
                            }
                        }
                        var limit = worstDistance
                        if code == 0 {
                            toCentre = toCentre.squareRoot()
                            limit = limit.squareRoot()
                        }
                        let radii = code == 1 ? manhattanRadii[block] : euclideanRadii[block]
                        let near = Lanes(repeating: toCentre) - radii
                        let needed = Lanes(repeating: limit) + margin * (Lanes(repeating: toCentre + limit) + radii)
                        if all((near .> needed) .| (sum .== Lanes(repeating: .infinity))) { continue }
                    }
                    // A lane whose partial sum is past the k-th distance cannot enter any more (the
                    // terms are never negative); one equal to it still can, with an earlier row.
                    let worst = Lanes(repeating: worstDistance)
                    var next = 0
                    var past = false
                    while next < count {
                        let end = min(next + 4, count)
                        switch code {
                        case 0:
                            for position in next..<end { sum += term(0, columns[position], base) }
                        case 1:
                            for position in next..<end { sum += term(1, columns[position], base) }
                        default:
                            for position in next..<end { sum += term(2, columns[position], base) }
                        }
                        next = end
                        if all(sum .> worst) {
                            past = true
                            break
                        }
                    }
                    // Only a lane below infinity (not full) or at most the k-th distance can enter.
                    guard !past, any(full ? sum .<= worst : sum .< worst) else { continue }
                    for lane in 0..<min(8, rows - start) {
                        // (distance, row) as one key: a non-negative float's bits order as its value.
                        let key = UInt64(sum[lane].bitPattern) << 32 | UInt64(start + lane)
                        if found == capacity {
                            guard key < keys[capacity - 1] else { continue }
                        } else {
                            guard sum[lane] < .infinity else { continue }
                            found += 1
                        }
                        // Insert keeping the keys sorted.
                        var slot = found - 1
                        while slot > 0 && keys[slot - 1] > key {
                            keys[slot] = keys[slot - 1]
                            slot -= 1
                        }
                        keys[slot] = key
                        if found == capacity { worstDistance = distance(of: keys[capacity - 1]) }
                    }
                }
                for index in 0..<found {
                    let key = keys[index]
                    buffer[index] = Neighbour(distance: Double(distance(of: key)), row: Int(key & 0xFFFF_FFFF))
                }
                return found
                }
                }
            }
          }
        }
        }
        if code != 1 {
            for index in 0..<found { buffer[index].distance = buffer[index].distance.squareRoot() }
        }
        return found
    }

    /// ``nearest(to:beacons:floor:metric:fill:into:)`` one row and one beacon at a time: the
    /// definition the blocked search must match.
    func nearestRowByRow(to query: UnsafeBufferPointer<Double>, beacons: ContiguousArray<Int>, floor: Int?,
                 metric: FingerprintSolver.Metric, fill: Double,
                 into buffer: UnsafeMutableBufferPointer<Neighbour>) -> Int {
        let capacity = buffer.count
        guard capacity > 0 else { return 0 }
        var found = 0
        let code: Int, penalty: Double
        switch metric {
        case .euclidean: (code, penalty) = (0, 0)
        case .manhattan: (code, penalty) = (1, 0)
        case .sharedWithPenalty(let value): (code, penalty) = (2, value.isFinite ? value * value : 0)
        }
        // In single precision, as the blocks are measured.
        let fill = Float(fill), narrowPenalty = Float(penalty)
        values.withUnsafeBufferPointer { matrix in
            beacons.withUnsafeBufferPointer { columns in
                for row in 0..<points.count {
                    if let floor, floors[row] != Int.min, floors[row] != floor { continue }
                    let worst = found == capacity ? Float(buffer[capacity - 1].distance) : Float.infinity
                    let base = row * width
                    var sum: Float = 0
                    for column in columns {
                        let a = Float(query[column]), b = Float(matrix[base + column])
                        let aHeard = !a.isNaN, bHeard = !b.isNaN
                        guard aHeard || bHeard else { continue }
                        switch code {
                        case 0:
                            let d = (aHeard ? a : fill) - (bHeard ? b : fill)
                            sum += d * d
                        case 1:
                            sum += abs((aHeard ? a : fill) - (bHeard ? b : fill))
                        default:
                            if aHeard && bHeard {
                                let d = a - b
                                sum += d * d
                            } else {
                                sum += narrowPenalty
                            }
                        }
                        if sum >= worst { break }
                    }
                    guard sum < worst else { continue }
                    // Insert keeping the buffer sorted; equal distances stay in row order.
                    var slot = found < capacity ? found : capacity - 1
                    if found < capacity { found += 1 }
                    while slot > 0 && buffer[slot - 1].distance > Double(sum) {
                        buffer[slot] = buffer[slot - 1]
                        slot -= 1
                    }
                    buffer[slot] = Neighbour(distance: Double(sum), row: row)
                }
            }
        }
        if code != 1 {
            for index in 0..<found { buffer[index].distance = buffer[index].distance.squareRoot() }
        }
        return found
    }

    /// The inverse-distance weighted mean position of the first `count` neighbours (weights
    /// 1/(d + 1)), and the weighted spread of their positions around it.
    static func estimate(_ neighbours: UnsafeMutableBufferPointer<Neighbour>, count: Int,
                         points: ContiguousArray<PlanarPoint>) -> (point: PlanarPoint, spread: Double)? {
        guard count > 0 else { return nil }
        var sumW = 0.0, sumX = 0.0, sumY = 0.0
        for index in 0..<count {
            let weight = 1 / (neighbours[index].distance + 1)
            let point = points[neighbours[index].row]
            sumW += weight
            sumX += weight * point.x
            sumY += weight * point.y
        }
        guard sumW > 0, sumW.isFinite else { return nil }
        let center = PlanarPoint(x: sumX / sumW, y: sumY / sumW)
        var spread = 0.0
        for index in 0..<count {
            let weight = 1 / (neighbours[index].distance + 1)
            let point = points[neighbours[index].row]
            let dx = point.x - center.x, dy = point.y - center.y
            spread += weight * (dx * dx + dy * dy)
        }
        guard center.x.isFinite, center.y.isFinite else { return nil }
        return (center, (spread / sumW).squareRoot())
    }
}
