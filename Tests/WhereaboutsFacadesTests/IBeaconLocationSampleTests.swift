import Foundation
import Testing
import Whereabouts
import WhereaboutsFacades

// The seed's names, unqualified, as an app ported from it declares them.
typealias BeaconLocation = IBeaconLocationFacade.BeaconLocation
typealias Beacon = IBeaconLocationFacade.Beacon
typealias BeaconCircle = IBeaconLocationFacade.BeaconCircle
typealias AlgorithmType = IBeaconLocationFacade.AlgorithmType
typealias CustomAlgorithm = IBeaconLocationFacade.CustomAlgorithm
typealias BeaconLocationError = IBeaconLocationFacade.BeaconLocationError

/// IBeaconLocation's sample and algorithms on circles worked out by hand: three beacons at
/// (0, 0), (10, 0) and (0, 10) m, ranged with CoreLocation's `accuracy` as each circle's radius.
@Suite("IBeaconLocation sample")
struct IBeaconLocationSampleTests {
    static let uuid = UUID(uuidString: "01234567-89AB-CDEF-0123-456789ABCDEF")!

    static func location() -> BeaconLocation {
        let location = BeaconLocation(uuid: uuid, identifier: "office")
        location.floor.addBeacon(major: 1, minor: 1, x: 0, y: 0)
        location.floor.addBeacon(major: 1, minor: 2, x: 10, y: 0)
        location.floor.addBeacon(major: 1, minor: 3, position: PlanarPoint(x: 0, y: 10))
        return location
    }

    /// A ranging round whose accuracies are the distances from `(x, y)` to the beacons given.
    static func round(at time: Double, from x: Double, _ y: Double, minors: [UInt16] = [1, 2, 3]) -> Scan {
        let positions: [UInt16: (Double, Double)] = [1: (0, 0), 2: (10, 0), 3: (0, 10)]
        return Scan(time: time, readings: minors.map { minor in
            let (bx, by) = positions[minor]!
            let distance = ((x - bx) * (x - bx) + (y - by) * (y - by)).squareRoot()
            return Reading(beacon: .iBeacon(IBeaconIdentity(uuid: uuid, major: 1, minor: minor)), rssi: -70, distance: distance)
        })
    }

    /// A custom algorithm that always answers (5, 5), as the seed's trust example's second algorithm.
    struct FiveFive: CustomAlgorithm {
        func position(from circles: [BeaconCircle]) -> PlanarPoint? { PlanarPoint(x: 5, y: 5) }
    }

    @Test func theFloorAddsFindsAndRemovesBeaconsByMajorAndMinor() {
        let location = Self.location()
        #expect(location.floor.hasBeacon(major: 1, minor: 2))
        #expect(location.floor.beacon(major: 1, minor: 3) == Beacon(major: 1, minor: 3, x: 0, y: 10))
        location.floor.addBeacon(major: 1, minor: 3, x: 1, y: 9, z: 2.5)   // moved
        #expect(location.floor.beacon(major: 1, minor: 3) == Beacon(major: 1, minor: 3, x: 1, y: 9, z: 2.5))
        location.floor.removeBeacon(major: 1, minor: 2)
        #expect(!location.floor.hasBeacon(major: 1, minor: 2) && location.floor.beacons.count == 2)
        location.floor.removeAllBeacons()
        #expect(location.floor.beacons.isEmpty)
    }

    /// From (3, 4) the radii are 5, √65 and √45: the three circles meet at (3, 4), which every
    /// algorithm must find. PowerCenter is the default.
    @Test(arguments: [AlgorithmType.powerCenter, .sphereIntersection, .epta])
    func eachAlgorithmFindsTheCommonPointOfThreeCircles(_ algorithm: AlgorithmType) async throws {
        let location = Self.location()
        #expect(location.processor.algorithms == [.powerCenter: 1])
        try location.processor.setAlgorithm(algorithm)
        let fix = try #require(await location.processor.process(Self.round(at: 0, from: 3, 4)))
        #expect(abs(fix.point.x - 3) < 1e-6 && abs(fix.point.y - 4) < 1e-6)
        #expect(location.processor.position == fix)
    }

    /// The seed's trust example: PowerCenter answers (1, 1) (the circles from (1, 1)), the custom
    /// algorithm (5, 5). Equal trusts give (3, 3); the second twice as important gives
    /// (1 + 2·5)/3 = 3.67 on each axis; all trusts zero count as equal.
    @Test func trustsWeighTheAlgorithmsAnswers() async throws {
        let location = Self.location()
        location.processor.customAlgorithm = FiveFive()
        try location.processor.setAlgorithms([.powerCenter, .custom], trusts: [1, 1])
        var fix = try #require(await location.processor.process(Self.round(at: 0, from: 1, 1)))
        #expect(abs(fix.point.x - 3) < 1e-9 && abs(fix.point.y - 3) < 1e-9)
        try location.processor.setAlgorithmsAndTrusts([.powerCenter: 5, .custom: 10])
        fix = try #require(await location.processor.process(Self.round(at: 1, from: 1, 1)))
        #expect(abs(fix.point.x - 11.0 / 3) < 1e-9 && abs(fix.point.y - 11.0 / 3) < 1e-9)
        try location.processor.setAlgorithms([.powerCenter, .custom], trusts: [0, 0])
        fix = try #require(await location.processor.process(Self.round(at: 2, from: 1, 1)))
        #expect(abs(fix.point.x - 3) < 1e-9 && abs(fix.point.y - 3) < 1e-9)
    }

    @Test func theCustomAlgorithmMustBeSetBeforeItIsSelected() throws {
        let location = Self.location()
        #expect(throws: BeaconLocationError.customAlgorithmNotSet) { try location.processor.setAlgorithm(.custom) }
        #expect(throws: BeaconLocationError.noAlgorithm) { try location.processor.setAlgorithms([], trusts: []) }
        #expect(throws: BeaconLocationError.trustsMismatch(algorithms: 2, trusts: 1)) {
            try location.processor.setAlgorithms([.epta, .powerCenter], trusts: [1])
        }
        #expect(throws: BeaconLocationError.invalidTrust(.epta, -1)) { try location.processor.setAlgorithms([.epta], trusts: [-1]) }
        #expect(throws: BeaconLocationError.invalidUUID("nope")) { try BeaconLocation(uuidString: "nope", identifier: "x") }
        location.processor.customAlgorithm = FiveFive()
        try location.processor.setAlgorithm(.custom)
        #expect(location.processor.algorithms == [.custom: 1])
    }

    /// Fewer than three beacons give no position (the original crashed); the map changes while
    /// running: a beacon removed and added back is used at once.
    @Test func fewerThanThreeBeaconsGiveNoPositionAndTheMapChangesWhileRunning() async throws {
        let location = Self.location()
        #expect(await location.processor.process(Self.round(at: 0, from: 3, 4, minors: [1, 2])) == nil)
        #expect(await location.processor.process(Self.round(at: 1, from: 3, 4)) != nil)
        location.floor.removeBeacon(major: 1, minor: 3)
        #expect(await location.processor.process(Self.round(at: 2, from: 3, 4)) == nil)
        location.floor.addBeacon(major: 1, minor: 3, x: 0, y: 10)
        let fix = try #require(await location.processor.process(Self.round(at: 3, from: 3, 4)))
        #expect(abs(fix.point.x - 3) < 1e-6 && abs(fix.point.y - 4) < 1e-6)
    }

    /// The sample's way of running: positions from every round of a source, heard by a callback.
    @Test func rangingFromASourceReportsEachPosition() async throws {
        let location = Self.location()
        let heard = Collected<Fix>()
        location.processor.setPositionHandler { heard.append($0) }
        try await location.startRanging(ScanSource(scans: [Self.round(at: 0, from: 3, 4), Self.round(at: 1, from: 6, 2)]))
        let points = heard.values.map { (($0.point.x * 1e6).rounded() / 1e6, ($0.point.y * 1e6).rounded() / 1e6) }
        #expect(points.count == 2 && points[0] == (3, 4) && points[1] == (6, 2))
    }
}
