import Benchmark
import Foundation
import Whereabouts

/// Place ranking (Hekaerge's re-sort), containment and the place monitor.
///
/// "ranking" keeps 1,000 places (circles of 5–50 m scattered over 1 km × 1 km on two floors; the
/// "with polygons" variant makes every tenth a 4–8-sided polygon) ordered from a position that
/// walks 1 m a step along a long loop: each iteration is one `update(position:)` — 1,000
/// distances and an insertion sort of the previous order — so with `scalingFactor: .kilo` the
/// throughput reads in thousands of **re-sorts per second**. "containment" estimates the place of
/// a fix among 20 rooms (one iteration, one fix); "monitor" feeds a place monitor one estimate.
func registerPlaceBenchmarks() {
    let configuration = Benchmark.Configuration(
        metrics: [.throughput, .wallClock, .mallocCountTotal],
        scalingFactor: .kilo,
        maxDuration: .seconds(3))

    for polygons in [false, true] {
        let run = RankingRun(placeCount: 1_000, polygons: polygons)
        Benchmark("Places: ranking, 1000 places\(polygons ? " with polygons" : ""), one re-sort per step",
                  configuration: configuration) { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(run.step())
            }
        }
    }

    let rooms = (0..<20).map { index in
        let x0 = Double(index % 5) * 6, y0 = Double(index / 5) * 5
        return Venue.Place(id: "room\(index)", floor: 0, shape: .polygon([
            PlanarPoint(x: x0, y: y0), PlanarPoint(x: x0 + 6, y: y0), PlanarPoint(x: x0 + 6, y: y0 + 5), PlanarPoint(x: x0, y: y0 + 5),
        ]))
    }
    let containment = PlaceContainment(places: rooms)
    let fixes = (0..<64).map { index in
        Fix(time: Double(index), point: SpatialPoint(x: 1 + Double(index % 28), y: 1 + Double(index % 18), z: 0),
            floor: 0, accuracy: 1.5, method: "bench")
    }
    Benchmark("Places: containment estimate, 20 polygon rooms, accuracy 1.5 m",
              configuration: Benchmark.Configuration(metrics: [.throughput, .wallClock], scalingFactor: .one,
                                                     maxDuration: .seconds(3))) { benchmark in
        for iteration in benchmark.scaledIterations {
            blackHole(containment.estimate(for: fixes[iteration % fixes.count]))
        }
    }

    let monitorRun = MonitorRun()
    Benchmark("Places: place monitor, one estimate", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(monitorRun.step())
        }
    }
}

/// A ranking and a walking position, advanced one step per call.
final class RankingRun: @unchecked Sendable {
    private var ranking: PlaceRanking
    private var steps = 0

    init(placeCount: Int, polygons: Bool) {
        var random = SeededRandom(seed: 11)
        var places: [Venue.Place] = []
        for index in 0..<placeCount {
            let center = PlanarPoint(x: 1_000 * random.nextUniform(), y: 1_000 * random.nextUniform())
            let radius = 5 + 45 * random.nextUniform()
            let floor = random.nextUniform() < 0.8 ? 0 : 1
            if polygons, index % 10 == 0 {
                let sides = 4 + Int(random.next() % 5)
                let vertices = (0..<sides).map { k in
                    let angle = Double(k) / Double(sides) * 2 * .pi
                    return PlanarPoint(x: center.x + radius * cos(angle), y: center.y + radius * sin(angle))
                }
                places.append(Venue.Place(id: "p\(index)", floor: floor, shape: .polygon(vertices)))
            } else {
                places.append(Venue.Place(id: "p\(index)", floor: floor, shape: .circle(center: center, radius: radius, coordinate: nil)))
            }
        }
        ranking = PlaceRanking(places: places)
    }

    /// Moves the position 1 m along a circle of radius 300 m around the middle and re-sorts.
    func step() -> Bool {
        steps += 1
        let angle = Double(steps) / 300
        let position = PlaceRanking.Position(point: PlanarPoint(x: 500 + 300 * cos(angle), y: 500 + 300 * sin(angle)), floor: 0)
        return ranking.update(position: position)
    }
}

/// A place monitor fed a scripted walk: 20 scans in one room, 20 in the next, with strays.
final class MonitorRun: @unchecked Sendable {
    private var monitor = PlaceMonitor()
    private var time = 0.0
    private let script: [PlaceEstimate] = (0..<40).map { index in
        let room = index < 20 ? "A" : "B"
        let stray = index % 7 == 3
        return PlaceEstimate(place: stray ? (room == "A" ? "B" : "A") : room, probability: 0.8)
    }

    func step() -> Int {
        time += 1
        return monitor.observe(script[Int(time) % script.count], at: time).count
    }
}
