import Foundation
import Testing
@testable import Whereabouts

/// One beacon at the origin heard from uniform distances in 1…80 m with RSSI =
/// A − 10·n·log10(d) + σ·noise (minus `fade` dB for a share `fadeShare`), and every reading below
/// `sensitivity` dropped, as a receiver does.
private func censoredScans(txPower: Double = -59, exponent: Double = 2, sigma: Double = 3, sensitivity: Double = -95,
                           fadeShare: Double = 0, fade: Double = 6, count: Int = 4000, device: String? = nil,
                           seed: UInt64) -> [Scan] {
    var random = SeededRandom(seed: seed)
    var scans: [Scan] = []
    for i in 0..<count {
        let d = 1 + 79 * random.nextUniform()
        var rssi = txPower - 10 * exponent * log10(d) + sigma * random.nextGaussian()
        if random.nextUniform() < fadeShare { rssi -= fade }
        let readings = rssi >= sensitivity ? [Reading(beacon: .id("b"), rssi: rssi)] : []
        scans.append(Scan(time: Double(i), device: device, readings: readings, truth: GroundTruth(x: d, y: 0)))
    }
    return scans
}

private let oneBeacon = Venue(beacons: [Venue.Beacon(id: "b", x: 0, y: 0)])

@Suite("Calibration detection floor")
struct CalibrationDetectionFloorTests {
    @Test func uncorrectedFitIsBiasedCorrectedFitRecoversTheModel() throws {
        let scans = censoredScans(seed: 11)
        // The mean at 80 m is −59 − 20·log10 80 = −97.06, below the −95 floor: beyond ~40 m
        // (mean −91) a growing share of the readings is lost, and the heard ones lie above the line.
        let old = try Calibration.fit(scans, in: oneBeacon, options: .init(correctsForDetectionFloor: false))
        #expect(old.detectionFloor.status == .disabled)
        #expect(old.venueFit.pathLossExponent < 1.9)
        #expect(old.venueFit.txPower < -60)

        let new = try Calibration.fit(scans, in: oneBeacon)
        #expect(abs(new.venueFit.txPower - -59) < 1)
        #expect(abs(new.venueFit.pathLossExponent - 2) < 0.1)
        let floor = new.detectionFloor
        #expect(floor.status == .corrected && floor.converged && floor.isEstimated)
        // The floor is estimated as the weakest reading heard: just above −95.
        let threshold = try #require(floor.receivers.first?.threshold)
        #expect(floor.receivers.count == 1 && threshold >= -95 && threshold < -94.5)
        // Kept: predicted mean ≥ floor + 2σ ≈ −95 + 6 = −89, i.e. d ≤ 10^(30/20) ≈ 32 m.
        #expect(floor.excludedSamples > 0 && floor.excludedSamples == new.counts.samples - new.venueFit.samples)
        #expect(new.venueFit.distanceRange.upperBound > 25 && new.venueFit.distanceRange.upperBound < 40)
        // The beacon fit uses the same correction.
        let beacon = try #require(new.beaconFit(id: "b"))
        #expect(beacon.excludedSamples > 0)
        #expect(abs(beacon.fit.pathLossExponent - 2) < 0.1)
        #expect(abs(beacon.fit.txPower - -59) < 1)

        // A given threshold works the same way.
        let given = try Calibration.fit(scans, in: oneBeacon, options: .init(detectionThreshold: -95))
        #expect(!given.detectionFloor.isEstimated)
        #expect(abs(given.venueFit.pathLossExponent - 2) < 0.1)
    }

    @Test func multipathFadesAndTheFloorTogether() throws {
        let scans = censoredScans(fadeShare: 0.1, seed: 12)
        let old = try Calibration.fit(scans, in: oneBeacon, options: .init(correctsForDetectionFloor: false))
        #expect(old.venueFit.pathLossExponent < 1.9)
        let new = try Calibration.fit(scans, in: oneBeacon)
        #expect(abs(new.venueFit.txPower - -59) < 1)
        #expect(abs(new.venueFit.pathLossExponent - 2) < 0.1)
    }

    @Test func dataFarAboveTheFloorGivesTheUncorrectedAnswer() throws {
        // Readings near: 1–80 m but a floor of −150 dBm (given) is never approached.
        let scans = censoredScans(sensitivity: -200, seed: 13)
        let old = try Calibration.fit(scans, in: oneBeacon, options: .init(correctsForDetectionFloor: false))
        let new = try Calibration.fit(scans, in: oneBeacon, options: .init(detectionThreshold: -150))
        #expect(new.detectionFloor.status == .nothingNearFloor)
        #expect(new.detectionFloor.excludedSamples == 0)
        #expect(new.venueFit == old.venueFit)
        #expect(new.beaconFits == old.beaconFits)
        #expect(new.summary.contains("-150 dBm (given)"))
        #expect(new.summary.contains("nothing left out"))
    }

    @Test func tooFewSamplesFallBackToTheUncorrectedFit() throws {
        // Three samples: the weakest (−79) is the estimated floor and the far ones sit on it, but
        // leaving them out would leave fewer than 10 samples, so all three are fitted as before.
        let scans = [(1.0, -59.0), (10, -79), (5, -73)].enumerated().map {
            Scan(time: Double($0.offset), readings: [Reading(beacon: .id("b"), rssi: $0.element.1)],
                 truth: GroundTruth(x: $0.element.0, y: 0))
        }
        let old = try Calibration.fit(scans, in: oneBeacon, options: .init(correctsForDetectionFloor: false))
        let new = try Calibration.fit(scans, in: oneBeacon)
        #expect(new.detectionFloor.status == .insufficientData)
        #expect(new.venueFit == old.venueFit)
        #expect(new.beaconFits == old.beaconFits)
        #expect(new.summary.contains("too few would remain"))
    }

    @Test func eachReceiverHasItsOwnFloor() throws {
        // Two phones with floors of −95 and −85 dBm; scans without truth count for the floor too.
        var scans = censoredScans(count: 2000, device: "deaf", seed: 14).map { scan in
            var scan = scan
            scan.readings.removeAll { $0.rssi < -85 }
            return scan
        }
        scans += censoredScans(count: 2000, device: "keen", seed: 15)
        scans.append(Scan(time: 9999, device: "keen", readings: [Reading(beacon: .id("zz"), rssi: -99)]))
        let result = try Calibration.fit(scans, in: oneBeacon)
        let floors = Dictionary(uniqueKeysWithValues: result.detectionFloor.receivers.map { ($0.device ?? "", $0.threshold) })
        #expect(try #require(floors["deaf"]) >= -85 && floors["deaf"]! < -84.5)
        #expect(floors["keen"] == -99)
        #expect(abs(result.venueFit.pathLossExponent - 2) < 0.1)
        #expect(abs(result.venueFit.txPower - -59) < 1)
        #expect(result.summary.contains("(weakest reading per receiver)"))
    }

    @Test func simulatedGeometryMatchesTheCalibrationsDistances() throws {
        // Noise-free, nothing lost, exact truth: if the simulator's distances (beacon at its floor's
        // elevation + z 3 m, receiver at its floor's elevation + 1.2 m) and the calibration's
        // (same floor only, truth z 1.2 against beacon z 3) agree, least squares finds A and n exactly.
        let preset = SimulationPreset.example
        var radio = preset.radio
        radio.shadowing = 0
        radio.multipathShare = 0
        radio.packetLoss = 0
        radio.sensitivity = -200
        radio.roundsRSSI = false
        let simulator = Simulator(venue: preset.venue, walk: preset.walk, radio: radio, seed: 1)
        let result = try Calibration.fit(simulator, in: preset.venue,
                                         options: .init(loss: .leastSquares, correctsForDetectionFloor: false))
        #expect(abs(result.venueFit.txPower - -59) < 1e-6)
        #expect(abs(result.venueFit.pathLossExponent - 2) < 1e-6)
        #expect(result.venueFit.rms < 1e-6)
        // Hall 8's two floors: readings through the floor (15 dB weaker) are skipped, not fitted.
        #expect(result.counts.readingsAcrossFloors > 0)
        #expect(result.counts.spatialSamples == result.counts.samples)
    }

    @Test func theExampleSimulationCalibratesBack() throws {
        let preset = SimulationPreset.example
        let old = try Calibration.fit(preset.simulator(seed: 42), in: preset.venue,
                                      options: .init(correctsForDetectionFloor: false))
        // Before the correction: A −65.8 dBm, n 1.52.
        #expect(old.venueFit.pathLossExponent < 1.7)
        #expect(old.venueFit.txPower < -64)
        let new = try Calibration.fit(preset.simulator(seed: 42), in: preset.venue)
        #expect(new.detectionFloor.status == .corrected)
        // Only ~400 samples, mostly 12–32 m, stay above floor + 2σ (−89 dBm): n has a sampling
        // spread of about 0.1 between seeds (1.90…2.18 over seeds 1–7), and seed 42 lands at 2.154.
        #expect(abs(new.venueFit.txPower - -59) < 1.5)
        #expect(abs(new.venueFit.pathLossExponent - 2) < 0.16)
        // Over eight walks the correction is unbiased: the mean lands within 0.5 dB and 0.05.
        var sumA = 0.0, sumN = 0.0
        let seeds: [UInt64] = [42, 1, 2, 3, 4, 5, 6, 7]
        for seed in seeds {
            let fit = try Calibration.fit(preset.simulator(seed: seed), in: preset.venue).venueFit
            sumA += fit.txPower
            sumN += fit.pathLossExponent
        }
        #expect(abs(sumA / Double(seeds.count) - -59) < 0.5)
        #expect(abs(sumN / Double(seeds.count) - 2) < 0.05)
    }
}
