import Foundation
import Testing
@testable import Whereabouts

@Suite("Naive Bayes place classifier")
struct NaiveBayesPlaceClassifierTests {
    typealias D = RoomTestData

    /// A: b1 −58/−64 (mean −61, variance 9), b2 −68/−74 (−71, 9), b3 −78/−84 (−81, 9);
    /// B: b1 −68/−74 (−71, 9), b2 −58/−64 (−61, 9), b3 as A.
    private var twoPlaces: PlaceTrainingSet {
        PlaceTrainingSet(scans: [
            D.scan(0, [("b1", -58), ("b2", -68), ("b3", -78)], place: "A"),
            D.scan(1, [("b1", -64), ("b2", -74), ("b3", -84)], place: "A"),
            D.scan(2, [("b1", -68), ("b2", -58), ("b3", -78)], place: "B"),
            D.scan(3, [("b1", -74), ("b2", -64), ("b3", -84)], place: "B"),
        ])
    }

    @Test func bluenetPosteriorMatchesTheHandComputation() throws {
        let classifier = NaiveBayesPlaceClassifier(training: twoPlaces, options: .bluenet)
        let result = try #require(classifier.classify(D.scan(9, [("b1", -65), ("b2", -67), ("b3", -80)])))
        // A: d = (−4, +4, +1) → −(16 + 16 + 1)/(2·9); B: d = (+6, −6, +1) → −(36 + 36 + 1)/(2·9);
        // same normalising constants, so log-odds A:B = (73 − 33)/18 = 20/9 and p(A) = 1/(1 + e^(−20/9)) ≈ 0.90223.
        #expect(result.place == "A")
        #expect(abs(result.probability - 1 / (1 + exp(-20.0 / 9))) < 1e-12)
        #expect(abs(result.probability - 0.90223) < 1e-5)
        #expect(abs(result.probabilities.reduce(0, +) - 1) < 1e-12)
    }

    @Test func bluenetNeedsTrainingDataAndThreeMatchingBeacons() {
        let empty = NaiveBayesPlaceClassifier(training: PlaceTrainingSet(scans: []), options: .bluenet)
        #expect(empty.classify(D.scan(0, [("b1", -60), ("b2", -60), ("b3", -60)])) == nil)
        let classifier = NaiveBayesPlaceClassifier(training: twoPlaces, options: .bluenet)
        // Two known beacons (plus one unknown) are not enough; three are.
        #expect(classifier.classify(D.scan(0, [("b1", -65), ("b2", -67), ("zz", -50)])) == nil)
        #expect(classifier.classify(D.scan(0, [("b1", -65), ("b2", -67), ("b3", -80)])) != nil)
        #expect(classifier.classify(D.scan(0, [])) == nil)
    }

    /// A beacon heard several times in one scan is one beacon at its mean RSSI: three readings of
    /// b1 are fewer than three beacons, and b1 at −63 and −67 scores as b1 once at −65.
    @Test func aBeaconHeardSeveralTimesInAScanCountsOnce() throws {
        let classifier = NaiveBayesPlaceClassifier(training: twoPlaces, options: .bluenet)
        #expect(classifier.classify(D.scan(0, [("b1", -60), ("b1", -62), ("b1", -64)])) == nil)
        #expect(classifier.classify(D.scan(0, [("b1", -65), ("b2", -67), ("b1", -66)])) == nil)
        let once = try #require(classifier.classify(D.scan(0, [("b1", -65), ("b2", -67), ("b3", -80)])))
        let twice = try #require(classifier.classify(D.scan(0, [("b1", -63), ("b2", -67), ("b1", -67), ("b3", -80)])))
        #expect(once.place == twice.place)
        #expect(abs(once.probability - twice.probability) < 1e-12)
        #expect(abs(twice.probability - 1 / (1 + exp(-20.0 / 9))) < 1e-12)
    }

    @Test func unknownBeaconsAreSkipped() throws {
        let classifier = NaiveBayesPlaceClassifier(training: twoPlaces, options: .bluenet)
        let plain = try #require(classifier.classify(D.scan(0, [("b1", -65), ("b2", -67), ("b3", -80)])))
        let extra = try #require(classifier.classify(D.scan(0, [("b1", -65), ("zz", -40), ("b2", -67), ("b3", -80)])))
        #expect(plain.probabilities == extra.probabilities)
    }

    @Test func bluenetZeroDeviationTakesAllOrNothing() throws {
        // Every scan of A hears b1..b3 at exactly −60: standard deviation 0.
        let set = PlaceTrainingSet(scans: [
            D.scan(0, [("b1", -60), ("b2", -60), ("b3", -60)], place: "A"),
            D.scan(1, [("b1", -60), ("b2", -60), ("b3", -60)], place: "A"),
            D.scan(2, [("b1", -70), ("b2", -60), ("b3", -50)], place: "B"),
            D.scan(3, [("b1", -72), ("b2", -62), ("b3", -52)], place: "B"),
        ])
        let original = NaiveBayesPlaceClassifier(training: set, options: .bluenet)
        #expect(original.classify(D.scan(9, [("b1", -60), ("b2", -60), ("b3", -60)]))?.probability == 1)
        // One dB off: A's density is 0, so B wins however far it is.
        #expect(original.classify(D.scan(9, [("b1", -61), ("b2", -60), ("b3", -60)]))?.place == "B")
        // The fixed model floors the deviation at 2 dB, so being 1 dB off A's mean still picks A.
        let fixed = NaiveBayesPlaceClassifier(training: set, options: .improved)
        let result = try #require(fixed.classify(D.scan(9, [("b1", -61), ("b2", -60), ("b3", -60)])))
        #expect(result.place == "A")
        #expect(result.probability < 1)
    }

    @Test func priorsWeighPlacesByTheirTrainingScans() throws {
        // Same b1 statistics (mean −61, variance 1) at A (4 scans) and B (2 scans): p(A) = 4/6.
        let set = PlaceTrainingSet(scans: [
            D.scan(0, [("b1", -60)], place: "A"), D.scan(1, [("b1", -62)], place: "A"),
            D.scan(2, [("b1", -60)], place: "A"), D.scan(3, [("b1", -62)], place: "A"),
            D.scan(4, [("b1", -60)], place: "B"), D.scan(5, [("b1", -62)], place: "B"),
        ])
        let options = NaiveBayesPlaceClassifier.Options(standardDeviationFloor: 0, pooledVarianceWeight: 0, usesPriors: true,
                                                        modelsMissingBeacons: false, minimumMatchingBeacons: 0)
        let result = try #require(NaiveBayesPlaceClassifier(training: set, options: options).classify(D.scan(9, [("b1", -63)])))
        #expect(abs(result.probabilities[0] - 2.0 / 3) < 1e-12)
    }

    @Test func aMissingBeaconIsEvidence() throws {
        // A heard b2 in 2 of 2 scans → p(heard) = (2+1)/(2+2) = 3/4; B in 0 of 2 → 1/4. b1 is the same at both.
        // A scan without b2: odds A:B = (1 − 3/4)/(1 − 1/4) = 1/3, so p(A) = 1/4.
        let set = PlaceTrainingSet(scans: [
            D.scan(0, [("b1", -60), ("b2", -70)], place: "A"), D.scan(1, [("b1", -62), ("b2", -72)], place: "A"),
            D.scan(2, [("b1", -60)], place: "B"), D.scan(3, [("b1", -62)], place: "B"),
        ])
        let options = NaiveBayesPlaceClassifier.Options(standardDeviationFloor: 0, pooledVarianceWeight: 0, usesPriors: false,
                                                        modelsMissingBeacons: true, minimumMatchingBeacons: 0)
        let result = try #require(NaiveBayesPlaceClassifier(training: set, options: options).classify(D.scan(9, [("b1", -61)])))
        #expect(abs(result.probabilities[0] - 0.25) < 1e-12)
        // The fixed model answers with a single beacon, even one it never heard.
        #expect(NaiveBayesPlaceClassifier(training: set).classify(D.scan(9, [("zz", -61)])) != nil)
    }

    @Test func theFloorIsVotedByTheWholeDistribution() throws {
        let labels = [PlaceLabel(id: "a", floor: 0), PlaceLabel(id: "b", floor: 0), PlaceLabel(id: "c", floor: 1)]
        let result = try #require(PlaceClassification(logScores: [log(0.3), log(0.3), log(0.4)], labels: labels))
        #expect(result.place == "c")
        #expect(result.floor == 0)
        #expect(abs((result.floorProbability ?? 0) - 0.6) < 1e-12)
        #expect(PlaceClassification(logScores: [-.infinity, -.infinity, -.infinity], labels: labels) == nil)
    }
}
