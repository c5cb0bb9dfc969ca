import Foundation
import Testing
@testable import Whereabouts

@Suite("Place training and classifiers")
struct PlaceTrainingTests {
    typealias D = RoomTestData

    @Test func contiguousFoldsCutEachPlaceIntoBlocks() {
        // 7 scans of A and 4 of B (one of them among A's), 3 folds: A in blocks of 3, 2, 2; B of 2, 1, 1.
        var scans = (0..<7).map { D.scan(Double($0), [("b1", -60)], place: "A") }
        scans.insert(D.scan(3.5, [("b1", -70)], place: "B"), at: 4)
        scans += (0..<3).map { D.scan(Double(10 + $0), [("b1", -70)], place: "B") }
        let set = PlaceTrainingSet(scans: scans)
        // Samples in order: A A A A B A A A B B B → A's are 0,1,2 | 3,5 | 6,7; B's are 4,8 | 9 | 10.
        #expect(set.contiguousFolds(3) == [0, 0, 0, 1, 0, 1, 2, 2, 0, 1, 2])
    }

    @Test func placesTakeTheVenueFloorElseTheMostCommonTrueFloor() {
        let venue = Venue(beacons: [Venue.Beacon(id: "b1")], places: [Venue.Place(id: "A", floor: 2)])
        let set = PlaceTrainingSet(scans: [
            D.scan(0, [("b1", -60)], place: "A", floor: 0),
            D.scan(1, [("b1", -60)], place: "B", floor: 1), D.scan(2, [("b1", -60)], place: "B", floor: 1),
            D.scan(3, [("b1", -60)], place: "B", floor: 0), D.scan(4, [("b1", -60)]),
        ], venue: venue)
        #expect(set.labels == [PlaceLabel(id: "A", floor: 2), PlaceLabel(id: "B", floor: 1)])
        #expect(set.samples.count == 4)
    }

    @Test func nearestNeighboursVoteByHand() throws {
        // Vectors (b1, b2): A (−60, −80), (−62, −80); B (−80, −60). Query (−70, −71): squared distances
        // A 10² + 9² = 181, 8² + 9² = 145; B 10² + 11² = 221. k = 1 → A; k = 3 → A 2/3, B 1/3.
        let set = PlaceTrainingSet(scans: [
            D.scan(0, [("b1", -60), ("b2", -80)], place: "A"), D.scan(1, [("b1", -62), ("b2", -80)], place: "A"),
            D.scan(2, [("b1", -80), ("b2", -60)], place: "B"),
        ])
        let query = D.scan(9, [("b1", -70), ("b2", -71)])
        #expect(NearestNeighbourPlaceClassifier(training: set, k: 1).classify(query)?.probability == 1)
        let three = try #require(NearestNeighbourPlaceClassifier(training: set, k: 3).classify(query))
        #expect(three.place == "A")
        #expect(abs(three.probabilities[1] - 1.0 / 3) < 1e-12)
        // A missing beacon counts as 5 dB below the weakest training reading (−80 → −85).
        #expect(NearestNeighbourPlaceClassifier(training: set, k: 1).missingRSSI == -85)
    }

    @Test func theDefaultBeatsSingleScansOnAStream() throws {
        let train = D.survey(means: D.fourPlaces, count: 40, sigma: 6, miss: 0.1, seed: 1)
        let test = D.survey(means: D.fourPlaces, count: 30, sigma: 6, miss: 0.1, seed: 2)
        let set = PlaceTrainingSet(scans: train)
        func accuracy(_ model: PlaceModel) -> (place: Double, floor: Double) {
            var tracker = model.tracker()
            var place = 0, floor = 0
            for scan in test {
                let result = tracker.classify(scan)
                if result?.place == scan.truth?.place { place += 1 }
                if result?.floor == scan.truth?.floor { floor += 1 }
            }
            return (Double(place) / Double(test.count), Double(floor) / Double(test.count))
        }
        let basic = accuracy(PlaceModel.train(.basic, on: set))
        let knn = accuracy(PlaceModel.train(.knn, on: set))
        let best = accuracy(PlaceModel.train(.default, on: set))
        #expect(best.place > basic.place)
        #expect(best.place > knn.place)
        #expect(best.place >= 0.9)
        #expect(best.floor >= 0.95)
        // Every scan that heard a beacon gets an answer.
        var tracker = PlaceModel.train(.default, on: set).tracker()
        let answer = tracker.classify(D.scan(0, [("b4", -90)]))
        #expect(answer != nil)
    }

    @Test func theDefaultTakesTheForestWhereOnlyWhichBeaconsWereHeardTells() throws {
        let set = PlaceTrainingSet(scans: RandomForestPlaceClassifierTests.heardPatterns(count: 40, seed: 3))
        let model = DefaultPlaceClassifier(training: set)
        guard case .forest = model.model else { Issue.record("naive Bayes chosen: \(model.candidateAccuracies)"); return }
        let forest = try #require(model.candidateAccuracies[.forest]), bayes = try #require(model.candidateAccuracies[.naiveBayes])
        #expect(forest > bayes)
        #expect(model.validationAccuracy == forest)
        var tracker = model.tracker()
        let test = RandomForestPlaceClassifierTests.heardPatterns(count: 10, seed: 4)
        #expect(test.filter { tracker.classify($0)?.place == $0.truth?.place }.count >= 19)
    }

    @Test func theDefaultKeepsNaiveBayesWhereItsModelIsTheTruth() throws {
        // Gaussian readings around each place's means, every beacon heard: naive Bayes is the true model.
        let set = PlaceTrainingSet(scans: D.survey(means: D.fourPlaces, count: 40, sigma: 6, seed: 5))
        let model = DefaultPlaceClassifier(training: set)
        guard case .naiveBayes = model.model else { Issue.record("the forest chosen: \(model.candidateAccuracies)"); return }
        let forest = try #require(model.candidateAccuracies[.forest]), bayes = try #require(model.candidateAccuracies[.naiveBayes])
        #expect(bayes >= forest)
        #expect(model.validationAccuracy == bayes)
        // The model file records the choice and both accuracies.
        let file = PlaceModelFile.encode(PlaceModel.train(.default, on: set))
        #expect(file["naiveBayes"] != nil && file["forest"] == nil)
        #expect(file["candidates"]?["forest"] == .number(forest))
    }
}
