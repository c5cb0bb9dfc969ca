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
        #expect(throws: FormatError(file: "m.json", line: 1, column: 47, key: "version",
                                    message: "version 9 is not supported (this build reads up to 1); retrain the model or update Whereabouts")) {
            try PlaceModelFile.decode(Array(newer.utf8), file: "m.json")
        }
        let broken = text.replacingOccurrences(of: #""cells":[["#, with: #""cells":[[7,"#)
        #expect(throws: FormatError(file: "m.json", line: 1, column: 415, key: "naiveBayes.cells[0]", message: "expected 5 cells, one per beacon, found 6")) {
            try PlaceModelFile.decode(Array(broken.utf8), file: "m.json")
        }
        #expect(throws: FormatError(file: "m.json", key: "format", message: "missing required key")) {
            try PlaceModelFile.decode(Array("{}".utf8), file: "m.json")
        }
    }

    /// A forest model file of two places and one beacon whose `forest` member is `forest`.
    private func forestFile(_ forest: String) -> [UInt8] {
        Array(("""
        {"format": "whereabouts-place-model", "version": 1, "kind": "forest",
         "places": [{"id": "A"}, {"id": "B"}], "beacons": [{"id": "b1"}], "forest": \(forest)}
        """).utf8)
    }

    @Test func aForestFileReadsItsTrees() throws {
        // Not heard → B; heard at most −70 → A ×3 and B ×1; stronger → A.
        let model = try PlaceModelFile.decode(forestFile("""
            {"laplace": 0.5, "trees": [{"splits": [[0, null, "left", -1, 1], [0, -70, "right", -2, -3]],
                                        "leaves": [[1, 2], [0, 3, 1, 1], [0, 4]]}]}
            """), file: "m.json")
        guard case .forest(let forest) = model.classifier else { Issue.record("not a forest"); return }
        #expect(forest.trees[0].splits[0].threshold == -.infinity)
        #expect(forest.trees[0].splits[1].notHeardGoesLeft == false)
        // p = (share + 0.5) / (1 + 0.5 · 2): heard at −75 → A (0.75 + 0.5)/2, B (0.25 + 0.5)/2.
        let result = try #require(forest.classify(D.scan(0, [("b1", -75)])))
        #expect(abs(result.probabilities[0] - 0.625) < 1e-12)
        #expect(forest.classify(D.scan(0, [("b2", -75)]))?.place == "B")
        #expect(abs((forest.classify(D.scan(0, [("b1", -60)]))?.probability ?? 0) - 0.75) < 1e-12)
    }

    @Test func hostileForestFilesAreRefused() throws {
        func refused(_ forest: String, key: String, message: String, sourceLocation: SourceLocation = #_sourceLocation) {
            // The key and the message, at the line and column of the key's value (or of the object
            // that lacks it) in the file.
            let error = #expect(throws: FormatError.self, sourceLocation: sourceLocation) {
                try PlaceModelFile.decode(forestFile(forest), file: "m.json")
            }
            #expect(error.map { FormatError(file: $0.file, key: $0.key, message: $0.message) }
                    == FormatError(file: "m.json", key: key, message: message), sourceLocation: sourceLocation)
            #expect(error?.line == 2 && error?.column != nil, sourceLocation: sourceLocation)
        }
        let leaf = #"{"splits": [], "leaves": [[0, 1]]}"#
        let many = Array(repeating: leaf, count: RandomForestPlaceClassifier.maximumTrees + 1).joined(separator: ",")
        refused(#"{"laplace": 0.1, "trees": [\#(many)]}"#, key: "forest.trees", message: "expected 1 to 1000 trees, found 1001")
        refused(#"{"laplace": 0.1, "trees": []}"#, key: "forest.trees", message: "expected 1 to 1000 trees, found 0")
        // A chain of 42 splits, each one's right child the next: split 41 is 41 levels deep.
        let chain = (0...41).map { #"[0, -70, "left", \#(-1 - $0), \#($0 == 41 ? -43 : $0 + 1)]"# }.joined(separator: ",")
        let leaves = Array(repeating: "[0, 1]", count: 43).joined(separator: ",")
        refused(#"{"laplace": 0.1, "trees": [{"splits": [\#(chain)], "leaves": [\#(leaves)]}]}"#,
                key: "forest.trees[0].splits[40].right", message: "deeper than the 40 levels a tree may have")
        // Too many nodes in one tree, refused before a node is read.
        let wide = Array(repeating: "0", count: RandomForestPlaceClassifier.maximumNodesPerTree + 1).joined(separator: ",")
        refused(#"{"laplace": 0.1, "trees": [{"splits": [\#(wide)], "leaves": []}]}"#,
                key: "forest.trees[0]", message: "131073 nodes, more than the 131072 a tree may have")
        // A child before its parent would loop.
        refused(#"{"laplace": 0.1, "trees": [{"splits": [[0, -70, "left", 1, -1], [0, -60, "left", 0, -1]], "leaves": [[0, 1]]}]}"#,
                key: "forest.trees[0].splits[1].left", message: "split 0 must exist and come after split 1")
        // Two parents for one split would let a small file stand for a huge tree.
        refused(#"{"laplace": 0.1, "trees": [{"splits": [[0, -70, "left", 1, 1], [0, -60, "left", -1, -2]], "leaves": [[0, 1], [1, 1]]}]}"#,
                key: "forest.trees[0].splits[0].right", message: "split 1 already has a parent")
        refused(#"{"laplace": 0.1, "trees": [{"splits": [[1, -70, "left", -1, -1]], "leaves": [[0, 1]]}]}"#,
                key: "forest.trees[0].splits[0].beacon", message: "no beacon 1 (the model has 1)")
        refused(#"{"laplace": 0.1, "trees": [{"splits": [[0, -70, "left", -1, -2]], "leaves": [[0, 1]]}]}"#,
                key: "forest.trees[0].splits[0].right", message: "no leaf 1 (the tree has 1)")
        refused(#"{"laplace": 0.1, "trees": [{"splits": [], "leaves": [[2, 1]]}]}"#,
                key: "forest.trees[0].leaves[0]", message: "no place 2 (the model has 2)")
        refused(#"{"laplace": 0.1, "trees": [{"splits": [], "leaves": [[0, 0]]}]}"#,
                key: "forest.trees[0].leaves[0]", message: "weights must be positive")
        refused(#"{"laplace": 0, "trees": [\#(leaf)]}"#, key: "forest.laplace", message: "must be positive")
        refused(#"{"laplace": 0.1, "trees": [{"splits": [[0, -70, "up", -1, -1]], "leaves": [[0, 1]]}]}"#,
                key: "forest.trees[0].splits[0][2]", message: "expected \"left\" or \"right\" (where a scan that did not hear the beacon goes)")
        refused(#"{"laplace": 0.1, "trees": [{"splits": [], "leaves": [[0, 1], [1, 1]]}]}"#,
                key: "forest.trees[0].leaves[1]", message: "no split points to it")
    }
}
