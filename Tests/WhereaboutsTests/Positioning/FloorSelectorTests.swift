import Foundation
import Testing
@testable import Whereabouts

@Suite struct FloorSelectorTests {
    /// Two floors with three beacons each, stacked at the same spots; all beacons at −59 dBm at 1 m.
    static let twoFloors: PositioningVenue = {
        let spots = [(0.0, 0.0), (10.0, 0.0), (5.0, 8.0)]
        var beacons: [Venue.Beacon] = []
        for floor in 0...1 {
            for (index, spot) in spots.enumerated() {
                beacons.append(Venue.Beacon(id: "f\(floor)b\(index)", x: spot.0, y: spot.1, z: 2.5, floor: floor, txPower: -59))
            }
        }
        return PositioningVenue(Venue(floors: [Venue.Floor(level: 0), Venue.Floor(level: 1)], beacons: beacons))
    }()

    /// An observation with the given RSSI per beacon index (0–2 floor 0, 3–5 floor 1).
    static func observation(_ time: Double, _ rssi: [Int: Double]) -> Observation {
        Observation(time: time, signals: rssi.map { BeaconSignal(beaconIndex: $0.key, rssi: $0.value) }, ranges: [])
    }

    static let groundStrong: [Int: Double] = [0: -70, 1: -72, 2: -75, 3: -85, 4: -88]
    static let upstairsStrong: [Int: Double] = [0: -78, 1: -80, 3: -72, 4: -73, 5: -76]

    @Test func scoresSumLinearPowerOfEachFloorsStrongestBeacons() {
        let selector = FloorSelector(venue: Self.twoFloors)
        let scores = selector.scores(Self.observation(0, [0: -59, 1: -69, 2: -79, 3: -62]))
        // Floor 0: levels 0, −10, −20 dB relative to 1 m → 1 + 0.1 + 0.01 = 1.11 → 10·log10(1.11) ≈ 0.4532 dB.
        // Floor 1: −3 dB → 10^(−0.3) ≈ 0.5012 → −3 dB.
        #expect(scores.map(\.floor) == [0, 1])
        #expect(abs(scores[0].score - 0.45323) < 1e-4)
        #expect(scores[0].beaconCount == 3)
        #expect(abs(scores[1].score - -3) < 1e-9)
    }

    @Test func firstObservationPicksTheBestFloorAtOnce() {
        var selector = FloorSelector(venue: Self.twoFloors)
        #expect(selector.floor == nil)
        #expect(selector.select(Self.observation(0, Self.upstairsStrong)) == 1)
        var other = FloorSelector(venue: Self.twoFloors)
        #expect(other.select(Self.observation(0, Self.groundStrong)) == 0)
    }

    @Test func anObservationWithoutBeaconsKeepsTheFloor() {
        var selector = FloorSelector(venue: Self.twoFloors)
        #expect(selector.select(Self.observation(0, [:])) == nil)
        #expect(selector.select(Self.observation(1, Self.upstairsStrong)) == 1)
        #expect(selector.select(Self.observation(2, [:])) == 1)
    }

    @Test func aStrayObservationDoesNotSwitch() {
        var selector = FloorSelector(venue: Self.twoFloors)
        var floors: [Int?] = []
        for second in 0..<20 {
            // At t = 10 a stray packet makes beacon 3 (floor 1) by far the loudest: floor 1 scores
            // 10·log10(10^−0.1 + 10^−2.9) ≈ −0.99 dB against floor 0's
            // 10·log10(10^−1.1 + 10^−1.3 + 10^−1.6) ≈ −8.11 dB, a lead of 7.1 dB (over the 3 dB
            // hysteresis, under the 15 dB margin), for a single observation.
            var rssi = Self.groundStrong
            if second == 10 { rssi[3] = -60 }
            floors.append(selector.select(Self.observation(Double(second), rssi)))
        }
        #expect(floors.allSatisfy { $0 == 0 })
    }

    @Test func aStrayPacketLingeringInTheLocatorDoesNotSwitch() {
        // Through the locator, a packet stays in the observations for the beacon timeout (5 s).
        var locator = Locator(venue: Self.twoFloors, solver: WeightedCentroid(venue: Self.twoFloors))
        var floors: [Int?] = []
        for second in 0..<20 {
            var readings = [Reading(beacon: .id("f0b0"), rssi: -70), Reading(beacon: .id("f0b1"), rssi: -70),
                            Reading(beacon: .id("f0b2"), rssi: -70)]
            // A floor-1 beacon heard once, 6 dB louder than any beacon of floor 0: it scores
            // −5 dB against floor 0's 10·log10(3·10^−1.1) ≈ −6.23 dB: a 1.2 dB lead, under the hysteresis.
            if second == 10 { readings.append(Reading(beacon: .id("f1b0"), rssi: -64)) }
            let fix = locator.locate(Scan(time: Double(second), readings: readings))
            floors.append(fix?.floor)
        }
        #expect(floors.allSatisfy { $0 == 0 })
        #expect(locator.currentFloor == 0)
    }

    @Test func aSustainedChangeSwitchesAfterTheConfiguredDelay() {
        // Floor 1 leads by about 7.3 dB from t = 5 (≈ −9.59 against −16.88 dB): under the 15 dB margin, so the confirmation rule
        // applies: 3 wins spanning 2 s → wins at t = 5, 6, 7 → switch at t = 7.
        var selector = FloorSelector(venue: Self.twoFloors)
        var floors: [Int?] = []
        for second in 0..<12 {
            floors.append(selector.select(Self.observation(Double(second), second < 5 ? Self.groundStrong : Self.upstairsStrong)))
        }
        #expect(floors == [0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1])

        // 5 observations spanning 1 s (a 4 Hz packet stream): the 2 s rule holds the switch back
        // until t = 2 + 2 = 4, the 9th observation from t = 2.
        var fast = FloorSelector(venue: Self.twoFloors)
        var switchedAt: Double?
        for step in 0..<30 {
            let time = Double(step) * 0.25
            let floor = fast.select(Self.observation(time, time < 2 ? Self.groundStrong : Self.upstairsStrong))
            if floor == 1, switchedAt == nil { switchedAt = time }
        }
        #expect(switchedAt == 4)

        // A slower configuration: 5 wins spanning 6 s.
        var slow = FloorSelector(venue: Self.twoFloors, configuration: .init(confirmations: 5, confirmationTime: 6))
        let slowFloors = (0..<14).map { second in
            slow.select(Self.observation(Double(second), second < 5 ? Self.groundStrong : Self.upstairsStrong))
        }
        #expect(slowFloors == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1])
    }

    @Test func aBrokenRunStartsTheCountAgain() {
        var selector = FloorSelector(venue: Self.twoFloors)
        let pattern = [false, true, true, false, true, true, false, true, true, true]
        let floors = pattern.enumerated().map { second, up in
            selector.select(Self.observation(Double(second), up ? Self.upstairsStrong : Self.groundStrong))
        }
        // Runs of two never reach three wins; the run of three from t = 7 switches at t = 9.
        #expect(floors == [0, 0, 0, 0, 0, 0, 0, 0, 0, 1])
    }

    @Test func aLargeLeadOfSeveralBeaconsSwitchesAtOnce() {
        var selector = FloorSelector(venue: Self.twoFloors)
        #expect(selector.select(Self.observation(0, Self.groundStrong)) == 0)
        // Floor 1 at −60, −61 (two beacons) against floor 0 at −85, −86: a lead of about 25 dB.
        #expect(selector.select(Self.observation(1, [0: -85, 1: -86, 3: -60, 4: -61])) == 1)

        // The same lead from one beacon only waits for confirmation.
        var single = FloorSelector(venue: Self.twoFloors)
        #expect(single.select(Self.observation(0, Self.groundStrong)) == 0)
        #expect(single.select(Self.observation(1, [0: -85, 1: -86, 3: -60])) == 0)
    }

    @Test func aFloorNoLongerHeardGivesWayAtOnce() {
        var selector = FloorSelector(venue: Self.twoFloors)
        #expect(selector.select(Self.observation(0, Self.groundStrong)) == 0)
        #expect(selector.select(Self.observation(1, [3: -80])) == 1)
    }

    @Test func resetForgetsTheFloor() {
        var selector = FloorSelector(venue: Self.twoFloors)
        #expect(selector.select(Self.observation(0, Self.groundStrong)) == 0)
        selector.reset()
        #expect(selector.floor == nil)
        #expect(selector.select(Self.observation(1, Self.upstairsStrong)) == 1)
    }

    @Test func aSingleFloorVenueAlwaysGetsItsFloor() {
        let venue = PositioningVenue(Venue(beacons: [Venue.Beacon(id: "a", x: 0, y: 0, floor: 2),
                                                     Venue.Beacon(id: "b", x: 5, y: 0, floor: 2)]))
        var selector = FloorSelector(venue: venue)
        #expect(selector.onlyFloor == 2)
        #expect(selector.select(Self.observation(0, [:])) == 2)
        #expect(selector.select(Self.observation(1, [0: -70])) == 2)
    }

    @Test func theLocatorKeepsOnlyTheChosenFloorsBeacons() {
        var locator = Locator(venue: Self.twoFloors, solver: WeightedCentroid(venue: Self.twoFloors))
        let observation = Self.observation(0, Self.upstairsStrong)
        let selected = locator.selectFloor(observation)
        #expect(selected.floor == 1)
        #expect(Set(selected.signals.map(\.beaconIndex)) == [3, 4, 5])

        var off = Locator(venue: Self.twoFloors, solver: WeightedCentroid(venue: Self.twoFloors),
                          configuration: LocatorConfiguration(floorSelection: nil))
        #expect(off.selectFloor(observation).signals.count == 5)
        #expect(off.selectFloor(observation).floor == nil)
    }

    @Test func theExampleWalkGetsItsFloorRight() {
        // The example walk goes upstairs in hall 8; measured: 0.992 of the scans on the right floor,
        // one switch, about 5 s after the truth's (the first stairs are heard from both floors).
        let preset = SimulationPreset.example
        let venue = PositioningVenue(preset.venue)
        var locator = Locator(venue: venue, solver: WeightedCentroid(venue: venue))
        var evaluation = Evaluation()
        var switches = 0
        var last: Int?
        for scan in preset.simulator(seed: 42) {
            let fix = locator.locate(scan)
            evaluation.add(truth: scan.truth, fix: fix)
            if let floor = fix?.floor, floor != last {
                if last != nil { switches += 1 }
                last = floor
            }
        }
        let accuracy = evaluation.report(dataset: "example", algorithm: "centroid", units: .metre).floorAccuracy ?? 0
        #expect(accuracy >= 0.99)
        #expect(switches == 1)
        #expect(last == 1)
    }
}
