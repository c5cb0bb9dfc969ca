import Foundation
import Testing
@testable import Whereabouts

@Suite struct FingerprintSolverTests {
    // MARK: Helpers

    /// Two beacons, "a" at (0, 0) and "b" at (10, 0), both on floor 0.
    static let twoBeacons = PositioningVenue(Venue(beacons: [Venue.Beacon(id: "a", x: 0, y: 0),
                                                             Venue.Beacon(id: "b", x: 10, y: 0)]))

    static func scan(_ rssi: [String: Double], x: Double, y: Double = 0, floor: Int? = nil, device: String? = nil,
                     time: Double = 0) -> Scan {
        Scan(time: time, device: device,
             readings: rssi.sorted { $0.key < $1.key }.map { Reading(beacon: .id($0.key), rssi: $0.value) },
             truth: GroundTruth(x: x, y: y, floor: floor))
    }

    /// Three fingerprints on a line: A (0, 0) hears a −50 / b −80, C (5, 0) −65 / −65, B (10, 0) −80 / −50.
    static let line = [scan(["a": -50, "b": -80], x: 0), scan(["a": -80, "b": -50], x: 10),
                       scan(["a": -65, "b": -65], x: 5)]

    /// Fixed settings and one spatial block for everything, so that no cross-validation runs.
    static func fixed(k: Int, metric: FingerprintSolver.Metric = .euclidean) -> FingerprintSolver.Options {
        FingerprintSolver.Options(k: k, metric: metric, mergesSamePosition: false, fillRSSI: -100,
                                        queryFilter: nil, blockSize: 1000)
    }

    static func observation(_ signals: [(Int, Double)], floor: Int? = nil) -> Observation {
        Observation(time: 0, floor: floor, signals: signals.map { BeaconSignal(beaconIndex: $0.0, rssi: $0.1) }, ranges: [])
    }

    // MARK: Hand-computed answers

    @Test func nearestTwoByHand() throws {
        let solver = FingerprintSolver(venue: Self.twoBeacons, training: Self.line, options: Self.fixed(k: 2))
        #expect(solver.validation == nil)
        #expect(solver.referenceCount == 3)
        let estimate = try #require(solver.locate(Self.observation([(0, -52), (1, -78)])))
        // Query (−52, −78): d(A) = √(2² + 2²) = 2.8284, d(C) = √(13² + 13²) = 18.3848, d(B) = √(28² + 28²) = 39.598.
        // k = 2 → A and C, weights 1/(d + 1): wA = 0.261204, wC = 0.0515869;
        // x = (wA·0 + wC·5) / (wA + wC) = 0.257934 / 0.312791 = 0.824623, y = 0.
        #expect(abs(estimate.point.x - 0.824623) < 1e-5)
        #expect(abs(estimate.point.y) < 1e-12)
        // Spread √((wA·0.8246² + wC·4.1754²)/(wA + wC)) = 1.8556 < minimum spread = half the median
        // nearest spacing of 0, 5, 10 = 2.5; scale 1 without cross-validation → 2.5.
        #expect(solver.minimumSpread == 2.5)
        #expect(abs(estimate.accuracy - 2.5) < 1e-12)
        #expect(estimate.beaconCount == 2)
        #expect(estimate.point.z == Self.twoBeacons.receiverHeight)
    }

    @Test func missingBeaconsUnderEachMetric() throws {
        // Query hears only a at −52.
        let query = Self.observation([(0, -52)])
        // Euclidean, b filled at −100: d(A) = √(2² + 20²) = 20.0998, d(C) = √(13² + 35²) = 37.336,
        // d(B) = √(28² + 50²) = 57.31; k = 1 → A.
        let euclidean = FingerprintSolver(venue: Self.twoBeacons, training: Self.line, options: Self.fixed(k: 1))
        #expect(euclidean.locate(query)?.point.x == 0)
        // Shared + 10 dB: d(A) = √(2² + 10²) = 10.198, d(C) = √(13² + 10²) = 16.4012, d(B) = √(28² + 10²) = 29.732;
        // k = 2 → wA = 1/11.198 = 0.0893020, wC = 1/17.4012 = 0.0574673, x = wC·5/(wA + wC) = 1.957750.
        let shared = FingerprintSolver(venue: Self.twoBeacons, training: Self.line,
                                       options: Self.fixed(k: 2, metric: .sharedWithPenalty(10)))
        let estimate = try #require(shared.locate(query))
        #expect(abs(estimate.point.x - 1.957750) < 1e-5)
        // Manhattan, b filled at −100: d(A) = 2 + 20 = 22, d(C) = 13 + 35 = 48, d(B) = 28 + 50 = 78;
        // k = 2 → wA = 1/23 = 0.0434783, wC = 1/49 = 0.0204082, x = (5/49)/(wA + wC) = 0.1020408/0.0638865 = 1.597222.
        let manhattan = FingerprintSolver(venue: Self.twoBeacons, training: Self.line,
                                          options: Self.fixed(k: 2, metric: .manhattan))
        #expect(abs((manhattan.locate(query)?.point.x ?? .nan) - 1.597222) < 1e-5)
    }

    @Test func mergingAveragesBeaconsHeardByHalfTheScans() {
        // Four scans at one spot: a heard by all (−50, −52, −54, −56 → −53), b by two (−80, −90 → −85),
        // a third beacon would need two of four; b heard by one of three elsewhere is dropped.
        let samples = [FingerprintSample(point: PlanarPoint(x: 1, y: 1), floor: nil, device: "p", values: [-50, -80]),
                       FingerprintSample(point: PlanarPoint(x: 1, y: 1), floor: nil, device: "p", values: [-52, .nan]),
                       FingerprintSample(point: PlanarPoint(x: 1, y: 1), floor: nil, device: "p", values: [-54, -90]),
                       FingerprintSample(point: PlanarPoint(x: 1, y: 1), floor: nil, device: "p", values: [-56, .nan]),
                       FingerprintSample(point: PlanarPoint(x: 2, y: 1), floor: nil, device: "p", values: [-60, -70]),
                       FingerprintSample(point: PlanarPoint(x: 2, y: 1), floor: nil, device: "p", values: [-62, .nan]),
                       FingerprintSample(point: PlanarPoint(x: 2, y: 1), floor: nil, device: "p", values: [-64, .nan]),
                       FingerprintSample(point: PlanarPoint(x: 1, y: 1), floor: nil, device: "q", values: [-40, .nan])]
        let merged = FingerprintSample.merged(samples)
        #expect(merged.count == 3)
        #expect(merged[0].values[0] == -53 && merged[0].values[1] == -85)
        #expect(merged[1].values[0] == -62 && merged[1].values[1].isNaN)
        #expect(merged[2].device == "q" && merged[2].values[0] == -40)
    }

    @Test func foldsDealLargestBlocksToTheLightestFold() {
        // Blocks (1.5 m) holding 3, 2, 2 and 1 samples, two folds: 3 → fold 0; 2 → fold 1; 2 → fold 1
        // (load 2 < 3); 1 → fold 0 (load 3 < 4). Loads 4 and 4.
        func samples(_ x: Double, _ n: Int) -> [FingerprintSample] {
            (0..<n).map { _ in FingerprintSample(point: PlanarPoint(x: x, y: 0), floor: nil, device: nil, values: [-60]) }
        }
        let all = samples(0.1, 3) + samples(2, 2) + samples(4, 2) + samples(6, 1)
        let folds = FingerprintFolds(samples: all, blockSize: 1.5, folds: 2)
        #expect(folds.count == 2)
        #expect(all.map { folds.fold(of: $0) ?? -1 } == [0, 0, 0, 1, 1, 1, 1, 0])
        // Fewer blocks than folds: as many folds as blocks; one block: no cross-validation.
        #expect(FingerprintFolds(samples: all, blockSize: 1.5, folds: 5).count == 4)
        #expect(FingerprintFolds(samples: samples(0, 4), blockSize: 1.5, folds: 5).count < 2)
    }

    @Test func defaultFillFollowsTheBaselineRule() {
        // Lowest RSSI −80 → −85, but at most −100 → −100; the 1st/5th/10th percentiles of
        // {−80, −80, −65, −65, −50, −50} sit at positions 0.05, 0.25, 0.5 → all −80 (kept once).
        let samples = FingerprintSample.samples(of: Self.line, venue: Self.twoBeacons, filter: nil)
        #expect(FingerprintSample.fillCandidates(of: samples) == [-100, -80])
        // −100, −95, …, −50 (11 values): −105; positions 0.1, 0.5, 1 → −99.5, −97.5, −95.
        let spread = stride(from: -100.0, through: -50, by: 5).map {
            FingerprintSample(point: PlanarPoint(x: 0, y: 0), floor: nil, device: nil, values: [$0])
        }
        #expect(FingerprintSample.fillCandidates(of: spread) == [-105, -99.5, -97.5, -95])
        #expect(FingerprintSample.fillCandidates(of: []) == [-100])
    }

    // MARK: Floors and degenerate input

    @Test func floorRestrictsBeaconsAndFingerprints() throws {
        let venue = PositioningVenue(Venue(floors: [Venue.Floor(level: 0), Venue.Floor(level: 1)],
                                           beacons: [Venue.Beacon(id: "a", x: 0, y: 0, floor: 0),
                                                     Venue.Beacon(id: "b", x: 0, y: 0, floor: 1)]))
        let training = [Self.scan(["a": -50, "b": -90], x: 0, floor: 0), Self.scan(["a": -90, "b": -50], x: 20, floor: 1)]
        let solver = FingerprintSolver(venue: venue, training: training, options: Self.fixed(k: 1))
        // Without a floor both beacons count: (−90, −50) is the floor-1 fingerprint.
        #expect(solver.locate(Self.observation([(0, -90), (1, -50)]))?.point.x == 20)
        // Floor 0 chosen: only beacon a (−90) and only floor-0 fingerprints count.
        #expect(solver.locate(Self.observation([(0, -90), (1, -50)], floor: 0))?.point.x == 0)
        // Floor 0 chosen but only a floor-1 beacon heard: nothing to go on; a floor without beacons too.
        #expect(solver.locate(Self.observation([(1, -50)], floor: 0)) == nil)
        #expect(solver.locate(Self.observation([(0, -50)], floor: 7)) == nil)
    }

    @Test func nothingToGoOnGivesNil() {
        let empty = FingerprintSolver(venue: Self.twoBeacons, training: [])
        #expect(empty.referenceCount == 0)
        #expect(empty.locate(Self.observation([(0, -60)])) == nil)
        let solver = FingerprintSolver(venue: Self.twoBeacons, training: Self.line, options: Self.fixed(k: 2))
        #expect(solver.locate(Self.observation([])) == nil)
        #expect(solver.locate(Self.observation([(5, -60), (-1, -60), (0, .nan)])) == nil)
        // Truth by place only (no x/y), as in a venue without coordinates: no fingerprint at all.
        let labelled = [Scan(time: 0, readings: [Reading(beacon: .id("a"), rssi: -60)], truth: GroundTruth(floor: 0, place: "hall"))]
        let placesOnly = FingerprintSolver(venue: Self.twoBeacons, training: labelled)
        #expect(placesOnly.referenceCount == 0)
        #expect(placesOnly.locate(Self.observation([(0, -60)])) == nil)
    }

    // MARK: Simulated data

    /// A 20 × 10 m room with eight beacons around it and a grid of survey points (2.5 m apart),
    /// ten scans at each, σ = 4 dB.
    static func simulatedRoom() -> (venue: Venue, training: [Scan], radio: RadioModel) {
        let beacons = [(0.0, 0.0), (10, 0), (20, 0), (0, 10), (10, 10), (20, 10), (5, 5), (15, 5)]
            .enumerated().map { Venue.Beacon(id: "b\($0.offset)", x: $0.element.0, y: $0.element.1, z: 2.5) }
        let venue = Venue(beacons: beacons)
        let radio = RadioModel(shadowing: 4, packetLoss: 0.1, scanInterval: 1, sensitivity: -95)
        var training: [Scan] = []
        var seed: UInt64 = 1
        for x in stride(from: 1.25, through: 18.75, by: 2.5) {
            for y in stride(from: 1.25, through: 8.75, by: 2.5) {
                let walk = Walk(waypoints: [Walk.Waypoint(x: x, y: y, dwell: 9)], start: Double(training.count) * 100,
                                device: "phone")
                training += Simulator(venue: venue, walk: walk, radio: radio, seed: seed)
                seed += 1
            }
        }
        return (venue, training, radio)
    }

    @Test func crossValidationPicksASensibleK() throws {
        let (venue, training, radio) = Self.simulatedRoom()
        let positioning = PositioningVenue(venue)
        let solver = FingerprintSolver(venue: positioning, training: training,
                                       options: FingerprintSolver.Options(metric: .euclidean, mergesSamePosition: false,
                                                                                      queryFilter: nil))
        let validation = try #require(solver.validation)
        #expect(validation.folds == 5)
        #expect(validation.queries == training.count)
        // With 4 dB of noise one neighbour is a poor guess: the chosen k averages several, and is
        // the best of the trials.
        #expect(solver.k >= 3 && solver.k <= 30)
        let best = try #require(validation.trials.min { $0.meanError < $1.meanError })
        #expect(best.k == solver.k)
        let one = try #require(validation.trials.first { $0.k == 1 && $0.fillRSSI == solver.fillRSSI })
        #expect(best.meanError < one.meanError)
        #expect(solver.accuracyScale > 0.3 && solver.accuracyScale < 5)

        // A walk across the room, located scan by scan: errors well under the room's size.
        let walk = Walk(waypoints: [Walk.Waypoint(x: 2, y: 2), Walk.Waypoint(x: 18, y: 8)], start: 1e6, device: "phone")
        var errors: [Double] = []
        for scan in Simulator(venue: venue, walk: walk, radio: radio, seed: 99) {
            var observation = Observation(time: scan.time, signals: [], ranges: [])
            observation.signals = scan.readings.compactMap { reading in
                positioning.directory.index(for: reading.beacon).map { BeaconSignal(beaconIndex: $0, rssi: reading.rssi) }
            }
            guard let estimate = solver.locate(observation), let truth = scan.truth?.planarPoint else { continue }
            errors.append(estimate.point.planar.distance(to: truth))
        }
        let statistics = try #require(ErrorStatistics(errors))
        #expect(statistics.count > 10)
        #expect(statistics.mean < 3)
    }

    @Test func automaticSettingsAreDeterministic() {
        let (venue, training, _) = Self.simulatedRoom()
        let positioning = PositioningVenue(venue)
        let configuration = FingerprintSolver.Options(candidateKs: [1, 3, 7], maximumValidationQueries: 150)
        let first = FingerprintSolver(venue: positioning, training: training, options: configuration)
        let second = FingerprintSolver(venue: positioning, training: training, options: configuration)
        #expect(first.validation == second.validation)
        #expect(first.k == second.k && first.metric == second.metric && first.fillRSSI == second.fillRSSI)
        // The subsample of held-out scans is bounded.
        #expect((first.validation?.queries ?? 0) <= 150 + 5)
    }

    @Test func randomObservationsNeverTrap() {
        let (venue, training, _) = Self.simulatedRoom()
        let positioning = PositioningVenue(venue)
        let solver = FingerprintSolver(venue: positioning, training: training,
                                       options: FingerprintSolver.Options(k: 5, metric: .euclidean,
                                                                                      mergesSamePosition: true))
        var random = SeededRandom(seed: 11)
        let extremes: [Double] = [-.infinity, .infinity, .nan, -1e308, 1e308, 0, -200]
        for _ in 0..<500 {
            let count = Int.random(in: 0...10, using: &random)
            let signals = (0..<count).map { _ in
                let rssi = random.nextUniform() < 0.1 ? extremes[Int.random(in: 0..<extremes.count, using: &random)]
                                                      : -40 - 60 * random.nextUniform()
                return BeaconSignal(beaconIndex: Int.random(in: -2...10, using: &random), rssi: rssi)
            }
            let floor: Int? = random.nextUniform() < 0.3 ? Int.random(in: -1...1, using: &random) : nil
            // Located exactly when a reading names one of the venue's beacons with an RSSI in
            // −200…0 dBm and the floor, if any, is the survey's (0): the rest is refused, never trapped on.
            let usable = signals.contains { (0..<venue.beacons.count).contains($0.beaconIndex) && $0.rssi >= -200 && $0.rssi <= 0 }
            let located = solver.locate(Observation(time: 0, floor: floor, signals: signals, ranges: []))
            #expect((located != nil) == (usable && (floor ?? 0) == 0), "\(signals) on floor \(floor.map(String.init) ?? "none")")
            guard let estimate = located else { continue }
            #expect(estimate.isFinite)
            // A weighted mean of survey points stays inside their extent (1.25…18.75 × 1.25…8.75).
            #expect(estimate.point.x >= 1.25 - 1e-9 && estimate.point.x <= 18.75 + 1e-9)
            #expect(estimate.point.y >= 1.25 - 1e-9 && estimate.point.y <= 8.75 + 1e-9)
        }
    }
}
