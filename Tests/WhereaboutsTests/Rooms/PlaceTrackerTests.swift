import Foundation
import Testing
@testable import Whereabouts

/// A classifier that answers with scripted log-scores, scan by scan (by the scan's time).
private struct ScriptedClassifier: PlaceClassifier {
    let labels = [PlaceLabel(id: "A", floor: 0), PlaceLabel(id: "B", floor: 1)]
    let script: [[Double]]
    func logScores(for scan: Scan, into scores: inout [Double]) -> Bool {
        let step = Int(scan.time)
        guard script.indices.contains(step) else { return false }
        scores = script[step]
        return true
    }
}

@Suite("Place tracker")
struct PlaceTrackerTests {
    @Test func forwardFilterMatchesTheHandComputation() throws {
        let classifier = ScriptedClassifier(script: [[log(0.8), log(0.2)], [log(0.2), log(0.8)]])
        var tracker = PlaceTracker(classifier: classifier, smoothing: PlaceSmoothing(temperature: 1, switching: 0.5))
        let answer = tracker.classify(Scan(time: 0, readings: []))
        let first = try #require(answer)
        // Uniform prior: the scan alone, 0.8 : 0.2.
        #expect(abs(first.probabilities[0] - 0.8) < 1e-12)
        let next = tracker.classify(Scan(time: 1, readings: []))
        let second = try #require(next)
        // prior = 0.5·(0.8, 0.2) + 0.5·(0.5, 0.5) = (0.65, 0.35); × (0.2, 0.8) = (0.13, 0.28) → p(A) = 0.13/0.41.
        #expect(abs(second.probabilities[0] - 0.13 / 0.41) < 1e-12)
        // Without smoothing the second scan stands alone.
        var plain = PlaceTracker(classifier: classifier)
        _ = plain.classify(Scan(time: 0, readings: []))
        #expect(abs((plain.classify(Scan(time: 1, readings: []))?.probabilities[0] ?? 0) - 0.2) < 1e-12)
    }

    @Test func devicesKeepTheirOwnBelief() {
        let classifier = ScriptedClassifier(script: [[log(0.8), log(0.2)], [log(0.5), log(0.5)]])
        var tracker = PlaceTracker(classifier: classifier, smoothing: PlaceSmoothing(temperature: 1, switching: 0.1))
        _ = tracker.classify(Scan(time: 0, device: "one", readings: []))
        // "two" starts from the uniform prior: an even scan stays even; "one" remembers 0.8.
        #expect(abs((tracker.classify(Scan(time: 1, device: "two", readings: []))?.probabilities[0] ?? 0) - 0.5) < 1e-12)
        // one: prior = 0.9·0.8 + 0.1·0.5 = 0.77.
        #expect(abs((tracker.classify(Scan(time: 1, device: "one", readings: []))?.probabilities[0] ?? 0) - 0.77) < 1e-12)
    }

    @Test func theFloorVoteHasItsOwnMemory() throws {
        // Places A (floor 0) and B (floor 1). Scan 0 favours A 0.8:0.2; scan 1 favours B 0.6:0.4.
        let classifier = ScriptedClassifier(script: [[log(0.8), log(0.2)], [log(0.4), log(0.6)]])
        var tracker = PlaceTracker(classifier: classifier, smoothing: nil, floorSmoothing: PlaceSmoothing(temperature: 1, switching: 0.01))
        _ = tracker.classify(Scan(time: 0, readings: []))
        let answer = tracker.classify(Scan(time: 1, readings: []))
        let second = try #require(answer)
        // The place answer is the scan's own (B); the floor filter: prior (0.99·0.8 + 0.005, 0.99·0.2 + 0.005)
        // = (0.797, 0.203), × (0.4, 0.6) = (0.3188, 0.1218) → floor 0 with 0.3188/0.4406.
        #expect(second.place == "B")
        #expect(second.floor == 0)
        #expect(abs((second.floorProbability ?? 0) - 0.3188 / 0.4406) < 1e-12)
    }
}
