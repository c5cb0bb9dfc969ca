import Foundation
import Testing
@testable import Whereabouts

/// Four beacons at the corners of a 10 × 10 m square (−59 dBm at 1 m, n = 2).
private let square = Venue(beacons: [
    Venue.Beacon(id: "a", x: 0, y: 0), Venue.Beacon(id: "b", x: 10, y: 0),
    Venue.Beacon(id: "c", x: 0, y: 10), Venue.Beacon(id: "d", x: 10, y: 10),
])

@Suite("Grid smoother")
struct GridSmootherTests {
    @Test func backwardMessageCarriesTheLaterEvidenceThroughTheMotion() throws {
        // Two cells; no walking (speed 0), jumps at rate ln 2: over 1 s half the mass goes anywhere.
        let grid = try #require(PosteriorGrid(extent: PositioningVenue.Extent(minX: 0, minY: 0, maxX: 2, maxY: 1),
                                              cellSize: 1, maximumCells: 2))
        let motion = GridFilter.Motion(speed: 0, stayProbability: 0.5, jumpRate: log(2))
        // Step 0 knows nothing; step 1 finds cell 1 a quarter as likely: filtered [0.8, 0.2].
        let steps = [
            GridFilter.SmoothingStep(filtered: [0.5, 0.5], evidence: nil, seconds: 0, continues: false),
            GridFilter.SmoothingStep(filtered: [0.8, 0.2], evidence: [0, log(0.25)], seconds: 1, continues: true),
        ]
        let smoothed = GridFilter.smoothed(steps, motion: motion, grid: grid)
        // β₀ = K[1, ¼] = ½·[1, ¼] + ½·(1¼)/2 = [0.8125, 0.4375]; p₀ ∝ [0.5, 0.5] ⊙ β₀ = [0.65, 0.35].
        #expect(abs(smoothed[0].weights[0] - 0.65) < 1e-6 && abs(smoothed[0].weights[1] - 0.35) < 1e-6)
        // The last step is the filter's own.
        #expect(abs(smoothed[1].weights[0] - 0.8) < 1e-6 && abs(smoothed[1].weights[1] - 0.2) < 1e-6)
        // A step that starts afresh cuts the message: the step before keeps its own.
        var cut = steps
        cut[1].continues = false
        #expect(GridFilter.smoothed(cut, motion: motion, grid: grid)[0].weights == [0.5, 0.5])
        #expect(GridFilter.smoothed([], motion: motion, grid: grid).isEmpty)
    }

    @Test func smoothedTrackIsCloserThanTheFilteredOneAndKeepsEveryFix() throws {
        var configuration = LocatorConfiguration()
        configuration.choosesFilterAndTracking = true
        let setup = PositioningAlgorithm.posterior.setup(venue: square, configuration: configuration)
        // A walk from (1, 2) to (9, 8) at 0.05 m/s… then back: 150 scans, more than one block
        // of the smoother (60 with 30 after it), 4 dB of noise.
        var random = SeededRandom(seed: 11)
        let scans = (0..<150).map { second -> Scan in
            let along = Double(second < 75 ? second : 150 - second) / 75
            let point = PlanarPoint(x: 1 + 8 * along, y: 2 + 6 * along)
            let readings = square.beacons.map { beacon in
                let d = max(point.distance(to: PlanarPoint(x: beacon.x ?? 0, y: beacon.y ?? 0)), 0.5)
                return Reading(beacon: .id(beacon.id), rssi: (-59 - 20 * log10(d) + 4 * random.nextGaussian()).rounded())
            }
            return Scan(time: Double(second), device: "phone", readings: readings, truth: GroundTruth(x: point.x, y: point.y))
        }
        func meanError(_ fixes: [Fix?]) -> Double {
            let errors = zip(scans, fixes).compactMap { scan, fix in
                fix.flatMap { fix in scan.truth?.planarPoint.map { fix.point.planar.distance(to: $0) } }
            }
            return errors.reduce(0, +) / Double(max(errors.count, 1))
        }
        var online = setup.makeLocators()
        let filtered = scans.map { online.locate($0) }
        let solver = try #require(setup.solver as? PosteriorSolver)
        var locator = Locator(venue: setup.venue, solver: solver, configuration: setup.configuration)
        let smoothed = locator.smoothedFixes(for: scans)
        #expect(smoothed.count == scans.count && smoothed.allSatisfy { $0 != nil })
        #expect(filtered.allSatisfy { $0 != nil })
        // Each fix weighs the scans after it too: closer to the walk, and the same on a rerun.
        let (before, after) = (meanError(filtered), meanError(smoothed))
        #expect(after < 0.85 * before, "filtered \(before) m, smoothed \(after) m")
        #expect(locator.smoothedFixes(for: scans).map { $0?.point } == smoothed.map { $0?.point })
        // The smoothed posterior is narrower: the radius shrinks with it.
        let radii = (filtered.compactMap { $0?.accuracy }.reduce(0, +), smoothed.compactMap { $0?.accuracy }.reduce(0, +))
        #expect(radii.1 < radii.0)
    }
}
