import Benchmark
import Foundation
import Whereabouts

/// Room classifier throughput: 10 places on 2 floors, 10 beacons, a survey of 40 scans per place
/// (every beacon heard, 5 dB of noise), and 100 test scans of 10 readings each. Each benchmark
/// iteration classifies 1,000 scans (`scalingFactor: .kilo`), so throughput reads in scans per second.
func registerClassifierBenchmarks() {
    var random = SeededRandom(seed: 7)
    let means: [[Double]] = (0..<10).map { _ in (0..<10).map { _ in -90 + 35 * random.nextUniform() } }
    func scan(place: Int, time: Double) -> Scan {
        Scan(time: time, device: "phone",
             readings: (0..<10).map { Reading(beacon: .id("b\($0)"), rssi: (means[place][$0] + 5 * random.nextGaussian()).rounded()) },
             truth: GroundTruth(floor: place / 5, place: "p\(place)"))
    }
    var survey: [Scan] = []
    for place in 0..<10 { for _ in 0..<40 { survey.append(scan(place: place, time: Double(survey.count))) } }
    let tests = (0..<100).map { scan(place: $0 / 10, time: Double(1000 + $0)) }
    let set = PlaceTrainingSet(scans: survey)
    let naiveBayes = NaiveBayesPlaceClassifier(training: set)
    let bluenet = NaiveBayesPlaceClassifier(training: set, options: .bluenet)
    let knn = NearestNeighbourPlaceClassifier(training: set, k: 7)
    // The largest forest the default classifier weighs (100 trees, depth 16), as it grows them.
    let forest = RandomForestPlaceClassifier(training: set)
    let defaultModel = PlaceModel.train(.default, on: set)

    let configuration = Benchmark.Configuration(
        metrics: [.throughput, .wallClock, .mallocCountTotal],
        scalingFactor: .kilo,
        maxDuration: .seconds(3))

    Benchmark("Rooms: naive Bayes scores, 10 places × 10 beacons", configuration: configuration) { benchmark in
        var scores = [Double](repeating: 0, count: naiveBayes.labels.count)
        for iteration in benchmark.scaledIterations {
            blackHole(naiveBayes.logScores(for: tests[iteration % tests.count], into: &scores))
        }
        blackHole(scores)
    }
    for (name, classifier) in [("naive Bayes", naiveBayes), ("Bluenet basic", bluenet)] {
        Benchmark("Rooms: \(name) classify, 10 places × 10 beacons", configuration: configuration) { benchmark in
            for iteration in benchmark.scaledIterations {
                blackHole(classifier.classify(tests[iteration % tests.count]))
            }
        }
    }
    Benchmark("Rooms: default (smoothed, floor vote), 10 places × 10 beacons", configuration: configuration) { benchmark in
        var tracker = defaultModel.tracker()
        for iteration in benchmark.scaledIterations {
            blackHole(tracker.classify(tests[iteration % tests.count]))
        }
    }
    Benchmark("Rooms: kNN (k 7, 400 scans), 10 places × 10 beacons", configuration: configuration) { benchmark in
        for iteration in benchmark.scaledIterations {
            blackHole(knn.classify(tests[iteration % tests.count]))
        }
    }
    Benchmark("Rooms: random forest classify (100 trees, depth ≤ 16), 10 places × 10 beacons",
              configuration: configuration) { benchmark in
        for iteration in benchmark.scaledIterations {
            blackHole(forest.classify(tests[iteration % tests.count]))
        }
    }
}
