import Foundation
import Testing
@testable import Whereabouts

/// Two 10 × 10 m rooms 400 m apart, four beacons in the corners of each, one room a floor up.
private let twoRooms = Venue(
    floors: [Venue.Floor(level: 0), Venue.Floor(level: 1)],
    beacons: [
        Venue.Beacon(id: "a1", x: 0, y: 0, floor: 0), Venue.Beacon(id: "a2", x: 10, y: 0, floor: 0),
        Venue.Beacon(id: "a3", x: 0, y: 10, floor: 0), Venue.Beacon(id: "a4", x: 10, y: 10, floor: 0),
        Venue.Beacon(id: "b1", x: 400, y: 0, floor: 1), Venue.Beacon(id: "b2", x: 410, y: 0, floor: 1),
        Venue.Beacon(id: "b3", x: 400, y: 10, floor: 1), Venue.Beacon(id: "b4", x: 410, y: 10, floor: 1),
    ],
    places: [
        Venue.Place(id: "west", floor: 0, shape: .polygon([PlanarPoint(x: 0, y: 0), PlanarPoint(x: 10, y: 0),
                                                           PlanarPoint(x: 10, y: 10), PlanarPoint(x: 0, y: 10)])),
        Venue.Place(id: "east", floor: 1, shape: .polygon([PlanarPoint(x: 400, y: 0), PlanarPoint(x: 410, y: 0),
                                                           PlanarPoint(x: 410, y: 10), PlanarPoint(x: 400, y: 10)])),
    ])

@Suite("Simulated survey")
struct SimulatedSurveyTests {
    @Test func spotsLieInThePlacesUniformlyOverTheirUnion() throws {
        // A hall of radius 10 with a desk of radius 5 inside it (the same floor), and a room of
        // the same area as the hall upstairs: a spot is in the upstairs room half the time, and
        // in the desk a quarter of the other half (its share of the hall, counted once).
        let venue = Venue(
            floors: [Venue.Floor(level: 0), Venue.Floor(level: 1)],
            beacons: [Venue.Beacon(id: "b", x: 0, y: 0)],
            places: [
                Venue.Place(id: "hall", floor: 0, shape: .circle(center: PlanarPoint(x: 0, y: 0), radius: 10, coordinate: nil)),
                Venue.Place(id: "desk", floor: 0, shape: .circle(center: PlanarPoint(x: 2, y: 0), radius: 5, coordinate: nil)),
                Venue.Place(id: "upstairs", floor: 1, shape: .circle(center: PlanarPoint(x: 50, y: 0), radius: 10, coordinate: nil)),
                Venue.Place(id: "sign", floor: 0, shape: .label),
            ])
        let area = try #require(SurveyArea(venue: PositioningVenue(venue)))
        var random = SeededRandom(seed: 1)
        var upstairs = 0, desk = 0, hall = 0
        for _ in 0..<20_000 {
            let spot = area.spot(using: &random)
            #expect(area.contains(spot.point, floor: spot.floor))
            if spot.floor == 1 {
                #expect(spot.point.distance(to: PlanarPoint(x: 50, y: 0)) <= 10)
                upstairs += 1
            } else {
                #expect(spot.point.distance(to: PlanarPoint(x: 0, y: 0)) <= 10)
                hall += 1
                if spot.point.distance(to: PlanarPoint(x: 2, y: 0)) <= 5 { desk += 1 }
            }
        }
        // Binomial standard errors: 0.0035 for the half, 0.0043 for the quarter.
        #expect(abs(Double(upstairs) / 20_000 - 0.5) < 0.015)
        #expect(abs(Double(desk) / Double(hall) - 0.25) < 0.02)
        #expect(!area.contains(PlanarPoint(x: 30, y: 0), floor: 0))
        #expect(!area.contains(PlanarPoint(x: 0, y: 0), floor: 1))
    }

    @Test func withoutPlacesEachFloorIsSurveyedWithinItsOwnBeacons() throws {
        var venue = twoRooms
        venue.places = []
        let area = try #require(SurveyArea(venue: PositioningVenue(venue)))
        var random = SeededRandom(seed: 2)
        var floors: [Int: Int] = [:]
        for _ in 0..<2_000 {
            let spot = area.spot(using: &random)
            floors[spot.floor, default: 0] += 1
            let x = spot.floor == 0 ? spot.point.x : spot.point.x - 400
            #expect((0...10).contains(x) && (0...10).contains(spot.point.y), "\(spot)")
        }
        #expect((floors[0] ?? 0) > 900 && (floors[1] ?? 0) > 900)
        // Nothing to survey without beacon positions or places.
        #expect(SurveyArea(venue: PositioningVenue(Venue(beacons: [Venue.Beacon(id: "x")]))) == nil)
    }

    @Test func randomVenuesWithAwkwardPlacesGiveSpotsInsideThem() throws {
        // Random venues (coincident and collinear beacons, up to three floors) with random places:
        // circles, polygons (slivers, degenerate ones, self-crossing ones), labels, on floors with
        // or without beacons, overlapping. Every spot is finite and inside the area, and the
        // default solver measures a finite radius factor on the survey.
        var random = SeededRandom(seed: 77)
        var surveyed = 0
        for round in 0..<30 {
            var venue = SolverPropertyTests.randomVenue(&random).venue
            for index in 0..<random.below(5) {
                let cx = -50 + 100 * random.nextUniform(), cy = -50 + 100 * random.nextUniform()
                let shape: Venue.Place.Shape
                switch random.below(5) {
                case 0: shape = .circle(center: PlanarPoint(x: cx, y: cy), radius: 30 * random.nextUniform(), coordinate: nil)
                case 1: shape = .polygon([PlanarPoint(x: cx, y: cy), PlanarPoint(x: cx + 40, y: cy), PlanarPoint(x: cx + 40, y: cy + 1e-9)])
                case 2: shape = .polygon([PlanarPoint(x: cx, y: cy), PlanarPoint(x: cx + 10, y: cy + 10), PlanarPoint(x: cx + 10, y: cy),
                                          PlanarPoint(x: cx, y: cy + 10)])
                case 3: shape = .label
                default: shape = .polygon((0..<(3 + random.below(5))).map { _ in
                    PlanarPoint(x: cx + 20 * random.nextUniform(), y: cy + 20 * random.nextUniform())
                })
                }
                venue.places.append(Venue.Place(id: "p\(index)", floor: random.below(4), shape: shape))
            }
            let positioning = PositioningVenue(venue)
            guard let area = SurveyArea(venue: positioning) else {
                #expect(positioning.extent == nil || venue.beacons.allSatisfy { $0.x == nil }, "round \(round)")
                continue
            }
            surveyed += 1
            for _ in 0..<200 {
                let spot = area.spot(using: &random)
                #expect(spot.point.x.isFinite && spot.point.y.isFinite)
                #expect(area.contains(spot.point, floor: spot.floor), "round \(round): \(spot)")
            }
            let solver = DefaultSolver(venue: positioning)
            #expect(solver.accuracyScale.isFinite && solver.accuracyScale > 0, "round \(round)")
        }
        #expect(surveyed > 20)
    }

    @Test func theSurveyWalksFromSpotToSpotInsideTheVenue() throws {
        let survey = DefaultSolver.simulatedSurvey(of: PositioningVenue(twoRooms), configuration: LocatorConfiguration())
        #expect(survey.count > 1_000)
        // One walk, a scan a second, standing at each spot (a run of equal truths) and walking
        // between them; the spots are in the rooms, on the rooms' floors.
        #expect(Set(survey.map(\.track)).count == 1)
        let times = survey.map(\.time)
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 == 1 })
        var standing = 0, walking = 0
        for (before, scan) in zip(survey, survey.dropFirst()) {
            let a = try #require(before.truth?.planarPoint), b = try #require(scan.truth?.planarPoint)
            if a == b { standing += 1 } else { walking += 1 }
            #expect(b.distance(to: a) <= 1.2 + 1e-9)
        }
        // Most of it is walking: from one room to the other is 400 m (5 min), and the survey stops
        // after 3,000 s.
        #expect(Double(survey.count) <= 3_001 + 4.0 * 400 / 1.2)
        #expect(standing > 300 && walking > 300)
        let area = try #require(SurveyArea(venue: PositioningVenue(twoRooms)))
        let spots = Set(zip(survey, survey.dropFirst()).compactMap { pair -> PlanarPoint? in
            pair.0.truth?.planarPoint == pair.1.truth?.planarPoint ? pair.0.truth?.planarPoint : nil
        })
        #expect(spots.count > 80)
        #expect(survey.allSatisfy { scan in
            guard let point = scan.truth?.planarPoint, spots.contains(point) else { return true }
            return area.contains(point, floor: scan.truth?.floor ?? -1)
        })
    }

    @Test func withoutTrainingTheRadiusIsMeasuredWhereTheVenueIs() throws {
        // The validation replay scores the survey's scans in the rooms: errors of a few metres,
        // not the hundreds of a survey across the gap between the rooms, nor of filters that
        // carry one room's signals to the other.
        let solver = DefaultSolver(venue: PositioningVenue(twoRooms))
        let validated = try #require(solver.validationError)
        #expect(validated < 5, "validation mean error \(validated) m")
        // A stand-alone fix in the east room has a radius of metres, not hundreds.
        let setup = PositioningAlgorithm.default.setup(venue: twoRooms)
        var locators = setup.makeLocators()
        var radio = RadioModel(shadowing: 2, roundsRSSI: false)
        radio.floorAttenuation = 15
        let walk = Walk(waypoints: [Walk.Waypoint(x: 405, y: 5, floor: 1, dwell: 5)], device: "p")
        let fixes = Simulator(venue: twoRooms, walk: walk, radio: radio, seed: 4).compactMap { locators.locate($0) }
        let last = try #require(fixes.last)
        #expect(last.floor == 1)
        #expect(last.point.planar.distance(to: PlanarPoint(x: 405, y: 5)) < 5)
        #expect(last.accuracy > 0.5 && last.accuracy < 20)
    }

    @Test func theTrackerWeighsEstimatesByTheirScanToScanScatter() throws {
        // Estimates of a standing phone scatter by 1 m from scan to scan; the solver's radius
        // also covers a persistent error, and is 3 m. Told the ratio, the tracker follows the
        // same course as one given the 1 m radius.
        var scaled = MotionTracker.Configuration(model: .stopAndGo)
        scaled.estimateAccuracyScale = 3
        var a = MotionTracker(configuration: scaled), b = MotionTracker(configuration: .stopAndGo)
        var random = SeededRandom(seed: 9)
        for second in 0..<30 {
            let x = (second < 15 ? 0 : Double(second - 15) * 1.2) + random.nextGaussian() * 0.7
            let y = random.nextGaussian() * 0.7
            let point = SpatialPoint(x: x, y: y, z: 1.2)
            let tracked = a.update(PositionEstimate(point: point, accuracy: 3, beaconCount: 4), at: Double(second))
            let reference = b.update(PositionEstimate(point: point, accuracy: 1, beaconCount: 4), at: Double(second))
            let one = try #require(tracked), other = try #require(reference)
            #expect(one.point.planar.distance(to: other.point.planar) < 1e-9)
            #expect(abs(one.accuracy - other.accuracy) < 1e-9)
        }
        // Non-positive or non-finite values count as 1.
        for bad in [0.0, -2, .nan, .infinity] {
            var odd = MotionTracker.Configuration(model: .stopAndGo)
            odd.estimateAccuracyScale = bad
            var c = MotionTracker(configuration: odd), d = MotionTracker(configuration: .stopAndGo)
            let estimate = PositionEstimate(point: SpatialPoint(x: 1, y: 2, z: 0), accuracy: 2, beaconCount: 3)
            _ = c.update(estimate, at: 0)
            _ = d.update(estimate, at: 0)
            let moved = PositionEstimate(point: SpatialPoint(x: 2, y: 2, z: 0), accuracy: 2, beaconCount: 3)
            #expect(c.update(moved, at: 1) == d.update(moved, at: 1))
        }
    }
}
