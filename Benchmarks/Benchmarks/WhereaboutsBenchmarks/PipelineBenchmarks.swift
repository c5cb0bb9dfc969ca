import Benchmark
import Foundation
import Whereabouts

/// The whole positioning pipeline of one device, end to end: scan → per-beacon filters →
/// observation → floor → solver → fix, through a ``Locator``, with no file I/O.
///
/// The venue is shaped like the UJI library zone: 24 beacons on a 30 m × 15 m floor (six columns
/// of four, 5.8 m × 4.3 m apart, 2.5 m high). Its training recording is a simulated site survey
/// like the UJI library's (48 points, 18 one-second scans at each; 4 dB shadowing, 10 % multipath
/// fades, 50 % packet loss); the recording located is a simulated walk through 60 random spots
/// under the same radio. Every scan keeps its 10 strongest readings (scans with fewer are
/// dropped), like the ~10-reading ranging seconds of the UJI recordings.
///
/// The `locate` benchmarks run the default, its members and the posterior (a grid of 0.5 m cells
/// over the floor, filtered scan by scan; not yet the default). Each benchmark iteration of the
/// `locate` benchmarks locates 100 scans, counted as their 1,000
/// readings (`scalingFactor: .kilo`), so their throughput reads in **readings per second**. The
/// locator carries on from one iteration to the next and starts afresh whenever the walk wraps
/// around. "allocations per fix" locates one scan per iteration, so its `mallocCountTotal` is
/// the allocations of one fix (its `beacons` array included); "solver only" runs the default
/// solver on the walk's observations, one per iteration.
func registerPipelineBenchmarks() {
    let configuration = Benchmark.Configuration(
        metrics: [.throughput, .wallClock, .mallocCountTotal],
        scalingFactor: .kilo,
        maxDuration: .seconds(3))

    for algorithm in [PositioningAlgorithm.default, .centroid, .multilateration, .knn, .posterior] {
        let run = PipelineRun(algorithm)
        Benchmark("Pipeline: locate, \(algorithm.rawValue), 10-reading scans of 24 beacons",
                  configuration: configuration,
                  closure: { benchmark in
                      // One scan per 10 readings.
                      for _ in stride(from: 0, to: benchmark.scaledIterations.count, by: PipelineFixture.readingsPerScan) {
                          blackHole(run.next())
                      }
                  },
                  setup: { run.prepare() })
    }

    // The same scans through the library's FixPipeline (per-device slots, statistics, the
    // timing's stage): its cost over the bare Locator above.
    let throughPipeline = PipelineRun(.default)
    Benchmark("Pipeline: FixPipeline, immediate, default, 10-reading scans of 24 beacons",
              configuration: configuration,
              closure: { benchmark in
                  for _ in stride(from: 0, to: benchmark.scaledIterations.count, by: PipelineFixture.readingsPerScan) {
                      blackHole(throughPipeline.nextThroughPipeline())
                  }
              },
              setup: { throughPipeline.prepare() })

    // One fix per iteration through the FixPipeline: its allocations beside the bare Locator's.
    let singleThroughPipeline = PipelineRun(.default)
    Benchmark("Pipeline: allocations per fix, FixPipeline, default",
              configuration: .init(metrics: [.mallocCountTotal, .wallClock], scalingFactor: .one, maxDuration: .seconds(1)),
              closure: { _ in blackHole(singleThroughPipeline.nextThroughPipeline()) },
              setup: { singleThroughPipeline.prepare() })

    // One fix per iteration: the allocations of one fix, exactly.
    let single = PipelineRun(.default)
    Benchmark("Pipeline: allocations per fix, default",
              configuration: .init(metrics: [.mallocCountTotal, .wallClock], scalingFactor: .one, maxDuration: .seconds(1)),
              closure: { _ in blackHole(single.next()) },
              setup: { single.prepare() })

    // The default solver alone on the observations of the walk.
    let observations = PipelineRun(.default)
    Benchmark("Pipeline: solver only, default",
              configuration: .init(metrics: [.throughput, .wallClock, .mallocCountTotal], scalingFactor: .one,
                                   maxDuration: .seconds(1)),
              closure: { _ in blackHole(observations.nextSolverOnly()) },
              setup: { observations.prepare() })
}

/// A locator walking the fixture's recording round and round, from one benchmark iteration to
/// the next; it starts afresh whenever the walk wraps around.
private final class PipelineRun {
    let algorithm: PositioningAlgorithm
    var setup: PositioningSetup?
    var locator: Locator?
    var pipeline: FixPipeline?
    var observations: [Observation] = []
    var position = 0

    init(_ algorithm: PositioningAlgorithm) {
        self.algorithm = algorithm
    }

    /// Builds the fixture (once for every run) and this run's locator and observations.
    func prepare() {
        let setup = PipelineFixture.shared.setup(algorithm)
        self.setup = setup
        var locator = Locator(venue: setup.venue, solver: setup.solver, configuration: setup.configuration)
        observations = PipelineFixture.shared.walk.map { locator.selectFloor(locator.observe($0)) }
        self.locator = Locator(venue: setup.venue, solver: setup.solver, configuration: setup.configuration)
        pipeline = setup.makePipeline()
        position = 0
    }

    /// The fix of the next scan, through a ``FixPipeline`` (afresh whenever the walk wraps around).
    func nextThroughPipeline() -> Fix? {
        let scans = PipelineFixture.shared.walk
        if position >= scans.count {
            position = 0
            pipeline = setup?.makePipeline()
        }
        defer { position += 1 }
        var fix: Fix?
        pipeline?.add(scans[position]) { fix = $0 }
        return fix
    }

    /// The fix of the next scan.
    func next() -> Fix? {
        let scans = PipelineFixture.shared.walk
        if position >= scans.count {
            position = 0
            locator?.reset()
        }
        defer { position += 1 }
        return locator?.locate(scans[position])
    }

    /// The solver's estimate for the next observation.
    func nextSolverOnly() -> PositionEstimate? {
        guard let setup, !observations.isEmpty else { return nil }
        if position >= observations.count { position = 0 }
        defer { position += 1 }
        return setup.solver.locate(observations[position])
    }
}

/// The venue, recordings and trained setups, built once on first use.
private final class PipelineFixture: Sendable {
    static let readingsPerScan = 10
    static let shared = PipelineFixture()

    let venue: Venue
    let training: [Scan]
    let walk: [Scan]
    private let setups: [PositioningAlgorithm: PositioningSetup]

    private init() {
        var beacons: [Venue.Beacon] = []
        for column in 0..<6 {
            for row in 0..<4 {
                beacons.append(Venue.Beacon(id: "\(23 + column * 4 + row)", x: 1.5 + 5.8 * Double(column),
                                            y: 1 + 4.3 * Double(row), z: 2.5, floor: 0))
            }
        }
        venue = Venue(name: "benchmark library", floors: [Venue.Floor(level: 0, name: "floor", elevation: 0)],
                      defaults: Venue.Defaults(txPower: -62, pathLossExponent: 2.2), beacons: beacons)
        let radio = RadioModel(shadowing: 4, multipathShare: 0.1, multipathLoss: 6, packetLoss: 0.5, scanInterval: 1,
                               sensitivity: -98)

        // 48 survey points, 18 scans at each (like the UJI library's 24 points × 36 scans).
        var survey: [Walk.Waypoint] = []
        for i in 0..<8 {
            for j in 0..<6 {
                survey.append(Walk.Waypoint(x: 1 + 4 * Double(i), y: 1 + 2.6 * Double(i % 2 == 0 ? j : 5 - j), dwell: 17))
            }
        }
        training = Self.strongest(Simulator(venue: venue, walk: Walk(waypoints: survey, speed: 1e6, device: "surveyor"),
                                            radio: radio, seed: 11, truthDecimalPlaces: 2))

        var random = SeededRandom(seed: 12)
        var route: [Walk.Waypoint] = []
        for _ in 0..<60 {
            route.append(Walk.Waypoint(x: 1 + 28 * random.nextUniform(), y: 1 + 13 * random.nextUniform(),
                                       dwell: 10 * random.nextUniform()))
        }
        walk = Self.strongest(Simulator(venue: venue, walk: Walk(waypoints: route, device: "visitor"),
                                        radio: radio, seed: 13))

        var setups: [PositioningAlgorithm: PositioningSetup] = [:]
        for algorithm in [PositioningAlgorithm.default, .centroid, .multilateration, .knn] {
            setups[algorithm] = algorithm.setup(venue: venue, training: training)
        }
        self.setups = setups
    }

    func setup(_ algorithm: PositioningAlgorithm) -> PositioningSetup {
        if algorithm == .posterior { return Self.posterior }
        return setups[algorithm] ?? PositioningAlgorithm.centroid.setup(venue: venue)
    }

    /// The posterior trained on the survey, only when its benchmark runs (its training replays
    /// the survey for its radius and validation, which the others do not wait for).
    private static let posterior = PositioningAlgorithm.posterior.setup(venue: shared.venue, training: shared.training)

    /// The scans with at least ``readingsPerScan`` readings, cut to their strongest ones.
    private static func strongest(_ simulator: Simulator) -> [Scan] {
        simulator.compactMap { scan in
            guard scan.readings.count >= readingsPerScan else { return nil }
            var scan = scan
            scan.readings = Array(scan.readings.sorted { $0.rssi > $1.rssi }.prefix(readingsPerScan))
            return scan
        }
    }
}
