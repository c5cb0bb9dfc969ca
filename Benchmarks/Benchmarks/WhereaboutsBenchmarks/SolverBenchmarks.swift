import Benchmark
import Foundation
import Whereabouts

/// Range solver throughput on a fixed observation.
///
/// A 20 m × 20 m venue with beacons on a grid; the observation hears eight of them, with ranges
/// from the log-distance model and 4 dB of RSSI noise around a receiver at (7.3, 11.8). Each
/// benchmark iteration locates that observation 1,000 times (`scalingFactor: .kilo`), so the
/// throughput reads in fixes per second, and `mallocCountTotal` shows that a fix allocates nothing.
func registerSolverBenchmarks() {
    var beacons: [Venue.Beacon] = []
    for (i, x) in [0.0, 10, 20].enumerated() {
        for (j, y) in [0.0, 10, 20].enumerated() {
            beacons.append(Venue.Beacon(id: "b\(i)\(j)", x: x, y: y))
        }
    }
    let venue = PositioningVenue(Venue(beacons: beacons))
    let locator = Locator(venue: venue, solver: WeightedCentroid(venue: venue))
    let truth = SpatialPoint(x: 7.3, y: 11.8, z: 0)
    var random = SeededRandom(seed: 1)
    var signals: [BeaconSignal] = []
    var ranges: [BeaconRange] = []
    for (index, position) in venue.positions.enumerated().prefix(8) {
        guard let position else { continue }
        let rssi = -59 - 20 * log10(max(position.distance(to: truth), 0.1)) + 4 * random.nextGaussian()
        signals.append(BeaconSignal(beaconIndex: index, rssi: rssi))
        if let range = locator.range(of: index, rssi: rssi) { ranges.append(range) }
    }
    let observation = Observation(time: 0, signals: signals, ranges: ranges)

    let solvers: [(String, any PositionSolver)] = [
        ("Solvers: multilateration, 8 beacons", Multilateration(venue: venue)),
        ("Solvers: multilateration (Cauchy), 8 beacons",
         Multilateration(venue: venue, options: .init(loss: .cauchy))),
        ("Solvers: PowerCenter, 8 beacons", PowerCenter(venue: venue)),
        ("Solvers: SphereIntersection, 8 beacons", SphereIntersection(venue: venue)),
        ("Solvers: EPTA, 8 beacons", EPTA(venue: venue)),
        ("Solvers: weighted centroid, 8 beacons", WeightedCentroid(venue: venue)),
    ]

    let configuration = Benchmark.Configuration(
        metrics: [.throughput, .wallClock, .mallocCountTotal],
        scalingFactor: .kilo,
        maxDuration: .seconds(3))

    for (name, solver) in solvers {
        Benchmark(name, configuration: configuration) { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(solver.locate(observation))
            }
        }
    }
}
