import Foundation
import Testing
@testable import Whereabouts

@Suite("Place model file")
struct PlaceModelFileTests {
    typealias D = RoomTestData

    @Test(arguments: PlaceClassifierKind.allCases)
    func roundTripClassifiesTheSame(kind: PlaceClassifierKind) throws {
        let set = PlaceTrainingSet(scans: D.survey(means: D.fourPlaces, count: 20, sigma: 5, miss: 0.1, seed: 3))
        let model = PlaceModel.train(kind, on: set)
        let text = JSONWriter().string(from: PlaceModelFile.encode(model))
        let again = try PlaceModelFile.decode(Array(text.utf8), file: "model.json")
        #expect(JSONWriter().string(from: PlaceModelFile.encode(again)) == text)
        var first = model.tracker(), second = again.tracker()
        for scan in D.survey(means: D.fourPlaces, count: 10, sigma: 5, miss: 0.1, seed: 4) {
            let a = first.classify(scan), b = second.classify(scan)
            #expect(a == b)
        }
    }

    @Test func errorsNameTheFileAndTheKey() throws {
        let set = PlaceTrainingSet(scans: D.survey(means: D.fourPlaces, count: 10, sigma: 5, seed: 5))
        let text = JSONWriter().string(from: PlaceModelFile.encode(PlaceModel.train(.naiveBayes, on: set)))
        let newer = text.replacingOccurrences(of: #""version":1"#, with: #""version":9"#)
        #expect(throws: FormatError(file: "m.json", key: "version",
                                    message: "version 9 is not supported (this build reads up to 1); retrain the model or update Whereabouts")) {
            try PlaceModelFile.decode(Array(newer.utf8), file: "m.json")
        }
        let broken = text.replacingOccurrences(of: #""cells":[["#, with: #""cells":[[7,"#)
        #expect(throws: FormatError(file: "m.json", key: "naiveBayes.cells[0]", message: "expected 5 cells, one per beacon, found 6")) {
            try PlaceModelFile.decode(Array(broken.utf8), file: "m.json")
        }
        #expect(throws: FormatError(file: "m.json", key: "format", message: "missing required key")) {
            try PlaceModelFile.decode(Array("{}".utf8), file: "m.json")
        }
    }
}
