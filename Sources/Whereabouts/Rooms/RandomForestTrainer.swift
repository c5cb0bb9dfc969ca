/// Grows the classification trees of a ``RandomForestPlaceClassifier``: CART trees with Gini
/// impurity, each on a bootstrap sample of the training set, choosing each split among a random
/// subset of the beacons.
///
/// A beacon's feature is its RSSI, or "not heard". A split sends a reading left when it is at most
/// the threshold, and a scan that did not hear the beacon to the side the split learnt (the one
/// that lowers the impurity most); the threshold −∞ splits "not heard" from "heard". Not heard is
/// never mixed up with a weak reading.
///
/// Every sample is sorted by each beacon once, here; a tree keeps those orders for its bootstrap
/// sample and partitions them stably at each split, so that no node sorts anything.
struct RandomForestTrainer: Sendable {
    let placeCount: Int, beaconCount: Int, sampleCount: Int
    /// `values[sample * beaconCount + beacon]`: the RSSI, NaN when not heard.
    let values: [Double]
    /// The place of each sample.
    let places: [Int32]
    /// For each beacon, every sample index sorted by that beacon's value, the samples that did
    /// not hear it first (ties in sample order): `sorted[beacon * sampleCount + rank]`.
    let sorted: [Int32]

    init(_ set: PlaceTrainingSet) {
        placeCount = set.labels.count
        beaconCount = set.beacons.count
        sampleCount = set.samples.count
        var values = [Double](repeating: .nan, count: sampleCount * beaconCount)
        var places = [Int32](repeating: 0, count: sampleCount)
        for (s, sample) in set.samples.enumerated() {
            places[s] = Int32(sample.place)
            for (b, rssi) in sample.rssi.enumerated() where b < beaconCount {
                if let rssi, rssi.isFinite { values[s * beaconCount + b] = rssi }
            }
        }
        var sorted = [Int32](repeating: 0, count: sampleCount * beaconCount)
        let count = sampleCount, beacons = beaconCount
        for b in 0..<beacons {
            let order = (0..<count).sorted { x, y in
                let vx = values[x * beacons + b], vy = values[y * beacons + b]
                if vx.isNaN || vy.isNaN { return vx.isNaN && (!vy.isNaN || x < y) }
                return vx < vy || (vx == vy && x < y)
            }
            for (rank, s) in order.enumerated() { sorted[b * count + rank] = Int32(s) }
        }
        self.values = values
        self.places = places
        self.sorted = sorted
    }

    /// The options of a forest, each clamped to the classifier's limits.
    struct ClampedOptions: Hashable, Sendable {
        var trees: Int, maximumDepth: Int, minimumLeafSize: Int, featuresPerSplit: Int, seed: UInt64
    }

    /// The options as they apply to this training set, clamped to the limits.
    func clamped(_ options: RandomForestPlaceClassifier.Options) -> ClampedOptions {
        typealias F = RandomForestPlaceClassifier
        let features = options.featuresPerSplit ?? F.defaultFeaturesPerSplit(beacons: beaconCount)
        return ClampedOptions(trees: min(max(1, options.trees), F.maximumTrees),
                        maximumDepth: min(max(0, options.maximumDepth), F.maximumDepth),
                        minimumLeafSize: max(1, options.minimumLeafSize),
                        featuresPerSplit: min(max(1, features), max(1, beaconCount)), seed: options.seed)
    }

    /// The trees of a forest: tree *i* grows from the *i*-th number a generator seeded with
    /// `settings.seed` draws, so a forest of more trees starts with the same trees.
    func forest(_ settings: ClampedOptions) -> [RandomForestPlaceClassifier.Tree] {
        var master = SeededRandom(seed: settings.seed)
        let seeds = (0..<settings.trees).map { _ in master.next() }
        guard sampleCount > 0, placeCount > 0 else { return [] }
        return seeds.map { tree(settings, seed: $0) }
    }

    /// One tree on a bootstrap sample drawn with `seed`.
    func tree(_ settings: ClampedOptions, seed: UInt64) -> RandomForestPlaceClassifier.Tree {
        var random = SeededRandom(seed: seed)
        // The bootstrap sample, as a weight (how many times drawn) per sample.
        var weights = [Double](repeating: 0, count: sampleCount)
        for _ in 0..<sampleCount { weights[Int(random.next() % UInt64(sampleCount))] += 1 }
        return tree(settings, weights: weights, random: &random)
    }

    /// One tree on the samples of positive weight (`weights` has one per sample), drawing the
    /// beacons tried at each split from `random`.
    func tree(_ settings: ClampedOptions, weights: [Double], random: inout SeededRandom) -> RandomForestPlaceClassifier.Tree {
        typealias Tree = RandomForestPlaceClassifier.Tree
        let n = sampleCount, beacons = beaconCount, placeCount = placeCount
        guard n > 0, weights.count == n, placeCount > 0 else { return Tree(splits: [], leaves: []) }
        var m = 0
        for weight in weights where weight > 0 { m += 1 }
        // Each beacon's order restricted to the drawn samples.
        var order = [Int32](repeating: 0, count: beacons * m)
        for b in 0..<beacons {
            var rank = b * m
            for k in (b * n)..<((b + 1) * n) {
                let s = sorted[k]
                if weights[Int(s)] > 0 { order[rank] = s; rank += 1 }
            }
        }
        if beacons == 0 {
            // No feature: the root is the only leaf; it still needs the drawn samples.
            order = [Int32](repeating: 0, count: m)
            var rank = 0
            for s in 0..<n where weights[s] > 0 { order[rank] = Int32(s); rank += 1 }
        }
        var splits: [Tree.Split] = [], leaves: [Tree.Leaf] = []
        // Nodes to grow: the range of every beacon's order they hold, their depth, and the
        // split that points to them (−1 for the root).
        var pending: [(low: Int, high: Int, depth: Int, parent: Int, isLeft: Bool)] = [(0, m, 0, -1, false)]
        var counts = [Double](repeating: 0, count: placeCount), missing = counts, heard = counts, heardLeft = counts
        var goesLeft = [Bool](repeating: false, count: n)
        var buffer = [Int32](repeating: 0, count: m)
        var features = Array(0..<beacons)
        let minimumLeaf = Double(settings.minimumLeafSize)

        while let node = pending.popLast() {
            let low = node.low, high = node.high
            for p in 0..<placeCount { counts[p] = 0 }
            var total = 0.0
            for k in low..<high {
                let s = Int(order[k])
                counts[Int(places[s])] += weights[s]
                total += weights[s]
            }
            var squares = 0.0, largest = 0.0
            for p in 0..<placeCount {
                squares += counts[p] * counts[p]
                largest = max(largest, counts[p])
            }
            // The best split: Gini impurity is lowest where Σ left² / left + Σ right² / right is highest.
            var best: (score: Double, beacon: Int, threshold: Double, notHeardLeft: Bool)?
            if node.depth < settings.maximumDepth, total >= 2 * minimumLeaf, largest < total,
               splits.count + leaves.count + 2 <= RandomForestPlaceClassifier.maximumNodesPerTree {
                let parentScore = squares / total
                var bar = parentScore + 1e-9 * max(1, parentScore)
                var visited = 0
                while visited < beacons && (visited < settings.featuresPerSplit || best == nil) {
                    let pick = visited + Int(random.next() % UInt64(beacons - visited))
                    features.swapAt(visited, pick)
                    let f = features[visited]
                    visited += 1
                    let base = f * m
                    var k = base + low
                    var missingTotal = 0.0
                    for p in 0..<placeCount { missing[p] = 0; heardLeft[p] = 0 }
                    while k < base + high, values[Int(order[k]) * beacons + f].isNaN {
                        let s = Int(order[k])
                        missing[Int(places[s])] += weights[s]
                        missingTotal += weights[s]
                        k += 1
                    }
                    guard k < base + high else { continue }   // nobody heard it here
                    let heardTotal = total - missingTotal
                    var missingLeftSquares = 0.0, heardRightSquares = 0.0
                    for p in 0..<placeCount {
                        heard[p] = counts[p] - missing[p]
                        missingLeftSquares += missing[p] * missing[p]
                        heardRightSquares += heard[p] * heard[p]
                    }
                    // Not heard alone on the left, every reading on the right.
                    if missingTotal >= minimumLeaf, heardTotal >= minimumLeaf {
                        let score = missingLeftSquares / missingTotal + heardRightSquares / heardTotal
                        if score > bar { bar = score; best = (score, f, -.infinity, true) }
                    }
                    // Σ² of the sides as readings move left: with not heard on the left (A) or the right (B).
                    var leftA = missingLeftSquares, rightA = heardRightSquares, leftB = 0.0, rightB = squares
                    var heardLeftTotal = 0.0
                    while k < base + high {
                        let s = Int(order[k]), c = Int(places[s]), w = weights[s]
                        let value = values[s * beacons + f]
                        let hl = heardLeft[c], rest = heard[c] - hl, mc = missing[c]
                        leftA += w * (2 * (mc + hl) + w)
                        rightA += w * (w - 2 * rest)
                        leftB += w * (2 * hl + w)
                        rightB += w * (w - 2 * (rest + mc))
                        heardLeft[c] = hl + w
                        heardLeftTotal += w
                        k += 1
                        guard k < base + high else { break }
                        let next = values[Int(order[k]) * beacons + f]
                        guard next > value else { continue }
                        var threshold = value + (next - value) / 2
                        if !(threshold < next) { threshold = value }
                        let leftWeightA = missingTotal + heardLeftTotal, rightWeightA = heardTotal - heardLeftTotal
                        if leftWeightA >= minimumLeaf, rightWeightA >= minimumLeaf {
                            let score = leftA / leftWeightA + rightA / rightWeightA
                            if score > bar { bar = score; best = (score, f, threshold, true) }
                        }
                        if missingTotal > 0 {
                            let leftWeightB = heardLeftTotal, rightWeightB = heardTotal - heardLeftTotal + missingTotal
                            if leftWeightB >= minimumLeaf, rightWeightB >= minimumLeaf {
                                let score = leftB / leftWeightB + rightB / rightWeightB
                                if score > bar { bar = score; best = (score, f, threshold, false) }
                            }
                        }
                    }
                }
            }
            var leftCount = 0
            if let best {
                let f = best.beacon
                for k in (f * m + low)..<(f * m + high) {
                    let s = Int(order[k])
                    let value = values[s * beacons + f]
                    let left = value.isNaN ? best.notHeardLeft : value <= best.threshold
                    goesLeft[s] = left
                    if left { leftCount += 1 }
                }
            }
            let reference: Int
            if let best, leftCount > 0, leftCount < high - low {
                // Partition every beacon's order stably: the left child's samples first.
                for b in 0..<beacons {
                    let base = b * m
                    var l = 0, r = leftCount
                    for k in (base + low)..<(base + high) {
                        let s = order[k]
                        if goesLeft[Int(s)] { buffer[l] = s; l += 1 } else { buffer[r] = s; r += 1 }
                    }
                    for k in 0..<(high - low) { order[base + low + k] = buffer[k] }
                }
                reference = splits.count
                splits.append(Tree.Split(beacon: best.beacon, threshold: best.threshold, notHeardGoesLeft: best.notHeardLeft,
                                         left: 0, right: 0))
                pending.append((low + leftCount, high, node.depth + 1, reference, false))
                pending.append((low, low + leftCount, node.depth + 1, reference, true))
            } else {
                reference = -1 - leaves.count
                var leaf = Tree.Leaf(places: [], weights: [])
                for p in 0..<placeCount where counts[p] > 0 {
                    leaf.places.append(p)
                    leaf.weights.append(counts[p])
                }
                leaves.append(leaf)
            }
            if node.parent >= 0 {
                if node.isLeft { splits[node.parent].left = reference } else { splits[node.parent].right = reference }
            }
        }
        return Tree(splits: splits, leaves: leaves)
    }
}
