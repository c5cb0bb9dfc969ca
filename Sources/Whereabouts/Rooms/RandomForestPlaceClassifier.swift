import Foundation

/// A random forest room classifier: an ensemble of classification trees, each grown on a
/// bootstrap sample of the training scans with Gini impurity, choosing each split among a random
/// subset of the beacons, to a bounded depth.
///
/// Each beacon is a feature with two parts: whether the scan heard it, and its RSSI. A split
/// sends a reading at most its threshold left and a scan that missed the beacon to the side it
/// learnt; the threshold −∞ splits "heard" from "not heard" alone, so sparse scans, where which
/// beacons were heard is the signal, are classified on that and not on a made-up RSSI.
///
/// A leaf holds the places of its training samples; a scan's probability of a place is the
/// share of that place in its leaves, averaged over the trees, with ``Options/laplace``
/// pseudo-votes per place so that no place is ruled out: p = (votes + α) / (trees + α · places).
/// Training is deterministic for a given ``Options/seed``.
///
/// ```swift
/// let forest = RandomForestPlaceClassifier(training: PlaceTrainingSet(scans: survey, venue: venue))
/// if let result = forest.classify(scan) { print(result.place, result.probability) }
/// ```
public struct RandomForestPlaceClassifier: PlaceClassifier {
    /// How a forest is grown and how it scores.
    public struct Options: Hashable, Sendable {
        /// Trees in the forest (1 … ``RandomForestPlaceClassifier/maximumTrees``).
        public var trees: Int
        /// The most splits from the root to a leaf (0 … ``RandomForestPlaceClassifier/maximumDepth``).
        public var maximumDepth: Int
        /// The fewest training samples (counted with their bootstrap weight) in a leaf.
        public var minimumLeafSize: Int
        /// Beacons drawn at each split (more are tried while none of those drawn can split);
        /// `nil` for ⌈√beacons⌉.
        public var featuresPerSplit: Int?
        /// Pseudo-votes per place added to the averaged tree votes (> 0), so that no place gets a
        /// probability of 0.
        public var laplace: Double
        /// The seed of the bootstrap samples and of the beacons drawn.
        public var seed: UInt64

        /// Creates options.
        public init(trees: Int = 100, maximumDepth: Int = 16, minimumLeafSize: Int = 1, featuresPerSplit: Int? = nil,
                    laplace: Double = 0.1, seed: UInt64 = 1) {
            self.trees = trees
            self.maximumDepth = maximumDepth
            self.minimumLeafSize = minimumLeafSize
            self.featuresPerSplit = featuresPerSplit
            self.laplace = laplace
            self.seed = seed
        }
    }

    /// One classification tree, as a model file holds it.
    ///
    /// Nodes point to each other by reference: a reference `r ≥ 0` is `splits[r]`, `r < 0` is
    /// `leaves[-1 - r]`. The root is `splits[0]`, or `leaves[0]` when there is no split. A split's
    /// children come after it (their index is larger), so a walk from the root always ends, and
    /// every other node has exactly one parent.
    public struct Tree: Hashable, Sendable {
        /// A test on one beacon.
        public struct Split: Hashable, Sendable {
            /// The beacon's index in the model's beacons.
            public var beacon: Int
            /// A reading at most this goes left; `-infinity` sends every reading right.
            public var threshold: Double
            /// Where a scan that did not hear the beacon goes.
            public var notHeardGoesLeft: Bool
            /// The references of the children.
            public var left: Int, right: Int

            /// Creates a split.
            public init(beacon: Int, threshold: Double, notHeardGoesLeft: Bool, left: Int, right: Int) {
                self.beacon = beacon
                self.threshold = threshold
                self.notHeardGoesLeft = notHeardGoesLeft
                self.left = left
                self.right = right
            }
        }

        /// A leaf: the places of its training samples and their (bootstrap) weights.
        public struct Leaf: Hashable, Sendable {
            /// Place indices.
            public var places: [Int]
            /// The weight of each of ``places`` (positive).
            public var weights: [Double]

            /// Creates a leaf.
            public init(places: [Int], weights: [Double]) {
                self.places = places
                self.weights = weights
            }
        }

        /// The splits, the root first.
        public var splits: [Split]
        /// The leaves.
        public var leaves: [Leaf]

        /// Creates a tree.
        public init(splits: [Split], leaves: [Leaf]) {
            self.splits = splits
            self.leaves = leaves
        }
    }

    /// The most trees a forest may have.
    public static let maximumTrees = 1_000
    /// The deepest a tree may be (splits from the root to a leaf).
    public static let maximumDepth = 40
    /// The most nodes (splits and leaves) a tree may have.
    public static let maximumNodesPerTree = 1 << 17
    /// The most nodes all the trees of a forest may have together.
    public static let maximumNodes = 1 << 22

    /// The beacons drawn at each split by default: ⌈√beacons⌉.
    public static func defaultFeaturesPerSplit(beacons: Int) -> Int {
        max(1, Int(Double(beacons).squareRoot().rounded(.up)))
    }

    /// The places, in the order of the scores.
    public let labels: [PlaceLabel]
    /// The beacons the model knows.
    public let beacons: PlaceBeacons
    /// The trees.
    public let trees: [Tree]
    /// The options the forest was grown with (``Options/trees`` is the number of trees).
    public let options: Options

    /// A node of the flat forest (16 bytes): all trees' nodes in one array, each tree in
    /// depth-first order, so that a split's left child is the next node.
    private struct Node: Sendable {
        /// A split's threshold.
        var threshold: Double
        /// A split's right child (an index into the flat forest), or a leaf's index.
        var target: Int32
        /// A split's beacon times 4, plus the flags ``Node/leaf`` and ``Node/notHeardLeft``.
        var code: UInt32
        static let leaf: UInt32 = 1, notHeardLeft: UInt32 = 2
    }
    private let nodes: [Node]
    /// Each tree's root: an index into the flat forest.
    private let roots: [Int32]
    /// Leaf `i`'s entries are `leafStart[i] ..< leafStart[i + 1]` of `entryPlace` and `entryShare`
    /// (its places and their shares of the leaf, summing to 1).
    private let leafStart: [Int32], entryPlace: [Int32], entryShare: [Double]

    /// Grows a forest on a training set.
    public init(training set: PlaceTrainingSet, options: Options = Options()) {
        self.init(training: set, trainer: RandomForestTrainer(set), options: options)
    }

    /// Grows a forest with a trainer already built for `set`.
    init(training set: PlaceTrainingSet, trainer: RandomForestTrainer, options: Options) {
        let settings = trainer.clamped(options)
        var resolved = options
        resolved.trees = settings.trees
        resolved.maximumDepth = settings.maximumDepth
        resolved.minimumLeafSize = settings.minimumLeafSize
        resolved.featuresPerSplit = settings.featuresPerSplit
        resolved.laplace = options.laplace > 0 && options.laplace.isFinite ? options.laplace : 0.1
        self.init(unchecked: set.labels, beacons: set.beacons, trees: trainer.forest(settings), options: resolved)
    }

    /// A forest from its parts (as a model file holds them), checked: every reference, beacon and
    /// place in range, children after their split, every node but the root the child of exactly
    /// one split, depth, node counts and tree count within the
    /// limits, leaves with positive weights, `laplace` positive. Errors name the part, such as
    /// `trees[2].splits[7].left`.
    public init(labels: [PlaceLabel], beacons: PlaceBeacons, trees: [Tree], options: Options) throws(FormatError) {
        guard options.laplace > 0, options.laplace.isFinite else { throw FormatError(key: "laplace", message: "must be positive") }
        guard !trees.isEmpty, trees.count <= Self.maximumTrees else {
            throw FormatError(key: "trees", message: "expected 1 to \(Self.maximumTrees) trees, found \(trees.count)")
        }
        var total = 0
        for (t, tree) in trees.enumerated() {
            let path = "trees[\(t)]"
            let count = tree.splits.count + tree.leaves.count
            guard count <= Self.maximumNodesPerTree else {
                throw FormatError(key: path, message: "\(count) nodes, more than the \(Self.maximumNodesPerTree) a tree may have")
            }
            total += count
            guard total <= Self.maximumNodes else {
                throw FormatError(key: "trees", message: "more than the \(Self.maximumNodes) nodes a forest may have")
            }
            guard !tree.leaves.isEmpty else { throw FormatError(key: "\(path).leaves", message: "a tree needs a leaf") }
            var depth = [Int](repeating: 0, count: tree.splits.count)
            var leafDepth = [Int](repeating: -1, count: tree.leaves.count)
            if tree.splits.isEmpty { leafDepth[0] = 0 }
            for (index, split) in tree.splits.enumerated() {
                let at = "\(path).splits[\(index)]"
                guard (0..<min(beacons.count, 1 << 30)).contains(split.beacon) else {
                    throw FormatError(key: "\(at).beacon", message: "no beacon \(split.beacon) (the model has \(beacons.count))")
                }
                guard split.threshold.isFinite || split.threshold == -.infinity else {
                    throw FormatError(key: "\(at).threshold", message: "must be a number or -infinity")
                }
                guard index == 0 || depth[index] > 0 else {
                    throw FormatError(key: at, message: "no split points to it")
                }
                for (side, child) in [("left", split.left), ("right", split.right)] {
                    if child >= 0 {
                        guard child > index, child < tree.splits.count else {
                            throw FormatError(key: "\(at).\(side)", message: "split \(child) must exist and come after split \(index)")
                        }
                        guard depth[child] == 0 else {
                            throw FormatError(key: "\(at).\(side)", message: "split \(child) already has a parent")
                        }
                        depth[child] = max(depth[child], depth[index] + 1)
                        guard depth[child] <= Self.maximumDepth else {
                            throw FormatError(key: "\(at).\(side)", message: "deeper than the \(Self.maximumDepth) levels a tree may have")
                        }
                    } else {
                        let leaf = -1 - child
                        guard leaf < tree.leaves.count else {
                            throw FormatError(key: "\(at).\(side)", message: "no leaf \(leaf) (the tree has \(tree.leaves.count))")
                        }
                        guard leafDepth[leaf] < 0 else {
                            throw FormatError(key: "\(at).\(side)", message: "leaf \(leaf) already has a parent")
                        }
                        leafDepth[leaf] = max(leafDepth[leaf], depth[index] + 1)
                    }
                }
            }
            for (index, leaf) in tree.leaves.enumerated() {
                let at = "\(path).leaves[\(index)]"
                guard leafDepth[index] >= 0, leafDepth[index] <= Self.maximumDepth else {
                    throw FormatError(key: at, message: leafDepth[index] < 0 ? "no split points to it" : "deeper than the \(Self.maximumDepth) levels a tree may have")
                }
                guard !leaf.places.isEmpty, leaf.places.count == leaf.weights.count, leaf.places.count <= labels.count else {
                    throw FormatError(key: at, message: "expected one to \(labels.count) pairs of a place and its weight")
                }
                for (place, weight) in zip(leaf.places, leaf.weights) {
                    guard (0..<labels.count).contains(place) else {
                        throw FormatError(key: at, message: "no place \(place) (the model has \(labels.count))")
                    }
                    guard weight > 0, weight.isFinite else { throw FormatError(key: at, message: "weights must be positive") }
                }
            }
        }
        self.init(unchecked: labels, beacons: beacons, trees: trees, options: options)
    }

    /// A forest from parts known to be valid.
    private init(unchecked labels: [PlaceLabel], beacons: PlaceBeacons, trees: [Tree], options: Options) {
        self.labels = labels
        self.beacons = beacons
        self.trees = trees
        var options = options
        options.trees = trees.count
        self.options = options
        var nodes: [Node] = [], roots: [Int32] = []
        var leafStart: [Int32] = [0], entryPlace: [Int32] = [], entryShare: [Double] = []
        for tree in trees {
            let leafBase = leafStart.count - 1
            roots.append(Int32(nodes.count))
            // Depth first, the left child first: (reference, the split whose right child it is).
            var pending: [(reference: Int, parent: Int?)] = [(tree.splits.isEmpty ? -1 : 0, nil)]
            while let (reference, parent) = pending.popLast() {
                if let parent { nodes[parent].target = Int32(nodes.count) }
                if reference >= 0 {
                    let split = tree.splits[reference]
                    pending.append((split.right, nodes.count))
                    pending.append((split.left, nil))
                    nodes.append(Node(threshold: split.threshold, target: 0,
                                      code: UInt32(split.beacon) << 2 | (split.notHeardGoesLeft ? Node.notHeardLeft : 0)))
                } else {
                    nodes.append(Node(threshold: 0, target: Int32(leafBase - 1 - reference), code: Node.leaf))
                }
            }
            for leaf in tree.leaves {
                let sum = leaf.weights.reduce(0, +)
                for (place, weight) in zip(leaf.places, leaf.weights) {
                    entryPlace.append(Int32(place))
                    entryShare.append(weight / sum)
                }
                leafStart.append(Int32(entryPlace.count))
            }
        }
        self.nodes = nodes
        self.roots = roots
        self.leafStart = leafStart
        self.entryPlace = entryPlace
        self.entryShare = entryShare
    }

    /// Adds each place's share of the leaf the scan reaches in trees `trees` to `votes` (which
    /// has `labels.count` elements); `false` when the scan heard nothing valid.
    func addVotes(for scan: Scan, trees: Range<Int>, into votes: inout [Double]) -> Bool {
        let beaconCount = beacons.count
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: max(1, 2 * beaconCount)) { buffer in
            // The first half: the sum of each beacon's readings (NaN: not heard); the second: their count.
            for b in 0..<beaconCount {
                buffer[b] = .nan
                buffer[beaconCount + b] = 0
            }
            var heard = false
            for reading in scan.readings where reading.isValid {
                heard = true
                guard let b = beacons.index(for: reading.beacon) else { continue }
                buffer[b] = buffer[beaconCount + b] == 0 ? reading.rssi : buffer[b] + reading.rssi
                buffer[beaconCount + b] += 1
            }
            guard heard else { return false }
            for b in 0..<beaconCount where buffer[beaconCount + b] > 1 { buffer[b] /= buffer[beaconCount + b] }
            nodes.withUnsafeBufferPointer { nodes in
                leafStart.withUnsafeBufferPointer { leafStart in
                    entryPlace.withUnsafeBufferPointer { entryPlace in
                        entryShare.withUnsafeBufferPointer { entryShare in
                            votes.withUnsafeMutableBufferPointer { votes in
                                for t in trees {
                                    var index = Int(roots[t])
                                    var node = nodes[index]
                                    while node.code & Node.leaf == 0 {
                                        let value = buffer[Int(node.code >> 2)]
                                        let left = value.isNaN ? node.code & Node.notHeardLeft != 0 : value <= node.threshold
                                        index = left ? index + 1 : Int(node.target)
                                        node = nodes[index]
                                    }
                                    let leaf = Int(node.target)
                                    for entry in Int(leafStart[leaf])..<Int(leafStart[leaf + 1]) {
                                        votes[Int(entryPlace[entry])] += entryShare[entry]
                                    }
                                }
                            }
                        }
                    }
                }
            }
            return true
        }
    }

    /// Turns the votes of `treeCount` trees into log-probabilities, in place.
    func logProbabilities(fromVotes votes: inout [Double], treeCount: Int) {
        let alpha = options.laplace
        let denominator = log(Double(treeCount) + alpha * Double(votes.count))
        for p in votes.indices { votes[p] = log(votes[p] + alpha) - denominator }
    }

    /// The log of each place's averaged leaf share, smoothed with ``Options/laplace`` (every
    /// place finite); `false` when nothing valid was heard.
    public func logScores(for scan: Scan, into scores: inout [Double]) -> Bool {
        guard !labels.isEmpty, scores.count == labels.count, !roots.isEmpty else { return false }
        for p in scores.indices { scores[p] = 0 }
        guard addVotes(for: scan, trees: 0..<roots.count, into: &scores) else { return false }
        logProbabilities(fromVotes: &scores, treeCount: roots.count)
        return true
    }
}
