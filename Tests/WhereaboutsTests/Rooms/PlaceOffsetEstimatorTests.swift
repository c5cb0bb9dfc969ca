import Foundation
import Testing
@testable import Whereabouts

@Suite("Place offset estimator")
struct PlaceOffsetEstimatorTests {
    typealias D = RoomTestData

    /// Four places, three beacons; "twin" reads like "desk" 6 dB lower on every beacon, so a phone
    /// reading 6 dB low at the desk looks like the twin until its offset is known.
    static let places: [(place: String, floor: Int, rssi: [Double])] = [
        ("corner", 0, [-60, -60, -90]),
        ("window", 0, [-90, -60, -60]),
        ("desk", 0, [-60, -70, -80]),
        ("twin", 0, [-66, -76, -86]),
    ]

    static var estimator: PlaceOffsetEstimator {
        PlaceOffsetEstimator(means: [[-60, -70, nil], [-80, -60, -70]], beacons: PlaceBeacons(keys: ["b0", "b1", "b2"], identities: [nil, nil, nil]))
    }

    @Test func aScanImpliesTheMeanResidualAtTheBelievedPlaces() throws {
        let scan = D.scan(0, [("b0", -63), ("b1", -75), ("b2", -74), ("unknown", -50)])
        // All belief on place 0: b0 −3, b1 −5; b2 has no survey mean there → two beacons, too few.
        #expect(Self.estimator.scanOffset(of: scan, probabilities: [1, 0]) == nil)
        var two = Self.estimator.configuration
        two.minimumBeacons = 2
        let lenient = PlaceOffsetEstimator(means: Self.estimator.means, beacons: Self.estimator.beacons, configuration: two)
        let alone = try #require(lenient.scanOffset(of: scan, probabilities: [1, 0]))
        #expect(alone.beacons == 2)
        #expect(abs(alone.offset - (-4)) < 1e-12)
        // Belief 0.75 : 0.25. b0: 0.75·(−3) + 0.25·(+17) = 2; b1: 0.75·(−5) + 0.25·(−15) = −7.5;
        // b2: only place 1 heard it, holding 0.25 < 0.5 of the belief → left out.
        let mixed = try #require(lenient.scanOffset(of: scan, probabilities: [0.75, 0.25]))
        #expect(mixed.beacons == 2)
        #expect(abs(mixed.offset - (2 - 7.5) / 2) < 1e-12)
        // A known offset of −2 dB is taken from the readings first.
        #expect(abs((lenient.scanOffset(of: scan, probabilities: [1, 0], correction: -2)?.offset ?? 0) - (-2)) < 1e-12)
        // With all belief on place 1 the three beacons count: (+17 − 15 − 4) / 3.
        #expect(abs((Self.estimator.scanOffset(of: scan, probabilities: [0, 1])?.offset ?? 0) - (-2.0 / 3)) < 1e-12)
    }

    @Test func theEstimateIsAKalmanFilterOfAConstant() {
        // By default the prior is the calibration's spread of phones.
        let sigma = Calibration.Options().deviceOffsetPriorSigma
        #expect(Self.estimator.prior == PlaceOffsetEstimator.Estimate(offset: 0, variance: sigma * sigma))
        let estimator = PlaceOffsetEstimator(means: Self.estimator.means, beacons: Self.estimator.beacons,
                                             configuration: .init(priorSigma: 4))
        // Prior σ 4 dB: variance 16. Three beacons: noise 36/3 + 4 = 16, gain 16/32 = 0.5.
        var estimate = estimator.prior
        #expect(estimate == PlaceOffsetEstimator.Estimate(offset: 0, variance: 16))
        estimate = estimator.updated(estimate, scanOffset: -6, beacons: 3)
        #expect(abs(estimate.offset - (-3)) < 1e-12)
        #expect(abs(estimate.variance - 8) < 1e-12)
        // The same offset n times from the prior: offset −6·n/(n + 1), variance 16/(n + 1).
        for _ in 2...10 { estimate = estimator.updated(estimate, scanOffset: -6, beacons: 3) }
        #expect(abs(estimate.offset - (-6.0 * 10 / 11)) < 1e-9)
        #expect(abs(estimate.variance - 16.0 / 11) < 1e-9)
        #expect(estimate.scans == 10)
        // Held within ±15 dB, whatever a scan claims; a non-finite claim teaches nothing.
        var wild = estimator.prior
        for _ in 0..<50 { wild = estimator.updated(wild, scanOffset: 1e9, beacons: 3) }
        #expect(wild.offset == 15)
        #expect(estimator.updated(estimate, scanOffset: .nan, beacons: 3) == estimate)
    }

    @Test func aPhoneThatReadsLowIsPlacedOnceItsOffsetIsLearnt() throws {
        let set = PlaceTrainingSet(scans: D.survey(means: Self.places, count: 30, sigma: 1, seed: 11))
        let classifier = NaiveBayesPlaceClassifier(training: set)
        var learning = PlaceTracker(classifier: classifier)
        learning.offsetEstimator = PlaceOffsetEstimator(training: set)
        var plain = PlaceTracker(classifier: classifier)
        // A phone 6 dB low walks the corner and the window (no twin there), then sits at the desk.
        func low(_ place: Int, _ t: Double) -> Scan {
            D.scan(t, Self.places[place].rssi.enumerated().map { ("b\($0.offset)", $0.element - 6) }, device: "visitor")
        }
        for t in 0..<20 { _ = (learning.classify(low(t % 2, Double(t))), plain.classify(low(t % 2, Double(t)))) }
        let learnt = try #require(learning.learntOffset(device: "visitor"))
        #expect(learnt.offset < -5 && learnt.offset > -6.5)
        #expect(learnt.scans == 20)
        #expect(learning.classify(low(2, 20))?.place == "desk")
        #expect(plain.classify(low(2, 20))?.place == "twin")
        // The survey's own phone (unnamed here) is not learnt: it reads like the means.
        #expect(learning.offsetEstimator?.learns(device: nil) == false)
        for t in 0..<5 { _ = learning.classify(D.scan(Double(30 + t), [("b0", -66), ("b1", -76), ("b2", -86)])) }
        #expect(learning.learntOffset(device: nil) == nil)
        #expect(learning.learntOffsets.map(\.device) == ["visitor"])
        #expect(learning.classify(D.scan(40, [("b0", -66), ("b1", -76), ("b2", -86)]))?.place == "twin")
        // Another phone starts from nothing; a new track of the same phone keeps its offset.
        #expect(learning.learntOffset(device: "other") == nil)
        var moved = low(2, 21)
        moved.track = "second visit"
        #expect(learning.classify(moved)?.place == "desk")
        #expect((learning.learntOffset(device: "visitor")?.scans ?? 0) > learnt.scans)
    }

    @Test func theDefaultClassifierLearnsAndItsModelFileKeepsTheReference() throws {
        let set = PlaceTrainingSet(scans: D.survey(means: D.fourPlaces, count: 20, sigma: 3, miss: 0.05, seed: 12))
        let model = PlaceModel.train(.default, on: set)
        let estimator = try #require(model.offsetEstimator)
        #expect(estimator.means.count == set.labels.count)
        // The survey's means: the kitchen heard b0 around −60.
        let kitchen = try #require(set.labels.firstIndex { $0.id == "kitchen" })
        let b0 = try #require(set.beacons.index(for: .id("b0")))
        #expect(abs((estimator.means[kitchen][b0] ?? 0) - (-60)) < 2)
        #expect(model.tracker().offsetEstimator != nil)
        #expect(PlaceModel.train(.naiveBayes, on: set).offsetEstimator == nil)
        let text = JSONWriter().string(from: PlaceModelFile.encode(model))
        #expect(text.contains(#""offsetReference":{"devices":[""],"means":[["#))
        let again = try PlaceModelFile.decode(Array(text.utf8), file: "model.json")
        #expect(again.offsetEstimator?.means == estimator.means)
        #expect(again.offsetEstimator?.knownDevices == [""])
        // A row of the wrong length is refused with its key.
        let short = text.replacingOccurrences(of: #""means":[["#, with: #""means":[[-70,"#)
        #expect(throws: FormatError.self) { try PlaceModelFile.decode(Array(short.utf8), file: "model.json") }
        do {
            _ = try PlaceModelFile.decode(Array(short.utf8), file: "model.json")
        } catch {
            #expect(error.key == "offsetReference.means[0]")
        }
    }
}
