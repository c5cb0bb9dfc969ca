import Foundation
import Testing
@testable import Whereabouts

@Suite struct SimulatorTests {
    // MARK: Helpers

    /// A receiver standing still at (x, y) on `floor` for `scans` scans (1 s apart).
    static func standing(x: Double = 0, y: Double = 0, floor: Int = 0, scans: Int) -> Walk {
        Walk(waypoints: [Walk.Waypoint(x: x, y: y, floor: floor, dwell: Double(scans - 1))], start: 0)
    }

    /// One beacon "b" at (10, 0) at the receiver's height (1.2), so that a receiver at (0, 0) is exactly 10 m away.
    static func oneBeacon(places: [Venue.Place] = []) -> Venue {
        Venue(beacons: [Venue.Beacon(id: "b", x: 10, y: 0, z: 1.2, txPower: -59, pathLossExponent: 2)], places: places)
    }

    static func rssi(_ venue: Venue, at x: Double, _ y: Double, floor: Int = 0, radio: RadioModel) -> [Double] {
        Simulator(venue: venue, walk: standing(x: x, y: y, floor: floor, scans: 1), radio: radio)
            .firstScan?.readings.map(\.rssi) ?? []
    }

    static func statistics(_ values: [Double]) -> (mean: Double, deviation: Double) {
        let mean = values.reduce(0, +) / Double(values.count)
        let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count - 1)
        return (mean, variance.squareRoot())
    }

    // MARK: Random numbers

    @Test func xoshiroMatchesTheReferenceVector() {
        // xoshiro256** from state (1, 2, 3, 4): the reference implementation's first outputs.
        var random = SeededRandom(state: (1, 2, 3, 4))
        let outputs = (0..<5).map { _ in random.next() }
        #expect(outputs == [11520, 0, 1_509_978_240, 1_215_971_899_390_074_240, 1_216_172_134_540_287_360])
    }

    @Test func seedingGoesThroughSplitMix64() {
        // SplitMix64 from 0 gives e220a8397b1dcdaf, 6e789e6aa1b965f4, 06c45d188009454f, f88bb8a8724c81ec;
        // the first xoshiro256** output of that state is rotl(s1·5, 7)·9.
        let s1: UInt64 = 0x6E78_9E6A_A1B9_65F4
        let product = s1 &* 5
        let expected = ((product << 7) | (product >> 57)) &* 9
        var random = SeededRandom(seed: 0)
        #expect(random.next() == expected)
        #expect(expected == 0x99EC_5F36_CB75_F2B4)
    }

    @Test func gaussianHasUnitVariance() {
        var random = SeededRandom(seed: 3)
        let values = (0..<100_000).map { _ in random.nextGaussian() }
        let (mean, deviation) = Self.statistics(values)
        // Standard errors: 1/√100000 ≈ 0.0032 for the mean, 1/√200000 ≈ 0.0022 for σ.
        #expect(abs(mean) < 0.015)
        #expect(abs(deviation - 1) < 0.015)
        var uniform = SeededRandom(seed: 4)
        #expect((0..<10_000).allSatisfy { _ in (0..<1).contains(uniform.nextUniform()) })
    }

    // MARK: Determinism

    @Test func sameSeedSameScansOtherSeedOtherScans() {
        let preset = SimulationPreset.espresenseRoom
        let first = Array(preset.simulator(seed: 1))
        let again = Array(preset.simulator(seed: 1))
        let other = Array(preset.simulator(seed: 2))
        // Walking √4.25 + 4 + 2 + 4 + √5 = 14.298 m at 1.2 m/s = 11.915 s, plus 90 s of dwells:
        // 101.915 s, so scans at 0, 1, …, 101.
        #expect(first.count == 102)
        #expect(first == again)
        #expect(first != other)
        #expect(first.map(\.truth) == other.map(\.truth))   // only the radio differs
    }

    @Test func asyncScansEqualTheSequence() async {
        let simulator = SimulationPreset.espresenseRoom.simulator(seed: 5)
        var collected: [Scan] = []
        for await scan in simulator.scans { collected.append(scan) }
        #expect(collected == Array(simulator))
    }

    @Test func scansComeOncePerIntervalWithTheWalksNames() {
        var walk = Self.standing(scans: 11)
        walk.start = 100
        walk.device = "tag"
        walk.track = "t1"
        let scans = Array(Simulator(venue: Self.oneBeacon(), walk: walk, radio: RadioModel(scanInterval: 2.5)))
        // 10 s at 2.5 s: 0, 2.5, 5, 7.5, 10.
        #expect(scans.map(\.time) == [100, 102.5, 105, 107.5, 110])
        #expect(scans.allSatisfy { $0.device == "tag" && $0.track == "t1" })
        #expect(Simulator(venue: Venue(), walk: walk, radio: RadioModel(scanInterval: 0)).scanCount == 0)
    }

    // MARK: The radio model

    @Test func noiselessRSSIFollowsTheLogDistanceModel() {
        let exact = RadioModel(roundsRSSI: false)
        // −59 − 10·2·log10(10) = −79.
        #expect(Self.rssi(Self.oneBeacon(), at: 0, 0, radio: exact) == [-79])
        // n = 3: −59 − 30 = −89; a calibration of the beacon wins over the model-wide value.
        #expect(Self.rssi(Self.oneBeacon(), at: 0, 0, radio: RadioModel(pathLossExponent: 3, roundsRSSI: false)) == [-89])
        let calibrated = RadioModel(pathLossExponent: 3, calibrations: ["b": .init(txPower: -65)], roundsRSSI: false)
        #expect(Self.rssi(Self.oneBeacon(), at: 0, 0, radio: calibrated) == [-95])
        // 2 m: −59 − 20·0.30103 = −65.0206; reported as −65 when rounded.
        let two = Self.rssi(Self.oneBeacon(), at: 8, 0, radio: exact)
        #expect(abs((two.first ?? 0) - -65.0206) < 1e-4)
        #expect(Self.rssi(Self.oneBeacon(), at: 8, 0, radio: RadioModel()) == [-65])
        // At the beacon the distance is clamped to 0.1 m: −59 + 20 = −39.
        #expect(Self.rssi(Self.oneBeacon(), at: 10, 0, radio: exact) == [-39])
    }

    @Test func aReceiversOffsetShiftsEveryReadingBeforeTheSensitivityCut() {
        // −79 at 10 m; a phone reading 4.5 dB high hears −74.5, one reading 6 dB low −85 — and
        // with a sensitivity of −80 that one hears nothing.
        var loud = RadioModel(roundsRSSI: false)
        loud.receiverOffset = 4.5
        #expect(Self.rssi(Self.oneBeacon(), at: 0, 0, radio: loud) == [-74.5])
        var quiet = RadioModel(sensitivity: -80, roundsRSSI: false)
        #expect(Self.rssi(Self.oneBeacon(), at: 0, 0, radio: quiet) == [-79])
        quiet.receiverOffset = -6
        #expect(Self.rssi(Self.oneBeacon(), at: 0, 0, radio: quiet).isEmpty)
    }

    @Test func aReceiversGainScalesTheLossBeforeItsOffset() {
        // At 10 m the loss is 20 dB: a phone with gain 0.8 hears −59 − 0.8·20 = −75, one with
        // 1.2 hears −59 − 24 = −83; an offset of +2 dB comes after the slope: −73.
        var flat = RadioModel(roundsRSSI: false)
        flat.receiverGain = 0.8
        #expect(Self.rssi(Self.oneBeacon(), at: 0, 0, radio: flat) == [-75])
        flat.receiverOffset = 2
        #expect(Self.rssi(Self.oneBeacon(), at: 0, 0, radio: flat) == [-73])
        var steep = RadioModel(roundsRSSI: false)
        steep.receiverGain = 1.2
        #expect(Self.rssi(Self.oneBeacon(), at: 0, 0, radio: steep) == [-83])
    }

    @Test func readingsNameTheBeaconAndItsTxPower() {
        let scan = Simulator(venue: Self.oneBeacon(), walk: Self.standing(scans: 1)).firstScan
        #expect(scan?.readings == [Reading(beacon: .id("b"), rssi: -79, txPower: -59)])
        let quiet = Simulator(venue: Self.oneBeacon(), walk: Self.standing(scans: 1), radio: RadioModel(reportsTxPower: false)).firstScan
        #expect(quiet?.readings.first?.txPower == nil)
        // A beacon without a position is never heard.
        let unplaced = Venue(beacons: [Venue.Beacon(id: "nowhere")])
        #expect(Simulator(venue: unplaced, walk: Self.standing(scans: 3)).allSatisfy { $0.readings.isEmpty })
    }

    @Test func shadowingHasTheModelsMeanAndDeviation() {
        let radio = RadioModel(shadowing: 2.5, roundsRSSI: false)
        let values = Simulator(venue: Self.oneBeacon(), walk: Self.standing(scans: 20_000), radio: radio, seed: 11)
            .flatMap { $0.readings.map(\.rssi) }
        #expect(values.count == 20_000)
        let (mean, deviation) = Self.statistics(values)
        // Expected −79 ± 2.5/√20000 = 0.018 (standard error); σ's standard error is 2.5/√40000 = 0.0125.
        #expect(abs(mean - -79) < 0.1)
        #expect(abs(deviation - 2.5) < 0.1)
    }

    @Test func persistentShadowingStaysWhileTheReceiverStandsAndVariesAcrossTheVenue() throws {
        // No per-sample noise: every scan of a standing receiver reads the same offset from the model.
        let radio = RadioModel(persistentShadowing: 4, roundsRSSI: false)
        let standing = Simulator(venue: Self.oneBeacon(), walk: Self.standing(x: 3, y: 2, scans: 10), radio: radio, seed: 5)
            .flatMap { $0.readings.map(\.rssi) }
        #expect(standing.count == 10 && Set(standing).count == 1)
        // The model gives −59 − 20·log10(√(7² + 2²)) there; the offset is the field's.
        let model = -59 - 20 * log10((49.0 + 4).squareRoot())
        let offset = try #require(standing.first) - model
        #expect(offset != 0)
        // Continuous: a centimetre away it has hardly changed.
        let nearby = try #require(Simulator(venue: Self.oneBeacon(), walk: Self.standing(x: 3.01, y: 2, scans: 1), radio: radio,
                                            seed: 5).firstScan?.readings.first?.rssi)
        #expect(abs(nearby - (model + offset)) < 0.2)
        // Over spots far apart (independent grid cells) it has the standard deviation asked for.
        var offsets: [Double] = []
        for i in 0..<20 {
            for j in 0..<20 {
                let x = 10 + Double(i) * 10.5, y = Double(j) * 10.5
                let distance = ((x - 10) * (x - 10) + y * y + 0).squareRoot()
                let expected = -59 - 20 * log10(max(distance, 0.1))
                guard let reading = Self.rssi(Self.oneBeacon(), at: x, y, radio: RadioModel(persistentShadowing: 4, sensitivity: -1000, roundsRSSI: false)).first
                else { continue }
                offsets.append(reading - expected)
            }
        }
        #expect(offsets.count == 400)
        let (mean, deviation) = Self.statistics(offsets)
        // 400 independent N(0, 4²) values: standard error of the mean 0.2, of σ about 0.14.
        #expect(abs(mean) < 0.8)
        #expect(abs(deviation - 4) < 0.6)
        // Off by default.
        #expect(Self.rssi(Self.oneBeacon(), at: 3, 2, radio: RadioModel(roundsRSSI: false)) == [model])
    }

    @Test func simulationsWithOneShadowingFieldSeedShareTheField() throws {
        var radio = RadioModel(persistentShadowing: 4, roundsRSSI: false)
        func reading(seed: UInt64) throws -> Double {
            try #require(Simulator(venue: Self.oneBeacon(), walk: Self.standing(x: 4, y: 1, scans: 1), radio: radio, seed: seed)
                .firstScan?.readings.first?.rssi)
        }
        // By default each simulator's seed makes its own field ...
        #expect(try reading(seed: 1) != reading(seed: 2))
        // ... and with a field seed, walks of other seeds meet the same building.
        radio.shadowingFieldSeed = 99
        #expect(try reading(seed: 1) == reading(seed: 2))
    }

    @Test func multipathDropsShiftTheMeanBySixTenthsOfADecibel() {
        let radio = RadioModel(multipathShare: 0.1, multipathLoss: 6, roundsRSSI: false)
        let values = Simulator(venue: Self.oneBeacon(), walk: Self.standing(scans: 20_000), radio: radio, seed: 12)
            .flatMap { $0.readings.map(\.rssi) }
        // Each sample is −79 or −85; 10 % at −6 dB move the mean by −0.6 dB (share's standard error 0.0021).
        #expect(values.allSatisfy { $0 == -79 || $0 == -85 })
        let share = Double(values.filter { $0 == -85 }.count) / Double(values.count)
        #expect(abs(share - 0.1) < 0.01)
        #expect(abs(Self.statistics(values).mean - -79.6) < 0.06)
        // With shadowing as well, the mean still moves by about −0.6 dB.
        let noisy = RadioModel(shadowing: 2.5, multipathShare: 0.1, multipathLoss: 6, roundsRSSI: false)
        let noisyValues = Simulator(venue: Self.oneBeacon(), walk: Self.standing(scans: 20_000), radio: noisy, seed: 13)
            .flatMap { $0.readings.map(\.rssi) }
        #expect(abs(Self.statistics(noisyValues).mean - -79.6) < 0.1)
    }

    @Test func packetLossDropsTheGivenShare() {
        let radio = RadioModel(packetLoss: 0.2)
        let scans = Array(Simulator(venue: Self.oneBeacon(), walk: Self.standing(scans: 20_000), radio: radio, seed: 14))
        #expect(scans.count == 20_000)   // a scan that heard nothing still counts
        let heard = Double(scans.filter { !$0.readings.isEmpty }.count) / Double(scans.count)
        // 0.8 ± 0.0028 (standard error).
        #expect(abs(heard - 0.8) < 0.01)
    }

    @Test func sensitivityFloorSilencesWeakBeacons() {
        // The mean at 10 m is −79.
        #expect(Self.rssi(Self.oneBeacon(), at: 0, 0, radio: RadioModel(sensitivity: -78)) == [])
        #expect(Self.rssi(Self.oneBeacon(), at: 0, 0, radio: RadioModel(sensitivity: -79)) == [-79])
    }

    @Test func wallsBetweenAttenuate() {
        // The beacon at (10, 0) inside room B (5…15 × −5…5); the receiver at (0, 0) inside room A
        // (−5…5 × −5…5). The line between them crosses their shared wall x = 5 once.
        let roomA = Venue.Place(id: "A", shape: .polygon([PlanarPoint(x: -5, y: -5), PlanarPoint(x: 5, y: -5),
                                                          PlanarPoint(x: 5, y: 5), PlanarPoint(x: -5, y: 5)]))
        let roomB = Venue.Place(id: "B", shape: .polygon([PlanarPoint(x: 5, y: -5), PlanarPoint(x: 15, y: -5),
                                                          PlanarPoint(x: 15, y: 5), PlanarPoint(x: 5, y: 5)]))
        let radio = RadioModel(wallAttenuation: 4, roundsRSSI: false)
        // −79 − 4.
        #expect(Self.rssi(Self.oneBeacon(places: [roomA, roomB]), at: 0, 0, radio: radio) == [-83])
        #expect(Self.rssi(Self.oneBeacon(places: [roomB]), at: 0, 0, radio: radio) == [-83])
        // No walls on the way inside room B: 2 m, −65.0206.
        let inside = Self.rssi(Self.oneBeacon(places: [roomA, roomB]), at: 8, 0, radio: radio)
        #expect(abs((inside.first ?? 0) - -65.0206) < 1e-4)
        // From (2, −10), below both rooms, the line to the beacon, y = 1.25x − 12.5, meets y = −5 at
        // x = 6: B's bottom wall, one wall. d = √(8² + 10²) = 12.806, −59 − 20·1.10743 = −81.1486.
        let below = Self.rssi(Self.oneBeacon(places: [roomA, roomB]), at: 2, -10, radio: radio)
        #expect(abs((below.first ?? 0) - (-81.1486 - 4)) < 1e-3)
        // Walls on another floor do not count.
        let upstairs = Venue.Place(id: "B", floor: 1, shape: roomB.shape)
        var venue = Self.oneBeacon(places: [upstairs])
        venue.floors = [Venue.Floor(level: 0), Venue.Floor(level: 1)]
        #expect(Self.rssi(venue, at: 0, 0, radio: radio) == [-79])
    }

    @Test func floorsApartAttenuateAndElevationsCountInTheDistance() {
        // The beacon on floor 1 (elevation 3) at z 2.2: 5.2 m up. The receiver on floor 0 at 1.2 m,
        // 3 m away on the plan: d = √(3² + 4²) = 5, −59 − 20·log10(5) − 10 = −82.9794.
        let venue = Venue(floors: [Venue.Floor(level: 0, elevation: 0), Venue.Floor(level: 1, elevation: 3)],
                          beacons: [Venue.Beacon(id: "up", x: 0, y: 0, z: 2.2, floor: 1, txPower: -59)])
        let radio = RadioModel(floorAttenuation: 10, roundsRSSI: false)
        let values = Self.rssi(venue, at: 3, 0, floor: 0, radio: radio)
        #expect(abs((values.first ?? 0) - -82.9794) < 1e-4)
        // On floor 1 itself: d = √(3² + 1²) = 3.1623, −59 − 10 = −69, no floor loss.
        let same = Self.rssi(venue, at: 3, 0, floor: 1, radio: radio)
        #expect(abs((same.first ?? 0) - -69) < 1e-9)
    }

    // MARK: Truth

    @Test func truthNamesTheSmallestPlaceContainingThePosition() {
        let venue = Venue(floors: [Venue.Floor(level: 0), Venue.Floor(level: 1)], beacons: [], places: [
            Venue.Place(id: "big", shape: .circle(center: PlanarPoint(x: 0, y: 0), radius: 10, coordinate: nil)),
            Venue.Place(id: "small", shape: .circle(center: PlanarPoint(x: 1, y: 0), radius: 2, coordinate: nil)),
            // Area 4 × 2 = 8, smaller than the small circle's π·2² = 12.57.
            Venue.Place(id: "room", shape: .polygon([PlanarPoint(x: -1, y: -1), PlanarPoint(x: 3, y: -1),
                                                    PlanarPoint(x: 3, y: 1), PlanarPoint(x: -1, y: 1)])),
            Venue.Place(id: "label"),
            Venue.Place(id: "upstairs", floor: 1, shape: .circle(center: PlanarPoint(x: 0, y: 0), radius: 1, coordinate: nil)),
        ])
        func truth(_ x: Double, _ y: Double, floor: Int = 0) -> GroundTruth? {
            Simulator(venue: venue, walk: Self.standing(x: x, y: y, floor: floor, scans: 1)).firstScan?.truth
        }
        #expect(truth(0, 0)?.place == "room")
        #expect(truth(1, 1.5)?.place == "small")
        #expect(truth(8, 0)?.place == "big")
        #expect(truth(20, 0)?.place == nil)
        #expect(truth(0, 0, floor: 1)?.place == "upstairs")
        #expect(truth(5, 0, floor: 1)?.place == nil)
        #expect(truth(1, 1.5) == GroundTruth(x: 1, y: 1.5, z: 1.2, floor: 0, place: "small"))
    }

    @Test func truthIsRoundedWhenAsked() {
        // (1/3, 2/3) to two decimal places is (0.33, 0.67); without rounding it stays exact.
        let scans = Array(Simulator(venue: Venue(), walk: Walk(waypoints: [Walk.Waypoint(x: 1.0 / 3, y: 2.0 / 3)]),
                                    truthDecimalPlaces: 2))
        #expect(scans.first?.truth?.x == 0.33 && scans.first?.truth?.y == 0.67)
        let unrounded = Simulator(venue: Venue(), walk: Walk(waypoints: [Walk.Waypoint(x: 1.0 / 3, y: 0)])).firstScan
        #expect(unrounded?.truth?.x == 1.0 / 3)
    }

    // MARK: Presets and recording lines

    @Test func presetsAreFoundByName() {
        #expect(SimulationPreset(rawValue: "espresense-room") == .espresenseRoom)
        #expect(SimulationPreset(rawValue: "example") == .example)
        #expect(SimulationPreset(rawValue: "nope") == nil)
        #expect(SimulationPreset.allCases.map(\.name) == ["espresense-room", "example"])
    }

    @Test func espresenseRoomIsTheCompanionScenario() {
        let preset = SimulationPreset.espresenseRoom
        #expect(preset.venue.beacons.count == 4)
        #expect(preset.venue.beacons.allSatisfy { $0.z == 2 })
        #expect(preset.radio.shadowing == 2.5 && preset.radio.multipathShare == 0.1 && preset.radio.multipathLoss == 6)
        guard case .polygon = preset.venue.places.first?.shape else {
            Issue.record("the room is not a polygon")
            return
        }
        #expect(preset.venue.places.first?.shape.area == 24)   // 6 × 4 m
        let scans = Array(preset.simulator(seed: 1))
        #expect(scans.allSatisfy { $0.truth?.place == "room" })
        // Four receivers within 7.2 m: all are heard (no packet loss, nothing near −100 dBm).
        #expect(scans.allSatisfy { $0.readings.count == 4 })
    }

    @Test func recordingLinesFollowTheFormat() throws {
        let scan = Scan(time: 1_700_000_000.5, device: "visitor", track: "t",
                        readings: [Reading(beacon: .id("h3-1"), rssi: -88, txPower: -59),
                                   Reading(beacon: .iBeacon(IBeaconIdentity(uuid: SimulationPreset.exampleUUID, major: 3, minor: 2)),
                                           rssi: -90.5)],
                        truth: GroundTruth(x: -80, y: 10.25, z: 1.2, floor: 0, place: "hall3"))
        let line = ScanCoding.line(for: scan)
        #expect(line == #"{"t":1700000000.5,"device":"visitor","track":"t","readings":[{"beacon":"h3-1","rssi":-88,"txPower":-59},"#
                + #"{"uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","major":3,"minor":2,"rssi":-90.5}],"#
                + #""truth":{"x":-80,"y":10.25,"z":1.2,"floor":0,"place":"hall3"}}"#)
        #expect(ScanCoding.line(for: Scan(time: 2, readings: [])) == #"{"t":2,"readings":[]}"#)
        #expect(recordingText([Scan(time: 1, readings: []), Scan(time: 2, readings: [])])
                == "{\"t\":1,\"readings\":[]}\n{\"t\":2,\"readings\":[]}\n")
    }
}

extension Simulator {
    /// The first scan, as `Collection.first` would give it.
    fileprivate var firstScan: Scan? {
        var iterator = makeIterator()
        return iterator.next()
    }
}

/// The text of a recording of `scans`, one line each, as the recording writer writes it.
func recordingText<Scans: Sequence<Scan>>(_ scans: Scans) -> String {
    var out = ""
    for scan in scans {
        out += ScanCoding.line(for: scan)
        out += "\n"
    }
    return out
}
