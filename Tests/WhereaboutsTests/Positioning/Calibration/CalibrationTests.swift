import Foundation
import Testing
@testable import Whereabouts

/// A synthetic beacon: where it is and how it really behaves.
private struct TrueBeacon {
    var id: String
    var x: Double
    var y: Double
    var txPower: Double
    var exponent: Double
}

/// One scan per sample: a random truth position in a 30 m × 20 m room, one reading of `beacon`
/// with RSSI = A − 10·n·log10(d) + noise, minus `outlierDrop` dB for a share `outlierShare` of them.
private func synthesise(_ beacon: TrueBeacon, samples: Int, noise: Double, outlierShare: Double = 0,
                        outlierDrop: Double = 20, using generator: inout SeededRandom) -> [Scan] {
    (0..<samples).map { i in
        let x = generator.nextUniform() * 30, y = generator.nextUniform() * 20
        let d = max(((x - beacon.x) * (x - beacon.x) + (y - beacon.y) * (y - beacon.y)).squareRoot(), 0.5)
        var rssi = beacon.txPower - 10 * beacon.exponent * log10(d) + noise * generator.nextGaussian()
        if generator.nextUniform() < outlierShare { rssi -= outlierDrop }
        return Scan(time: Double(i), readings: [Reading(beacon: .id(beacon.id), rssi: rssi)],
                    truth: GroundTruth(x: x, y: y))
    }
}

private func venue(of beacons: [TrueBeacon]) -> Venue {
    Venue(beacons: beacons.map { Venue.Beacon(id: $0.id, x: $0.x, y: $0.y) })
}

private let sixBeacons: [TrueBeacon] = [(2.0, 3.0), (15, 2), (28, 4), (3, 17), (16, 18), (27, 16)].enumerated().map {
    TrueBeacon(id: "b\($0.offset)", x: $0.element.0, y: $0.element.1, txPower: -62, exponent: 2.4)
}

@Suite("Calibration")
struct CalibrationTests {
    @Test func exactTwoPoints() throws {
        // d = 1 m → −59 dBm, d = 10 m → −79 dBm: x = log10 d = 0 and 1, so the line through them has
        // slope (−79 − (−59))/(1 − 0) = −20 = −10·n → n = 2, and intercept A = −59 (at x = 0).
        let venue = Venue(beacons: [Venue.Beacon(id: "b", x: 0, y: 0)])
        let scans = [
            Scan(time: 0, readings: [Reading(beacon: .id("b"), rssi: -59)], truth: GroundTruth(x: 1, y: 0)),
            Scan(time: 1, readings: [Reading(beacon: .id("b"), rssi: -79)], truth: GroundTruth(x: 0, y: 10)),
        ]
        for loss in Calibration.Loss.allCases {
            let result = try Calibration.fit(scans, in: venue, options: .init(loss: loss))
            #expect(abs(result.venueFit.txPower - -59) < 1e-9)
            #expect(abs(result.venueFit.pathLossExponent - 2) < 1e-9)
            #expect(result.venueFit.exponentStatus == .fitted)
            #expect(result.venueFit.samples == 2)
            #expect(result.venueFit.rms < 1e-9)
            // The beacon's prior is centred on the same line, which fits both points exactly.
            let beacon = try #require(result.beaconFit(id: "b"))
            #expect(abs(beacon.fit.txPower - -59) < 1e-9)
            #expect(abs(beacon.fit.pathLossExponent - 2) < 1e-9)
        }
    }

    @Test func distancesInFeetAreConvertedToMetres() throws {
        // The same two points as above in a venue measured in feet: 1 m = 1/0.3048 ft, 10 m = 10/0.3048 ft.
        let venue = Venue(units: .foot, beacons: [Venue.Beacon(id: "b", x: 0, y: 0)])
        let scans = [
            Scan(time: 0, readings: [Reading(beacon: .id("b"), rssi: -59)], truth: GroundTruth(x: 1 / 0.3048, y: 0)),
            Scan(time: 1, readings: [Reading(beacon: .id("b"), rssi: -79)], truth: GroundTruth(x: 10 / 0.3048, y: 0)),
        ]
        let result = try Calibration.fit(scans, in: venue)
        #expect(abs(result.venueFit.txPower - -59) < 1e-9)
        #expect(abs(result.venueFit.pathLossExponent - 2) < 1e-9)
    }

    @Test func recoversTxPowerAndExponentFromNoisyData() throws {
        var generator = SeededRandom(seed: 1)
        let scans = sixBeacons.flatMap { synthesise($0, samples: 400, noise: 3, using: &generator) }
        let result = try Calibration.fit(scans, in: venue(of: sixBeacons))
        #expect(result.venueFit.samples == 2400)
        #expect(abs(result.venueFit.txPower - -62) < 0.5)
        #expect(abs(result.venueFit.pathLossExponent - 2.4) < 0.05)
        // Gaussian noise of σ 3 dB: both spreads come out near 3.
        #expect(abs(result.venueFit.robustSigma - 3) < 0.3)
        #expect(abs(result.venueFit.rms - 3) < 0.3)
        #expect(try #require(result.venueFit.correlation) < -0.8)
        // Every beacon has 400 samples of the same model: each lands near the truth too. A alone
        // is an extrapolation to 1 m from samples mostly 3–30 m away, so it trades off against n;
        // the RSSI predicted at 5 m (−62 − 24·log10 5 = −78.775) is pinned down better. (Beacon b2,
        // in a corner, comes out at A −60.2, n 2.53 even by plain least squares on its own samples.)
        #expect(result.beaconFits.count == 6)
        let trueAtFive = -62 - 24 * log10(5.0)
        for beacon in result.beaconFits {
            #expect(abs(beacon.fit.pathLossExponent - 2.4) < 0.15)
            #expect(abs(beacon.fit.txPower - -62) < 2)
            #expect(abs(beacon.fit.rssi(atDistance: 5) - trueAtFive) < 1)
        }
    }

    @Test func robustFitResistsGrossOutliersWhereLeastSquaresDoesNot() throws {
        var generator = SeededRandom(seed: 2)
        let scans = sixBeacons.flatMap {
            synthesise($0, samples: 400, noise: 3, outlierShare: 0.2, outlierDrop: 20, using: &generator)
        }
        let venue = venue(of: sixBeacons)
        let robust = try Calibration.fit(scans, in: venue)
        #expect(abs(robust.venueFit.txPower - -62) < 0.8)
        #expect(abs(robust.venueFit.pathLossExponent - 2.4) < 0.08)
        // Least squares absorbs the outliers into A: 20 % × −20 dB ≈ −4 dB too low.
        let plain = try Calibration.fit(scans, in: venue, options: .init(loss: .leastSquares))
        #expect(abs(plain.venueFit.txPower - -62) > 2.5)
        // The outliers are 20 dB ≈ 6.7 σ out: the robust fit flags roughly the 20 % it ignored.
        let share = Double(robust.venueFit.outliers) / Double(robust.venueFit.samples)
        #expect(share > 0.15 && share < 0.25)
    }

    @Test func fewSamplesStayNearTheVenueFitManyGetTheirOwn() throws {
        var generator = SeededRandom(seed: 3)
        var beacons = Array(sixBeacons.prefix(4))
        for index in beacons.indices { beacons[index].exponent = 2 }
        let many = TrueBeacon(id: "many", x: 27, y: 16, txPower: -62, exponent: 3)
        let few = TrueBeacon(id: "few", x: 15, y: 10, txPower: -62, exponent: 3)
        var scans = beacons.flatMap { synthesise($0, samples: 400, noise: 3, using: &generator) }
        scans += synthesise(many, samples: 500, noise: 3, using: &generator)
        scans += synthesise(few, samples: 3, noise: 3, using: &generator)
        let result = try Calibration.fit(scans, in: venue(of: beacons + [many, few]))
        let venueN = result.venueFit.pathLossExponent

        let wellSampled = try #require(result.beaconFit(id: "many"))
        // The weakest reading (the detection floor it assumes) comes from this beacon's far samples,
        // so some of them are left out; together they are the 500.
        #expect(wellSampled.fit.samples + wellSampled.excludedSamples == 500)
        #expect(abs(wellSampled.fit.pathLossExponent - 3) < 0.15)
        #expect(wellSampled.exponentShrinkage < 0.1)

        let sparse = try #require(result.beaconFit(id: "few"))
        #expect(sparse.fit.samples == 3)
        // Less than half of the way from the venue's n to its own true n of 3.
        #expect(abs(sparse.fit.pathLossExponent - venueN) < 0.5 * abs(3 - venueN))
        #expect(sparse.exponentShrinkage > 0.5)
        #expect(sparse.txPowerShrinkage > wellSampled.txPowerShrinkage)
    }

    @Test func exponentIsFixedWhenEverySampleIsAtOneDistance() throws {
        // Truth on a circle of radius 5 m around the beacon, RSSI −70 everywhere: n cannot be told
        // from A, so n stays at the venue's default 2.5 and A = −70 + 10·2.5·log10(5) = −70 + 17.474 = −52.526.
        var venue = Venue(beacons: [Venue.Beacon(id: "b", x: 0, y: 0)])
        venue.defaults.pathLossExponent = 2.5
        let scans = [(5.0, 0.0), (0, 5), (-3, 4), (4, -3)].enumerated().map {
            Scan(time: Double($0.offset), readings: [Reading(beacon: .id("b"), rssi: -70)],
                 truth: GroundTruth(x: $0.element.0, y: $0.element.1))
        }
        let result = try Calibration.fit(scans, in: venue)
        #expect(result.venueFit.exponentStatus == .fixed)
        #expect(result.venueFit.pathLossExponent == 2.5)
        #expect(abs(result.venueFit.txPower - (-70 + 25 * log10(5.0))) < 1e-9)
        #expect(result.summary.contains("n cannot be fitted"))

        let other = try Calibration.fit(scans, in: venue, options: .init(fallbackExponent: 2))
        #expect(other.venueFit.pathLossExponent == 2)
    }

    @Test func exponentIsHeldInsideThePhysicalRange() throws {
        // Noise-free RSSI = −50 − 80·log10(d), i.e. n = 8, beyond the default bound 6.
        let venue = Venue(beacons: [Venue.Beacon(id: "b", x: 0, y: 0)])
        let scans = [1.0, 2, 4, 8].enumerated().map {
            Scan(time: Double($0.offset), readings: [Reading(beacon: .id("b"), rssi: -50 - 80 * log10($0.element))],
                 truth: GroundTruth(x: $0.element, y: 0))
        }
        let result = try Calibration.fit(scans, in: venue, options: .init(loss: .leastSquares))
        #expect(result.venueFit.pathLossExponent == 6)
        #expect(result.venueFit.exponentStatus == .clamped)
        // With n held at 6, A is the mean of rssi + 60·x: x = 0, .301, .602, .903 → rssi + 60x =
        // −50 − 20x, mean −50 − 20·0.4515 = −59.03.
        #expect(abs(result.venueFit.txPower - (-50 - 20 * log10(8.0) / 2)) < 1e-9)
        let looser = try Calibration.fit(scans, in: venue, options: .init(loss: .leastSquares, exponentRange: 1...10))
        #expect(abs(looser.venueFit.pathLossExponent - 8) < 1e-9)
    }

    @Test func heightsMakeDistancesThreeDimensional() throws {
        // A beacon 3.2 m up, truth without z: the receiver is taken at hand height 1.2 m, so
        // dz = 2 m; at horizontal 0 and 4.5826 m, d = 2 and √(21 + 4) = 5 m.
        // RSSI from A = −60, n = 2: −60 − 20·log10 2 = −66.0206, −60 − 20·log10 5 = −73.9794.
        let raised = Venue(beacons: [Venue.Beacon(id: "b", x: 0, y: 0, z: 3.2)])
        let horizontal = 21.0.squareRoot()
        let scans = [(0.0, 2.0), (horizontal, 5.0)].enumerated().map {
            Scan(time: Double($0.offset),
                 readings: [Reading(beacon: .id("b"), rssi: -60 - 20 * log10($0.element.1))],
                 truth: GroundTruth(x: $0.element.0, y: 0))
        }
        let spatial = try Calibration.fit(scans, in: raised, options: .init(loss: .leastSquares))
        #expect(spatial.counts.spatialSamples == 2)
        #expect(abs(spatial.venueFit.txPower - -60) < 1e-9)
        #expect(abs(spatial.venueFit.pathLossExponent - 2) < 1e-9)

        // The same scans with truth z = 1.2 on a venue without beacon z but default z 3.2: same distances.
        var byDefault = Venue(beacons: [Venue.Beacon(id: "b", x: 0, y: 0)])
        byDefault.defaults.z = 3.2
        let withZ = scans.map { scan in
            var scan = scan
            scan.truth?.z = 1.2
            return scan
        }
        let fromTruth = try Calibration.fit(withZ, in: byDefault, options: .init(loss: .leastSquares))
        #expect(abs(fromTruth.venueFit.pathLossExponent - 2) < 1e-9)

        // No beacon z, no truth z, no receiver height: 2-D distances (0 is clamped to 0.5 m).
        let planar = try Calibration.fit(scans, in: byDefault, options: .init(loss: .leastSquares))
        #expect(planar.counts.spatialSamples == 0)
        #expect(planar.venueFit.distanceRange.lowerBound == 0.5)
        #expect(abs(planar.venueFit.distanceRange.upperBound - horizontal) < 1e-9)

        // An explicit receiver height of 1.2 turns them 3-D again.
        let explicit = try Calibration.fit(scans, in: byDefault, options: .init(loss: .leastSquares, receiverHeight: 1.2))
        #expect(explicit.counts.spatialSamples == 2)
        #expect(abs(explicit.venueFit.pathLossExponent - 2) < 1e-9)
    }

    @Test func countsWhatItSkipsAndWhy() throws {
        let venue = Venue(floors: [Venue.Floor(level: 0), Venue.Floor(level: 1)], beacons: [
            Venue.Beacon(id: "a", x: 0, y: 0),
            Venue.Beacon(id: "b", x: 10, y: 0, floor: 1),
            Venue.Beacon(id: "unplaced"),
        ])
        let scans = [
            Scan(time: 0, readings: [Reading(beacon: .id("a"), rssi: -59),     // used
                                     Reading(beacon: .id("a"), rssi: 0),       // invalid
                                     Reading(beacon: .id("zz"), rssi: -70),    // unresolved
                                     Reading(beacon: .id("unplaced"), rssi: -70),
                                     Reading(beacon: .id("b"), rssi: -80)],    // floor 1, truth on 0
                 truth: GroundTruth(x: 1, y: 0, floor: 0)),
            Scan(time: 1, readings: [Reading(beacon: .id("a"), rssi: -79)], truth: GroundTruth(x: 10, y: 0)),
            Scan(time: 2, readings: [Reading(beacon: .id("a"), rssi: -60)], truth: GroundTruth(place: "hall")),
            Scan(time: 3, readings: [Reading(beacon: .id("a"), rssi: -60)]),
            Scan(time: 4, readings: [Reading(beacon: .id("a"), rssi: -60)], truth: GroundTruth(x: .nan, y: 0)),
        ]
        let result = try Calibration.fit(scans, in: venue)
        let counts = result.counts
        #expect(counts.scans == 5)
        #expect(counts.scansWithoutTruth == 3)
        #expect(counts.readings == 6)
        #expect(counts.invalidReadings == 1)
        #expect(counts.unresolvedReadings == 1)
        #expect(counts.readingsFromUnplacedBeacons == 1)
        #expect(counts.readingsAcrossFloors == 1)
        #expect(counts.samples == 2)
        #expect(result.beaconFits.map(\.beaconID) == ["a"])
        #expect(abs(result.venueFit.pathLossExponent - 2) < 1e-9)
        #expect(result.summary.contains("3 scans without truth x/y, 1 invalid reading, 1 reading of unknown beacons"))
    }

    @Test func noUsableSamplesIsAnErrorThatSaysWhy() {
        let venue = Venue(beacons: [Venue.Beacon(id: "a", x: 0, y: 0)])
        let scans = [
            Scan(time: 0, readings: [Reading(beacon: .id("a"), rssi: -60)]),
            Scan(time: 1, readings: [Reading(beacon: .id("x"), rssi: -60)], truth: GroundTruth(x: 1, y: 1)),
        ]
        let error = #expect(throws: CalibrationError.self) { try Calibration.fit(scans, in: venue) }
        guard case .noUsableSamples(let counts)? = error else { return }
        #expect(counts.unresolvedReadings == 1 && counts.scansWithoutTruth == 1)
        #expect(error?.description.contains("1 of 2 scans have no truth x/y") == true)
        #expect(error?.description.contains("1 reading naming no beacon of the venue") == true)
        #expect(throws: CalibrationError.self) { try Calibration.fit([Scan](), in: venue) }
    }

    @Test func streamsAnySequenceAndAddingScanByScanGivesTheSameResult() throws {
        var generator = SeededRandom(seed: 4)
        let scans = sixBeacons.flatMap { synthesise($0, samples: 50, noise: 3, using: &generator) }
        let venue = venue(of: sixBeacons)
        // A sequence that is not a collection: it can be read once only.
        var iterator = scans.makeIterator()
        let stream = AnySequence { AnyIterator { iterator.next() } }
        let streamed = try Calibration.fit(stream, in: venue)
        var calibration = Calibration(venue: venue)
        for scan in scans { calibration.add(scan) }
        #expect(calibration.counts.samples == 300)
        #expect(try calibration.result() == streamed)
    }

    @Test func appliedSetsDefaultsAndBeaconValues() throws {
        let venue = Venue(beacons: [
            Venue.Beacon(id: "a", x: 0, y: 0),
            Venue.Beacon(id: "quiet", x: 5, y: 5, txPower: -70, pathLossExponent: 3),
        ])
        let scans = [
            Scan(time: 0, readings: [Reading(beacon: .id("a"), rssi: -59)], truth: GroundTruth(x: 1, y: 0)),
            Scan(time: 1, readings: [Reading(beacon: .id("a"), rssi: -79)], truth: GroundTruth(x: 10, y: 0)),
        ]
        let result = try Calibration.fit(scans, in: venue)
        let defaultsOnly = result.applied(to: venue, perBeacon: false)
        #expect(abs(defaultsOnly.defaults.txPower - -59) < 1e-9)
        #expect(abs(defaultsOnly.defaults.pathLossExponent - 2) < 1e-9)
        #expect(defaultsOnly.beacons == venue.beacons)

        let perBeacon = result.applied(to: venue, perBeacon: true)
        #expect(abs((perBeacon.beacons[0].txPower ?? 0) - -59) < 1e-9)
        #expect(abs((perBeacon.beacons[0].pathLossExponent ?? 0) - 2) < 1e-9)
        // A beacon without samples keeps what it had.
        #expect(perBeacon.beacons[1] == venue.beacons[1])
    }

    @Test func summaryIsATable() throws {
        let venue = Venue(beacons: [Venue.Beacon(id: "a", x: 0, y: 0), Venue.Beacon(id: "b", x: 20, y: 0)])
        let scans = [
            Scan(time: 0, readings: [Reading(beacon: .id("a"), rssi: -59), Reading(beacon: .id("b"), rssi: -79)],
                 truth: GroundTruth(x: 1, y: 0)),
            Scan(time: 1, readings: [Reading(beacon: .id("a"), rssi: -79), Reading(beacon: .id("b"), rssi: -59)],
                 truth: GroundTruth(x: 10, y: 0)),
        ]
        // Beacon a: d = 1, 10; beacon b: d = 19, 10 → −59 at 19 m does not fit −59 at 1 m.
        let result = try Calibration.fit(scans, in: venue, options: .init(loss: .leastSquares))
        let lines = result.summary.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0].hasPrefix("Calibration (least squares): 4 samples from 2 of 2 scans, 2-D distances in m"))
        #expect(lines[1] == "Skipped: nothing")
        #expect(lines[2].hasPrefix("Venue fit: A = "))
        let header = try #require(lines.firstIndex { $0.hasPrefix("beacon") })
        #expect(lines[header] == "beacon  samples       A     n  σ (dB)  shrink A/n  d (m)")
        #expect(lines[header + 1].hasPrefix("a             2  "))
        #expect(lines[header + 2].hasPrefix("b             2  "))
        #expect(result.description == result.summary)
    }
}
