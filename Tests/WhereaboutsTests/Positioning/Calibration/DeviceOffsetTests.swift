import Foundation
import Testing
@testable import Whereabouts

/// Six beacons in a 30 m × 20 m room, all with A = −62 dBm at 1 m and n = 2.4.
private let beaconSpots: [(Double, Double)] = [(2, 3), (15, 2), (28, 4), (3, 17), (16, 18), (27, 16)]
private let trueTxPower = -62.0
private let trueExponent = 2.4

private let roomVenue = Venue(beacons: beaconSpots.enumerated().map {
    Venue.Beacon(id: "b\($0.offset)", x: $0.element.0, y: $0.element.1)
})

/// `scans` scans of `device`, each at a random spot hearing every beacon with RSSI =
/// A + `gain` − 10·n·log10(d) + Gaussian noise of σ `noise`.
private func scans(of device: String, gain: Double, scans count: Int, noise: Double = 3,
                   using generator: inout SeededRandom) -> [Scan] {
    (0..<count).map { i in
        let x = generator.nextUniform() * 30, y = generator.nextUniform() * 20
        let readings = beaconSpots.enumerated().map { beacon in
            let dx = x - beacon.element.0, dy = y - beacon.element.1
            let d = max((dx * dx + dy * dy).squareRoot(), 0.5)
            let rssi = trueTxPower + gain - 10 * trueExponent * log10(d) + noise * generator.nextGaussian()
            return Reading(beacon: .id("b\(beacon.offset)"), rssi: rssi)
        }
        return Scan(time: Double(i), device: device, readings: readings, truth: GroundTruth(x: x, y: y))
    }
}

private func offset(_ result: CalibrationResult, _ device: String) throws -> CalibrationResult.DeviceOffset {
    try #require(result.deviceOffsets.first { $0.device == device })
}

@Suite("Device offsets")
struct DeviceOffsetTests {
    @Test func twoDevicesTwelveDecibelsApartAreSeparated() throws {
        var generator = SeededRandom(seed: 7)
        // Equal numbers of samples: the sample-weighted mean level is the true A, and the two
        // devices sit 6 dB either side of it.
        let training = scans(of: "loud", gain: 6, scans: 300, using: &generator)
            + scans(of: "quiet", gain: -6, scans: 300, using: &generator)
        let result = try Calibration.fit(training, in: roomVenue)
        let loud = try offset(result, "loud"), quiet = try offset(result, "quiet")
        #expect(abs(loud.offset - 6) < 0.5)
        #expect(abs(quiet.offset - -6) < 0.5)
        #expect(abs(loud.offset - quiet.offset - 12) < 0.5)
        #expect(abs(result.venueFit.txPower - trueTxPower) < 0.5)
        #expect(abs(result.venueFit.pathLossExponent - trueExponent) < 0.05)
        // σ is the noise about each device's own level, not the 6 dB gap.
        #expect(abs(result.venueFit.robustSigma - 3) < 0.3)
        #expect(result.offsetsByDevice.count == 2)
        #expect(result.summary.contains("Device offsets: loud +"))

        // Without offsets the two levels blur into one line with a much wider spread.
        let plain = try Calibration.fit(training, in: roomVenue, options: .init(fitsDeviceOffsets: false))
        #expect(plain.deviceOffsets.isEmpty)
        #expect(plain.venueFit.robustSigma > result.venueFit.robustSigma + 2)
    }

    @Test func offsetsAverageToZeroOverSamples() throws {
        var generator = SeededRandom(seed: 8)
        // 200 scans at −56 dBm at 1 m and 400 at −68: the sample-weighted mean level is
        // (200·(−56) + 400·(−68)) / 600 = −64, so A = −64, δ = +8 and −4.
        let training = scans(of: "loud", gain: 6, scans: 200, using: &generator)
            + scans(of: "quiet", gain: -6, scans: 400, using: &generator)
        let result = try Calibration.fit(training, in: roomVenue)
        let loud = try offset(result, "loud"), quiet = try offset(result, "quiet")
        #expect(abs(loud.offset - 8) < 0.5)
        #expect(abs(quiet.offset - -4) < 0.5)
        #expect(abs(result.venueFit.txPower - -64) < 0.5)
        #expect(abs(result.venueFit.pathLossExponent - trueExponent) < 0.05)
        let weighted = result.deviceOffsets.reduce(0.0) { $0 + Double($1.samples) * $1.offset }
        #expect(abs(weighted) < 1e-6 * Double(result.venueFit.samples))
    }

    @Test func aDeviceWithFewSamplesShrinksTowardZero() throws {
        var generator = SeededRandom(seed: 9)
        let base = scans(of: "a", gain: 0, scans: 300, using: &generator)
        // One scan hearing two beacons exactly 10 dB above the model.
        let spot = (x: 10.0, y: 10.0)
        let readings = beaconSpots.prefix(2).enumerated().map { beacon in
            let dx = spot.x - beacon.element.0, dy = spot.y - beacon.element.1
            let d = (dx * dx + dy * dy).squareRoot()
            return Reading(beacon: .id("b\(beacon.offset)"), rssi: trueTxPower + 10 - 10 * trueExponent * log10(d))
        }
        let rare = Scan(time: 1000, device: "rare", readings: readings, truth: GroundTruth(x: spot.x, y: spot.y))
        // Without the detection-floor correction: a receiver's floor is estimated as its weakest
        // reading, so one that reported two readings would have them both left out at its floor.
        let options = Calibration.Options(correctsForDetectionFloor: false)
        let few = try Calibration.fit(base + [rare], in: roomVenue, options: options)
        let shrunk = try offset(few, "rare")
        #expect(shrunk.samples == 2)
        // λ = σ²/τ² ≈ 3²/5² = 0.36 against 2 samples: about 15 % of the 10 dB is held back.
        #expect(shrunk.shrinkage > 0.1 && shrunk.shrinkage < 0.3)
        #expect(shrunk.offset < 9.5 && shrunk.offset > 6)
        #expect(abs(shrunk.offset - (1 - shrunk.shrinkage) * 10) < 0.5)
        // The well-sampled device stays at the venue level.
        #expect(abs(try offset(few, "a").offset) < 0.1)

        // The same device with many samples gets its full offset.
        let many = try Calibration.fit(base + scans(of: "rare", gain: 10, scans: 100, using: &generator), in: roomVenue,
                                       options: options)
        let full = try offset(many, "rare"), usual = try offset(many, "a")
        #expect(full.shrinkage < 0.01)
        #expect(abs(full.offset - usual.offset - 10) < 0.5)

        // A tight prior holds the rare device near 0.
        let tight = try Calibration.fit(base + [rare], in: roomVenue, options: .init(correctsForDetectionFloor: false, deviceOffsetPriorSigma: 0.5))
        #expect(abs(try offset(tight, "rare").offset) < 1.5)
    }

    @Test func oneDeviceHasNoOffsets() throws {
        var generator = SeededRandom(seed: 10)
        let training = scans(of: "only", gain: 5, scans: 300, using: &generator)
        let result = try Calibration.fit(training, in: roomVenue)
        #expect(result.deviceOffsets.isEmpty)
        #expect(result.offsetsByDevice.isEmpty)
        #expect(abs(result.venueFit.txPower - (trueTxPower + 5)) < 0.5)
        #expect(!result.summary.contains("Device offsets"))
    }

    @Test func locatorSubtractsTheDeviceOffset() throws {
        // One beacon at the origin, A = −59 dBm, n = 2, no filter.
        let venue = PositioningVenue(Venue(defaults: .init(txPower: -59, pathLossExponent: 2),
                                           beacons: [Venue.Beacon(id: "b", x: 0, y: 0)]))
        var configuration = LocatorConfiguration(filter: nil, floorSelection: nil)
        configuration.deviceOffsets = ["loud": 10]
        func observed(_ device: String?) -> Observation {
            var locator = Locator(venue: venue, solver: WeightedCentroid(venue: venue), configuration: configuration)
            return locator.observe(Scan(time: 0, device: device, readings: [Reading(beacon: .id("b"), rssi: -69)]))
        }
        // "loud" reads 10 dB high: −69 − 10 = −79 dBm, d = 10^((−59 + 79)/20) = 10 m.
        let loud = observed("loud")
        #expect(loud.signals.first?.rssi == -79)
        #expect(abs((loud.ranges.first?.distance ?? 0) - 10) < 1e-9)
        // Unknown devices and scans without one are left as they are: d = 10^(10/20) = 3.1623 m.
        for device in ["other", nil] as [String?] {
            let plain = observed(device)
            #expect(plain.signals.first?.rssi == -69)
            #expect(abs((plain.ranges.first?.distance ?? 0) - pow(10, 0.5)) < 1e-9)
        }
    }

    @Test func correctedReadingsStayMeasurements() {
        let scan = Scan(time: 0, device: "d", readings: [
            Reading(beacon: .id("b"), rssi: -40), Reading(beacon: .id("c"), rssi: -70), Reading(beacon: .id("e"), rssi: 0),
        ])
        let corrected = scan.correctedForDeviceOffset(-60)
        // −40 + 60 = +20 would not be a reading: held at −0.5. The invalid 0 dBm is left alone.
        #expect(corrected.readings.map(\.rssi) == [-0.5, -10, 0])
        #expect(corrected.readings[0].isValid && corrected.readings[1].isValid)
        #expect(scan.correctedForDeviceOffset(0).readings.map(\.rssi) == [-40, -70, 0])
    }

    @Test func setupPassesOffsetsToTheLocators() throws {
        var generator = SeededRandom(seed: 11)
        let training = scans(of: "loud", gain: 6, scans: 150, using: &generator)
            + scans(of: "quiet", gain: -6, scans: 150, using: &generator)
        let setup = PositioningAlgorithm.multilateration.setup(venue: roomVenue, training: training)
        let offsets = setup.configuration.deviceOffsets
        #expect(abs((offsets["loud"] ?? 0) - 6) < 0.7)
        #expect(abs((offsets["quiet"] ?? 0) - -6) < 0.7)
        // The solvers learn from the training scans corrected once, with a configuration that
        // does not correct them again.
        let (corrected, plain) = PositioningSetup.solverTraining(training, configuration: setup.configuration)
        #expect(plain.deviceOffsets.isEmpty)
        let first = try #require(corrected.first?.readings.first), original = try #require(training.first?.readings.first)
        #expect(abs(first.rssi - (original.rssi - (offsets["loud"] ?? 0))) < 1e-9)
    }

    @Test func aCalibratedVenueKeepsItsDevicesForSetupsAndClassifiers() throws {
        var generator = SeededRandom(seed: 13)
        let training = scans(of: "loud", gain: 6, scans: 150, using: &generator)
            + scans(of: "quiet", gain: -6, scans: 150, using: &generator)
        let result = try Calibration.fit(training, in: roomVenue)
        let venue = result.applied(to: roomVenue, perBeacon: false)
        #expect(venue.devices.map(\.id) == ["loud", "quiet"])
        #expect(venue.deviceOffsets == result.offsetsByDevice)
        // A setup without training takes the venue's devices as known, corrects them, and lets
        // the others learn their offset; one that says otherwise about a device wins.
        let setup = PositioningAlgorithm.multilateration.setup(venue: venue)
        #expect(setup.configuration.deviceOffsets == result.offsetsByDevice)
        #expect(setup.configuration.deviceOffsetEstimation != nil)
        var mine = LocatorConfiguration()
        mine.deviceOffsets = ["loud": 1]
        #expect(PositioningAlgorithm.multilateration.setup(venue: venue, configuration: mine).configuration.deviceOffsets["loud"] == 1)
        // Without devices and without training nothing is learnt: there is nothing to measure against.
        #expect(PositioningAlgorithm.multilateration.setup(venue: roomVenue).configuration.deviceOffsetEstimation == nil)
    }

    @Test func classifiersReadEachKnownDeviceLikeTheCalibration() throws {
        // Two places told apart by one beacon's level: −60 in "near", −80 in "far". A phone that
        // reads 12 dB high hears "far" at −68 — nearer "near" — unless its offset is taken off.
        func scan(_ rssi: Double, place: String?, device: String, time: Double) -> Scan {
            Scan(time: time, device: device, readings: [Reading(beacon: .id("b0"), rssi: rssi)],
                 truth: place.map { GroundTruth(place: $0) })
        }
        var training: [Scan] = []
        for i in 0..<40 {
            let jitter = Double(i % 5) - 2
            training.append(scan(-60 + jitter, place: "near", device: "survey", time: Double(i)))
            training.append(scan(-80 + jitter, place: "far", device: "survey", time: Double(100 + i)))
        }
        var venue = roomVenue
        venue.devices = [Venue.Device(id: "survey", rssiOffset: 0), Venue.Device(id: "loud", rssiOffset: 12)]
        let model = PlaceModel.train(.naiveBayes, on: PlaceTrainingSet(scans: training, venue: venue))
        var plain = model.tracker()
        #expect(plain.classify(scan(-68, place: nil, device: "loud", time: 500))?.place == "near")
        var corrected = model.tracker()
        corrected.deviceOffsets = venue.deviceOffsets
        #expect(corrected.classify(scan(-68, place: nil, device: "loud", time: 500))?.place == "far")
        // The training set itself reads a listed device like the calibration.
        let loudTraining = training.map { scan in
            var shifted = scan.correctedForDeviceOffset(-12)
            shifted.device = "loud"
            return shifted
        }
        let set = PlaceTrainingSet(scans: loudTraining, venue: venue)
        #expect(set.samples.first?.rssi.first??.rounded() == -62)
    }
}
