import Foundation
import Testing
@testable import Whereabouts

/// A fix at (x, y) with an accuracy radius, for scoring by hand.
private func fix(_ x: Double, _ y: Double, accuracy: Double, floor: Int? = 0) -> Fix {
    Fix(time: 0, point: SpatialPoint(x: x, y: y, z: 0), floor: floor, accuracy: accuracy, method: "test")
}

/// The keys of a JSON object, in order.
private func keys(_ value: JSONValue) -> [String] {
    guard case .object(let members) = value else { return [] }
    return members.map(\.key)
}

@Suite("Evaluation statistics and reports")
struct EvaluationTests {
    @Test func percentilesInterpolateBetweenOrderStatistics() throws {
        // [1, 2, 3, 4, 10]: positions q·(n−1) = q·4.
        let odd = try #require(ErrorStatistics([10, 3, 1, 4, 2]))
        #expect(odd.mean == 4)            // 20 / 5
        #expect(odd.median == 3)          // position 2
        #expect(odd.p75 == 4)             // position 3
        #expect(abs(odd.p95 - 8.8) < 1e-12)  // position 3.8: 4 + 0.8·(10 − 4)
        #expect(odd.max == 10)
        #expect(odd.count == 5)
        // [1, 2, 3, 4]: positions q·3.
        let even = try #require(ErrorStatistics([4, 1, 3, 2]))
        #expect(even.median == 2.5)       // position 1.5: 2 + 0.5·1
        #expect(abs(even.p75 - 3.25) < 1e-12)  // position 2.25
        #expect(abs(even.p95 - 3.85) < 1e-12)  // position 2.85
        #expect(ErrorStatistics([]) == nil)
        let single = try #require(ErrorStatistics([2.5]))
        #expect(single.median == 2.5 && single.p95 == 2.5 && single.max == 2.5)
    }

    @Test func percentilesAreOrderedOnRandomLists() throws {
        var random = SeededRandom(seed: 11)
        for _ in 0..<200 {
            let errors = (0..<(1 + random.below(40))).map { _ in random.nextUniform() * 20 }
            let stats = try #require(ErrorStatistics(errors))
            let low = errors.min() ?? 0
            #expect(low <= stats.median && stats.median <= stats.p75 && stats.p75 <= stats.p95 && stats.p95 <= stats.max)
            #expect(stats.mean >= low && stats.mean <= stats.max)
            #expect(stats.max == errors.max())
        }
    }

    /// Five scans scored by hand:
    /// 1. truth (0,0) floor 0 place a; fix (3,4) r 5 floor 0, place a → error 5, inside (5 ≤ 5), floor ✓, place ✓
    /// 2. truth (0,0) floor 0 place a; fix (1,0) r 0.5 floor 1, place b → error 1, outside, floor ✗, place ✗
    /// 3. truth (0,0) floor 1 place b; no fix → not located, floor ✗, place ✗ (not predicted)
    /// 4. truth (6,8), no floor or place; fix (0,0) r 20 → error 10, inside
    /// 5. no truth; fix (0,0) → located, not scored
    private func handScored() -> Evaluation {
        var evaluation = Evaluation()
        evaluation.add(truth: GroundTruth(x: 0, y: 0, floor: 0, place: "a"), fix: fix(3, 4, accuracy: 5), place: "a")
        evaluation.add(truth: GroundTruth(x: 0, y: 0, floor: 0, place: "a"), fix: fix(1, 0, accuracy: 0.5, floor: 1), place: "b")
        evaluation.add(truth: GroundTruth(x: 0, y: 0, floor: 1, place: "b"), fix: nil, place: nil)
        evaluation.add(truth: GroundTruth(x: 6, y: 8), fix: fix(0, 0, accuracy: 20))
        evaluation.add(truth: nil, fix: fix(0, 0, accuracy: 1))
        return evaluation
    }

    @Test func countsNotLocatedWithinRadiusFloorsAndPlaces() throws {
        let evaluation = handScored()
        #expect(evaluation.scans == 5)
        #expect(evaluation.located == 4)                    // all but scan 3
        #expect(evaluation.errors == [5, 1, 10])            // the unlocated scan is not a zero error
        #expect(evaluation.insideAccuracy == 2)             // scans 1 and 4
        let report = evaluation.report(dataset: "hand", algorithm: "test", units: .metre, fixesPerSecond: 1234.4)
        let error = try #require(report.error)
        #expect(abs(error.mean - 16.0 / 3) < 1e-12)         // (5 + 1 + 10) / 3
        #expect(error.median == 5)                          // [1, 5, 10]
        #expect(error.p75 == 7.5)                           // position 1.5: 5 + 0.5·5
        #expect(abs(error.p95 - 9.5) < 1e-12)               // position 1.9: 5 + 0.9·5
        #expect(report.floorAccuracy == 1.0 / 3)            // scans 1–3 have a floor, only 1 right
        #expect(report.placeAccuracy == 1.0 / 3)            // scans 1–3 have a place, only 1 right
        #expect(report.placeLocated == 2)                   // scans 1 and 2 got a prediction
        #expect(report.accuracyCoverage == 2.0 / 3)
    }

    @Test func reportJSONKeepsTheFormatsKeyOrder() {
        let report = handScored().report(dataset: "hand", algorithm: "test", units: .metre, fixesPerSecond: 1234.4)
        let json = report.json
        #expect(keys(json) == ["kind", "name", "dataset", "algorithm", "units", "scans", "located", "error", "floorAccuracy",
                               "placeAccuracy", "placeLocated", "fixesPerSecond", "accuracyCoverage"])
        #expect(json["kind"] == .string("positioning"))
        #expect(json["name"] == .string("test"))
        #expect(keys(json["error"] ?? .null) == ["mean", "median", "p75", "p95", "max"])
        #expect(json["error"]?["mean"] == .number(5.333))   // 16/3 to three decimals
        #expect(json["floorAccuracy"] == .number(0.3333))
        #expect(json["fixesPerSecond"] == .number(1234))
        #expect(json["units"] == .string("m"))
    }

    @Test func reportJSONLeavesOutWhatDoesNotApply() {
        var positionsOnly = Evaluation()
        positionsOnly.add(truth: GroundTruth(x: 1, y: 1), fix: fix(1, 2, accuracy: 2))
        let json = positionsOnly.report(dataset: "d", algorithm: "a", units: .cell).json
        #expect(keys(json) == ["kind", "name", "dataset", "algorithm", "units", "scans", "located", "error", "accuracyCoverage"])
        #expect(json["units"] == .string("cell"))

        var nothingLocated = Evaluation()
        nothingLocated.add(truth: GroundTruth(x: 1, y: 1, floor: 0), fix: nil)
        let empty = nothingLocated.report(dataset: "d", algorithm: "a", units: .metre).json
        #expect(keys(empty) == ["kind", "name", "dataset", "algorithm", "units", "scans", "located", "floorAccuracy"])
        #expect(empty["located"] == .number(0))
        #expect(empty["floorAccuracy"] == .number(0))
    }

    @Test func summaryGivesNumbersWithUnits() {
        let report = handScored().report(dataset: "hand", algorithm: "test", units: .foot, fixesPerSecond: 1234567)
        let summary = report.summary
        #expect(summary.hasPrefix("hand — test\n"))
        #expect(summary.contains("scans      5, located 4 (80 %)"))
        #expect(summary.contains("mean 5.333 ft, median 5 ft, p75 7.5 ft, p95 9.5 ft, max 10 ft"))
        #expect(summary.contains("66.7 % of located scans inside their accuracy radius"))
        #expect(summary.contains("floor      33.3 % right"))
        #expect(summary.contains("place      33.3 % right, 2 predicted"))
        #expect(summary.contains("1,234,567 fixes/s"))
    }

    /// A classifier's report is named apart from an algorithm of the same name, and its summary
    /// has only the lines that apply to a classifier.
    @Test func aClassifiersReportSaysWhatItIs() {
        var report = handScored().report(dataset: "hand", algorithm: "knn", units: .metre, fixesPerSecond: 1000)
        report.kind = .classifier
        report.error = nil
        report.accuracyCoverage = nil
        #expect(report.name == "classifier:knn")
        #expect(report.json["kind"] == .string("classifier"))
        let summary = report.summary
        #expect(summary.hasPrefix("hand — knn classifier\n"))
        #expect(summary.contains("scans      5, classified 4 (80 %)"))
        #expect(summary.contains("1,000 classifications/s (classifier only)"))
        #expect(!summary.contains("error"))
        #expect(!summary.contains("fixes/s"))
        #expect(!summary.contains("no located scan"))
    }

    @Test func tableAlignsColumnsAndMarksMissingValues() throws {
        let scored = handScored().report(dataset: "hand", algorithm: "test", units: .metre, fixesPerSecond: 99)
        var missed = Evaluation()
        missed.add(truth: GroundTruth(x: 0, y: 0), fix: nil)
        let unscored = missed.report(dataset: "hand", algorithm: "a-much-longer-name", units: .metre)
        let lines = EvaluationReport.table([scored, unscored]).split(separator: "\n").map(String.init)
        #expect(lines.count == 4)   // header, two rows, the unit line
        #expect(lines[0].hasPrefix("algorithm  "))
        for column in ["scans", "located", "mean", "median", "p75", "p95", "max", "within-radius %", "floor acc.", "fixes/s"] {
            #expect(lines[0].contains(column))
        }
        // Every row as wide as the header, and each number right-aligned under its heading.
        #expect(lines[1].count == lines[0].count && lines[2].count == lines[0].count)
        let meanEnd = try #require(lines[0].range(of: "  mean")).upperBound
        let offset = lines[0].distance(from: lines[0].startIndex, to: meanEnd)
        #expect(String(lines[1].prefix(offset)).hasSuffix("5.333"))
        #expect(String(lines[2].prefix(offset)).hasSuffix("–"))
        #expect(lines[1].hasPrefix("test  "))
        #expect(lines[2].hasPrefix("a-much-longer-name"))
        #expect(lines[1].hasSuffix("99"))
        #expect(lines[3] == "errors in m; floor acc. in %")
    }
}

@Suite("Evaluation runs and track locators")
struct EvaluationRunTests {
    /// A 10 × 10 venue, a beacon 1 unit in from each corner, the west and east halves as places.
    private let venue = Venue(
        beacons: [Venue.Beacon(id: "sw", x: 1, y: 1), Venue.Beacon(id: "se", x: 9, y: 1),
                  Venue.Beacon(id: "ne", x: 9, y: 9), Venue.Beacon(id: "nw", x: 1, y: 9)],
        places: [Venue.Place(id: "west", shape: .polygon([PlanarPoint(x: 0, y: 0), PlanarPoint(x: 5, y: 0),
                                                          PlanarPoint(x: 5, y: 10), PlanarPoint(x: 0, y: 10)])),
                 Venue.Place(id: "east", shape: .polygon([PlanarPoint(x: 5, y: 0), PlanarPoint(x: 10, y: 0),
                                                          PlanarPoint(x: 10, y: 10), PlanarPoint(x: 5, y: 10)]))])

    private func scan(_ time: Double, device: String? = "a", track: String? = nil, hearing beacons: [String],
                      truth: GroundTruth? = nil) -> Scan {
        Scan(time: time, device: device, track: track, readings: beacons.map { Reading(beacon: .id($0), rssi: -60) }, truth: truth)
    }

    @Test func aNewTrackStartsAFreshLocator() throws {
        let positioning = PositioningVenue(venue)
        var locators = DeviceLocators(venue: positioning, solver: WeightedCentroid(venue: positioning))
        _ = locators.locate(scan(0, track: "t1", hearing: ["sw"]))
        // Same track one second later: "sw" is still remembered, so the centroid of sw and se
        // (equal RSSI) lies between them.
        let second = locators.locate(scan(1, track: "t1", hearing: ["se"]))
        let continued = try #require(second)
        #expect(abs(continued.point.x - 5) < 1e-9 && abs(continued.point.y - 1) < 1e-9)
        // A new track forgets "sw" and "se": only "ne" is heard, the fix is on it.
        let third = locators.locate(scan(2, track: "t2", hearing: ["ne"]))
        let fresh = try #require(third)
        #expect(fresh.point.planar == PlanarPoint(x: 9, y: 9))
        #expect(locators.trackStarts == 2)
        // Another device never mixes with the first.
        let fourth = locators.locate(scan(2.5, device: "b", hearing: ["nw"]))
        let other = try #require(fourth)
        #expect(other.point.planar == PlanarPoint(x: 1, y: 9))
        #expect(locators.deviceCount == 2)
        #expect(locators.calls == 4 && locators.fixes == 4)
        let rate = try #require(locators.callsPerSecond)
        #expect(rate.isFinite && rate > 0)
    }

    @Test func runScoresEveryAlgorithmAndPredictsPlaces() throws {
        let positioning = PositioningVenue(venue)
        var run = EvaluationRun(venue: positioning, solvers: [("strongest", WeightedCentroid(venue: positioning, count: 1)),
                                                              ("centroid", WeightedCentroid(venue: positioning))])
        // Scans 100 s apart: each locator forgets the previous one's beacons (5 s timeout).
        run.add(scan(0, hearing: ["sw"], truth: GroundTruth(x: 1, y: 2, floor: 0, place: "west")))   // fix (1,1): error 1, west ✓
        run.add(scan(100, hearing: ["se"], truth: GroundTruth(x: 9, y: 4, floor: 0, place: "west"))) // fix (9,1): error 3, east ✗
        run.add(scan(200, hearing: [], truth: GroundTruth(x: 5, y: 5)))                              // not located
        run.add(scan(300, hearing: ["nw"]))                                                          // no truth
        #expect(run.scans == 4 && run.scansWithTruth == 3 && run.scansWithPosition == 3)
        let reports = run.reports(dataset: "square")
        #expect(reports.map(\.algorithm) == ["strongest", "centroid"])
        for report in reports {
            #expect(report.scans == 4 && report.located == 3)
            #expect(report.error?.count == 2)
            #expect(report.error?.mean == 2)            // (1 + 3) / 2
            #expect(report.placeAccuracy == 0.5)        // 1 of 2 scans with a true place
            #expect(report.placeLocated == 2)
            #expect(report.floorAccuracy == 1)
            #expect(report.fixesPerSecond.map { $0 > 0 } == true)
        }
        // The samples follow the first algorithm, and keep the unlocated truth without an estimate.
        #expect(run.samples == [EvaluationSample(truth: PlanarPoint(x: 1, y: 2), floor: 0, estimate: PlanarPoint(x: 1, y: 1)),
                                EvaluationSample(truth: PlanarPoint(x: 9, y: 4), floor: 0, estimate: PlanarPoint(x: 9, y: 1)),
                                EvaluationSample(truth: PlanarPoint(x: 5, y: 5), estimate: nil)])
    }

    @Test func theRoomsRecordOfARunIsTheDefaultsOrTheFirstAlgorithms() throws {
        let positioning = PositioningVenue(venue)
        var run = EvaluationRun(venue: positioning, solvers: [("strongest", WeightedCentroid(venue: positioning, count: 1)),
                                                              ("default", WeightedCentroid(venue: positioning))])
        run.add(scan(0, hearing: ["sw"], truth: GroundTruth(x: 1, y: 2, floor: 0, place: "west")))
        let rooms = try #require(run.roomsReport(dataset: "square"))
        #expect(rooms.kind == .rooms && rooms.name == "rooms:default")
        #expect(rooms.placeAccuracy == 1 && rooms.pointPlaceAccuracy == 1 && rooms.nearestPlaces == 0)
        #expect(rooms.error == nil && rooms.floorAccuracy == nil && rooms.fixesPerSecond == nil)
        // Without the default, the first algorithm's; without a true place, none.
        var first = EvaluationRun(venue: positioning, solvers: [("strongest", WeightedCentroid(venue: positioning, count: 1))])
        first.add(scan(0, hearing: ["sw"], truth: GroundTruth(x: 1, y: 2, floor: 0, place: "west")))
        #expect(first.roomsReport(dataset: "square")?.name == "rooms:strongest")
        var unnamed = EvaluationRun(venue: positioning, solvers: [("default", WeightedCentroid(venue: positioning))])
        unnamed.add(scan(0, hearing: ["sw"], truth: GroundTruth(x: 1, y: 2, floor: 0)))
        #expect(unnamed.roomsReport(dataset: "square") == nil)
    }

    /// The place monitor's answer per scan, scored by hand, and a run feeding one monitor per
    /// device with its fixes' places.
    @Test func roomsRecordScoresThePlaceMonitorsAnswer() throws {
        var evaluation = Evaluation()
        let placed = [("west", nil), ("west", nil), ("west", "west"), ("east", "west"), (nil, "west")] as [(String?, String?)]
        for (truth, monitored) in placed {
            let truth = GroundTruth(floor: 0, place: truth)
            evaluation.add(truth: truth, fix: fix(1, 5, accuracy: 1), placement: nil, pointPlace: nil)
            evaluation.addMonitoredPlace(monitored, truth: truth)
        }
        // 1 right of the 4 scans with a true place; the scan without one counts for nothing.
        let rooms = try #require(evaluation.report(dataset: "square", algorithm: "default", units: .metre).roomsReport)
        #expect(rooms.monitoredPlaceAccuracy == 0.25)
        #expect(keys(rooms.json).suffix(3) == ["monitoredPlaceAccuracy", "monitoredRoomChanges", "trueRoomChanges"]
                && rooms.json["monitoredPlaceAccuracy"] == .number(0.25))
        #expect(rooms.summary.hasSuffix("\n  monitored  25 % right by the place monitor fed with those places (its hysteresis)"
                                        + "\n  changes    0 by the monitor against 0 in the truth"))
        // A positioning record does not carry it.
        #expect(!keys(evaluation.report(dataset: "square", algorithm: "default", units: .metre).json).contains("monitoredPlaceAccuracy"))

        // In a run: a fix at the south-west beacon is in west; the monitor needs three votes (its
        // default hysteresis), so it names west from the third scan on; device "b" starts afresh.
        let positioning = PositioningVenue(venue)
        var run = EvaluationRun(venue: positioning, solvers: [("default", WeightedCentroid(venue: positioning, count: 1))])
        for t in 0..<4 { run.add(scan(Double(t), hearing: ["sw"], truth: GroundTruth(x: 1, y: 1, floor: 0, place: "west"))) }
        run.add(scan(4, device: "b", hearing: ["sw"], truth: GroundTruth(x: 1, y: 1, floor: 0, place: "west")))
        let report = try #require(run.roomsReport(dataset: "square"))
        #expect(report.placeAccuracy == 1)
        #expect(report.monitoredPlaceAccuracy == 2.0 / 5)
    }

    /// Room changes counted per device's track: the monitor's after its first place (to "none"
    /// included), the truth's between its places; a second device's first room is no change.
    @Test func roomChangesOfTheMonitorAgainstTheTruth() throws {
        var track = MonitoredTrack(monitor: PlaceMonitor())
        let steps: [(monitored: String?, truth: String?, changes: (Bool, Bool))] = [
            (nil, "west", (false, false)),      // nothing reported yet
            ("west", "west", (false, false)),   // the first place: no change
            ("west", "east", (false, true)),    // the walk changes room, the monitor lags
            (nil, "east", (true, false)),       // the monitor leaves west for none
            ("east", nil, (true, false)),       // a scan without a true place changes nothing in the truth
            ("east", "west", (false, true)),
        ]
        for step in steps {
            let changes = track.changes(monitored: step.monitored, truth: step.truth)
            #expect(changes.monitor == step.changes.0 && changes.truth == step.changes.1, "\(step)")
        }

        // A run without filtering or tracking: device a walks west (4 scans at sw) then east (4 at se);
        // the monitor, with its three votes, enters west at the third scan and east at the
        // seventh: one change each. Device b's single scan adds none.
        let positioning = PositioningVenue(venue)
        var configuration = LocatorConfiguration()
        configuration.tracking = nil
        configuration.filter = nil
        configuration.beaconTimeout = 0.5   // a beacon is forgotten before the next scan
        var run = EvaluationRun(venue: positioning, solvers: [("default", WeightedCentroid(venue: positioning, count: 1))],
                                configuration: configuration)
        for t in 0..<4 { run.add(scan(Double(t), hearing: ["sw"], truth: GroundTruth(x: 1, y: 1, floor: 0, place: "west"))) }
        for t in 4..<8 { run.add(scan(Double(t), hearing: ["se"], truth: GroundTruth(x: 9, y: 1, floor: 0, place: "east"))) }
        run.add(scan(8, device: "b", hearing: ["se"], truth: GroundTruth(x: 9, y: 1, floor: 0, place: "east")))
        let report = try #require(run.roomsReport(dataset: "square"))
        #expect(report.monitoredRoomChanges == 1 && report.trueRoomChanges == 1)
        #expect(report.json["monitoredRoomChanges"] == .number(1) && report.json["trueRoomChanges"] == .number(1))
        #expect(report.summary.hasSuffix("\n  changes    1 by the monitor against 1 in the truth (1.00×)"))
    }

    /// Four scans of two rooms scored by hand: the most probable place against the point's.
    @Test func roomsRecordComparesTheMostProbablePlaceWithThePoint() throws {
        let containment = PlaceContainment(venue: venue)
        let locator = PlaceLocator(venue)
        var evaluation = Evaluation()
        func add(_ fix: Fix?, truth: String) {
            let point = fix.flatMap { locator.place(containing: $0.point.planar, floor: $0.floor ?? 0)?.id }
            evaluation.add(truth: GroundTruth(floor: 0, place: truth), fix: fix, placement: fix.map(containment.placement(of:)),
                           pointPlace: point)
        }
        add(fix(5.2, 5, accuracy: 4), truth: "west")     // point in east; the mass nearly split, east just ahead: both wrong
        add(fix(-0.5, 5, accuracy: 3), truth: "west")    // point outside; 40 % in west: right by mass only
        add(fix(7, 5, accuracy: 1), truth: "east")       // both right
        add(fix(10.8, 5, accuracy: 0.5), truth: "east")  // nothing holds 1 %; east is 0.8 away, beyond 0.5: none
        add(fix(10.3, 5, accuracy: 0.5), truth: "east")  // 0.3 away: 18 % in east, the most
        add(nil, truth: "west")                          // not located: wrong both ways
        let report = evaluation.report(dataset: "square", algorithm: "default", units: .metre)
        #expect(report.placeAccuracy == 3.0 / 6)
        #expect(report.placeLocated == 4)
        #expect(report.pointPlaceAccuracy == 1.0 / 6)
        #expect(report.pointPlaceLocated == 2)
        #expect(report.nearestPlaces == 0)   // a room 1 % short is beyond the radius (see the place tests)
        // A positioning record carries the point's accuracy as an extra field only.
        #expect(keys(report.json) == ["kind", "name", "dataset", "algorithm", "units", "scans", "located", "floorAccuracy",
                                      "placeAccuracy", "placeLocated", "pointPlaceAccuracy"])
        let rooms = try #require(report.roomsReport)
        #expect(keys(rooms.json) == ["kind", "name", "dataset", "algorithm", "units", "scans", "located", "placeAccuracy",
                                     "placeLocated", "pointPlaceAccuracy", "pointPlaceLocated", "nearestPlaces"])
        #expect(rooms.json["kind"] == .string("rooms") && rooms.json["name"] == .string("rooms:default"))
        #expect(rooms.json["placeAccuracy"] == .number(0.5) && rooms.json["pointPlaceAccuracy"] == .number(0.1667))
        #expect(rooms.summary == """
            square — default rooms
              scans      6, located 5 (83.3 %)
              place      50 % right by the place holding most of the fix, 4 predicted
              point      16.7 % right by the place containing the fix's point, 2 predicted
            """)
        var withNearest = rooms
        withNearest.nearestPlaces = 3
        #expect(withNearest.summary.contains("4 predicted (3 the nearest place)\n"))
        // Without a true place there is no rooms record, and a rooms record has none of its own.
        #expect(rooms.monitoredPlaceAccuracy == nil)
        var noPlaces = Evaluation()
        noPlaces.add(truth: GroundTruth(x: 1, y: 1), fix: fix(1, 1, accuracy: 1), placement: nil, pointPlace: nil)
        #expect(noPlaces.report(dataset: "d", algorithm: "a", units: .metre).roomsReport == nil)
        #expect(rooms.roomsReport == nil)
    }

    @Test func samplesAreThinnedEvenlyBeyondTheLimit() {
        var run = EvaluationRun(venue: venue, algorithms: [.centroid], sampleLimit: 2)
        // Nine scans with truth x = 0…8. At 4 samples [0,1,2,3] → [0,2] (every 2nd); then 4, 6 →
        // [0,2,4,6] → [0,4] (every 4th); then 8 → [0,4,8].
        for i in 0..<9 {
            run.add(scan(Double(i) * 100, hearing: ["sw"], truth: GroundTruth(x: Double(i), y: 0)))
        }
        #expect(run.samples.map(\.truth.x) == [0, 4, 8])
        #expect(run.reports(dataset: "d").first?.error?.count == 9)   // scoring is not thinned
    }
}
