import Foundation
import Testing
@testable import Whereabouts

@Suite("Random forest place classifier")
struct RandomForestPlaceClassifierTests {
    typealias D = RoomTestData
    typealias Tree = RandomForestPlaceClassifier.Tree

    /// One tree on every sample once, trying every beacon at each split.
    private func singleTree(_ set: PlaceTrainingSet, maximumDepth: Int = 8) -> Tree {
        let trainer = RandomForestTrainer(set)
        let settings = trainer.clamped(.init(trees: 1, maximumDepth: maximumDepth, featuresPerSplit: set.beacons.count))
        var random = SeededRandom(seed: 1)
        return trainer.tree(settings, weights: [Double](repeating: 1, count: set.samples.count), random: &random)
    }

    @Test func theRootSplitIsTheLowestGiniImpurity() {
        // b1: A −50, −55, −60, −52; B −58, −65, −70. Sorted: B −70, B −65, A −60, B −58, A −55, A −52, A −50.
        // Σ left²/left + Σ right²/right by threshold (Gini impurity = 7 − that):
        //   −67.5: 1 + (4² + 2²)/6 = 4.33   −62.5: 2²/2 + (4² + 1²)/5 = 5.4   −59: (2² + 1²)/3 + (3² + 1²)/4 = 4.17
        //   −56.5: (3² + 1²)/4 + 3²/3 = 5.5   −53.5: (3² + 2²)/5 + 2²/2 = 4.6   −51: (3² + 3²)/6 + 1 = 4
        // so −56.5 wins: impurity 4 · (1 − (3/4)² − (1/4)²) + 0 = 1.5.
        let scans = [-50.0, -55, -60, -52].enumerated().map { D.scan(Double($0), [("b1", $1)], place: "A") }
            + [-58.0, -65, -70].enumerated().map { D.scan(Double(10 + $0), [("b1", $1)], place: "B") }
        let tree = singleTree(PlaceTrainingSet(scans: scans), maximumDepth: 1)
        #expect(tree.splits == [Tree.Split(beacon: 0, threshold: -56.5, notHeardGoesLeft: true, left: -1, right: -2)])
        // Left: B ×3 and A ×1 (places in label order: A = 0, B = 1); right: A ×3.
        #expect(tree.leaves == [Tree.Leaf(places: [0, 1], weights: [1, 3]), Tree.Leaf(places: [0], weights: [3])])

        // Two beacons, A ×4 and B ×4. b1 −80 / −60 splits 3 A + 1 B from 1 A + 3 B: (3² + 1²)/4 · 2 = 5;
        // b2 −80 / −60 splits 2 A + 4 B from 2 A: (2² + 4²)/6 + 2²/2 = 5.33, which Gini prefers
        // (impurity 2.67 against 3) though both leave two samples on the wrong side.
        let two = PlaceTrainingSet(scans: [
            D.scan(0, [("b1", -80), ("b2", -80)], place: "A"), D.scan(1, [("b1", -80), ("b2", -80)], place: "A"),
            D.scan(2, [("b1", -80), ("b2", -60)], place: "A"), D.scan(3, [("b1", -60), ("b2", -60)], place: "A"),
            D.scan(4, [("b1", -80), ("b2", -80)], place: "B"), D.scan(5, [("b1", -60), ("b2", -80)], place: "B"),
            D.scan(6, [("b1", -60), ("b2", -80)], place: "B"), D.scan(7, [("b1", -60), ("b2", -80)], place: "B"),
        ])
        #expect(singleTree(two, maximumDepth: 1).splits == [Tree.Split(beacon: 1, threshold: -70, notHeardGoesLeft: true, left: -1, right: -2)])
    }

    @Test func notHeardIsItsOwnBranchAndNeverAWeakReading() {
        // A hears b1 weakly (−80) ×3, B never hears it ×4 (only b2), C hears it strongly (−60) ×3.
        // Setting B apart scores 4²/4 + (3² + 3²)/6 = 7; setting A or C apart 3 + (4² + 3²)/7 = 6.57.
        var scans: [Scan] = []
        for t in 0..<3 { scans.append(D.scan(Double(t), [("b1", -80), ("b2", -70)], place: "A")) }
        for t in 0..<4 { scans.append(D.scan(Double(10 + t), [("b2", -70)], place: "B")) }
        for t in 0..<3 { scans.append(D.scan(Double(20 + t), [("b1", -60), ("b2", -70)], place: "C")) }
        let tree = singleTree(PlaceTrainingSet(scans: scans))
        #expect(tree.splits == [
            Tree.Split(beacon: 0, threshold: -.infinity, notHeardGoesLeft: true, left: -1, right: 1),
            Tree.Split(beacon: 0, threshold: -70, notHeardGoesLeft: true, left: -2, right: -3),
        ])
        #expect(tree.leaves == [Tree.Leaf(places: [1], weights: [4]), Tree.Leaf(places: [0], weights: [3]),
                                Tree.Leaf(places: [2], weights: [3])])
        // A forest of such trees: a scan hearing b1 at −100 is A's (weak), not B's (not heard).
        let forest = RandomForestPlaceClassifier(training: PlaceTrainingSet(scans: scans), options: .init(trees: 20))
        #expect(forest.classify(D.scan(0, [("b1", -100), ("b2", -70)]))?.place == "A")
        #expect(forest.classify(D.scan(0, [("b2", -70)]))?.place == "B")
        #expect(forest.classify(D.scan(0, [("b1", -50), ("b2", -70)]))?.place == "C")
    }

    /// Places told apart only by which beacons a scan heard: A hears b1 and b2, or b3 and b4; B
    /// hears b1 and b3, or b2 and b4 — every beacon half the time in both places, at the same RSSI.
    static func heardPatterns(count: Int, seed: UInt64) -> [Scan] {
        var random = SeededRandom(seed: seed)
        var scans: [Scan] = []
        for (place, pairs) in [("A", [["b1", "b2"], ["b3", "b4"]]), ("B", [["b1", "b3"], ["b2", "b4"]])] {
            for index in 0..<count {
                let pair = pairs[index % 2]
                scans.append(D.scan(Double(scans.count), pair.map { ($0, (-75 + 3 * random.nextGaussian()).rounded()) }, place: place))
            }
        }
        return scans
    }

    @Test func whichBeaconsWereHeardIsEnoughForTheForest() throws {
        let set = PlaceTrainingSet(scans: Self.heardPatterns(count: 40, seed: 1))
        let test = Self.heardPatterns(count: 20, seed: 2)
        let forest = RandomForestPlaceClassifier(training: set)
        let bayes = NaiveBayesPlaceClassifier(training: set)
        func accuracy(_ classifier: any PlaceClassifier) -> Double {
            Double(test.filter { classifier.classify($0)?.place == $0.truth?.place }.count) / Double(test.count)
        }
        #expect(accuracy(forest) == 1)
        #expect(accuracy(bayes) < 0.75)
        // Every place keeps some probability.
        let result = try #require(forest.classify(test[0]))
        #expect(result.probabilities.allSatisfy { $0 > 0 })
        #expect(abs(result.probabilities.reduce(0, +) - 1) < 1e-12)
    }

    @Test func aSeedGivesTheSameForest() {
        let set = PlaceTrainingSet(scans: D.survey(means: D.fourPlaces, count: 20, sigma: 5, miss: 0.2, seed: 7))
        let first = RandomForestPlaceClassifier(training: set, options: .init(trees: 10, seed: 3))
        let again = RandomForestPlaceClassifier(training: set, options: .init(trees: 10, seed: 3))
        let other = RandomForestPlaceClassifier(training: set, options: .init(trees: 10, seed: 4))
        #expect(first.trees == again.trees)
        #expect(first.trees != other.trees)
        // More trees from the same seed start with the same trees.
        let more = RandomForestPlaceClassifier(training: set, options: .init(trees: 12, seed: 3))
        #expect(Array(more.trees.prefix(10)) == first.trees)
        for scan in D.survey(means: D.fourPlaces, count: 5, sigma: 5, miss: 0.2, seed: 8) {
            #expect(first.classify(scan) == again.classify(scan))
        }
    }

    @Test func treesStayWithinTheirBounds() {
        let set = PlaceTrainingSet(scans: D.survey(means: D.fourPlaces, count: 30, sigma: 8, miss: 0.3, seed: 9))
        let forest = RandomForestPlaceClassifier(training: set, options: .init(trees: 5, maximumDepth: 3, minimumLeafSize: 4))
        for tree in forest.trees {
            #expect(tree.splits.count <= 7)
            #expect(tree.leaves.allSatisfy { $0.weights.reduce(0, +) >= 4 })
        }
        // Options past the limits are clamped.
        let clamped = RandomForestPlaceClassifier(training: set, options: .init(trees: 5_000, maximumDepth: 1, featuresPerSplit: 99))
        #expect(clamped.trees.count == RandomForestPlaceClassifier.maximumTrees)
        #expect(clamped.options.featuresPerSplit == 5)
    }

    @Test func noAnswerWithoutAValidReading() {
        let set = PlaceTrainingSet(scans: D.survey(means: D.fourPlaces, count: 10, sigma: 5, seed: 10))
        let forest = RandomForestPlaceClassifier(training: set, options: .init(trees: 5))
        #expect(forest.classify(D.scan(0, [])) == nil)
        #expect(forest.classify(D.scan(0, [("zz", -60)])) != nil)
        // A beacon heard twice counts with its mean, as in training.
        #expect(forest.classify(D.scan(0, [("b0", -58), ("b0", -62)])) == forest.classify(D.scan(0, [("b0", -60)])))
    }
}
