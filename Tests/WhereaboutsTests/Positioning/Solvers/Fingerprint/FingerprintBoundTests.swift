import Foundation
import Testing
@testable import Whereabouts

/// The blocked fingerprint search passes over blocks on the triangle inequality around their
/// centres; these fingerprints come in tight clusters far apart, so that it passes over most of
/// them, and the neighbours must still be those of the row-by-row definition, bit for bit.
@Suite struct FingerprintBoundTests {
    /// `clusters` places of `perCluster` scans each (consecutive rows), every place hearing its own
    /// beacons loud and the others faintly or not at all, with ±3 dB (whole dB) between its scans.
    static func clustered(clusters: Int, perCluster: Int, width: Int, fill: Double?, floors: Bool,
                          seed: UInt64) -> (FingerprintTable, [[Double]]) {
        var random = SeededRandom(seed: seed)
        var centres: [[Double]] = []
        for _ in 0..<clusters {
            centres.append((0..<width).map { _ in random.nextUniform() < 0.5 ? -95 + (50 * random.nextUniform()).rounded() : .nan })
        }
        var samples: [FingerprintSample] = []
        for (place, centre) in centres.enumerated() {
            for _ in 0..<perCluster {
                let values = centre.map { $0.isNaN ? $0 : $0 + (6 * random.nextUniform() - 3).rounded() }
                samples.append(FingerprintSample(point: PlanarPoint(x: Double(place), y: 0),
                                                 floor: floors ? place % 2 : nil, device: nil, values: values))
            }
        }
        let beacons = (0..<width).map { Venue.Beacon(id: "b\($0)", x: Double($0), y: 0, floor: floors ? $0 % 2 : 0) }
        let table = FingerprintTable(samples, width: width, venue: PositioningVenue(Venue(beacons: beacons)), fill: fill)
        return (table, centres)
    }

    @Test(arguments: [FingerprintSolver.Metric.euclidean, .manhattan])
    func boundedSearchMatchesRowByRow(metric: FingerprintSolver.Metric) {
        var random = SeededRandom(seed: 21)
        for (clusters, perCluster, width, floors) in [(40, 8, 24, false), (25, 13, 19, false), (30, 8, 10, true)] {
            let fill = -100.0
            let (table, centres) = Self.clustered(clusters: clusters, perCluster: perCluster, width: width, fill: fill,
                                                  floors: floors, seed: UInt64(clusters * width))
            for trial in 0..<30 {
                // Near one of the places, or anywhere.
                let near = centres[Int(random.nextUniform() * Double(clusters)) % clusters]
                let query = near.map { value -> Double in
                    trial % 4 == 3 ? (random.nextUniform() < 0.5 ? -95 + (50 * random.nextUniform()).rounded() : .nan)
                        : value.isNaN ? value : value + (8 * random.nextUniform() - 4).rounded()
                }
                let floor: Int? = floors && trial % 2 == 0 ? trial % 4 / 2 : nil
                let beacons = floor.flatMap { table.floorBeacons[$0] } ?? table.allBeacons
                for k in [1, 5, 20] {
                    table.expectSameNeighbours(of: query, beacons: beacons, floor: floor, metric: metric, fill: fill, k: k)
                }
            }
        }
    }

    @Test func centresAreTheBlockMeansAndRadiiTheRowsDistancesRoundedUp() {
        // Two rows, two beacons, filled at −100: rows (−60, −100) and (−70, −80).
        // Centre (−65, −90); Manhattan radii 5 + 10 = 15 for both rows; Euclidean √(25 + 100) = √125.
        let samples = [FingerprintSample(point: PlanarPoint(x: 0, y: 0), floor: nil, device: nil, values: [-60, .nan]),
                       FingerprintSample(point: PlanarPoint(x: 1, y: 0), floor: nil, device: nil, values: [-70, -80])]
        let table = FingerprintTable(references: samples, width: 2, fill: -100)
        #expect(table.centreStride == 8)
        #expect(Array(table.centres) == [-65, -90, 0, 0, 0, 0, 0, 0])
        #expect(table.manhattanRadii[0][0] == 15 && table.manhattanRadii[0][1] == 15 && table.manhattanRadii[0][2] == 0)
        // The radii are rounded up to single precision: the nearest Float to √125 (11.180339887…),
        // 11.18034, is below it, so the radius is the next one up.
        let rootUp = Float(125.0.squareRoot()).nextUp
        #expect(Double(rootUp.nextDown) < 125.0.squareRoot() && Double(rootUp) > 125.0.squareRoot())
        #expect(table.euclideanRadii[0][0] == rootUp && table.euclideanRadii[0][1] == rootUp)
        // Without a fill the blocks keep NaN and there are no centres.
        #expect(FingerprintTable(references: samples, width: 2, fill: nil).centres.isEmpty)
    }
}
