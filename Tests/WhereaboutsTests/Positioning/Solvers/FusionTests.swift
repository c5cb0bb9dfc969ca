import Testing
@testable import Whereabouts

@Suite struct FusionTests {
    /// A solver that always gives the same answer (or none).
    struct Fixed: PositionSolver {
        var estimate: PositionEstimate?
        var name: String { "fixed" }
        func locate(_ observation: Observation) -> PositionEstimate? { estimate }

        init(_ x: Double, _ y: Double, z: Double = 0, accuracy: Double, beacons: Int = 1) {
            estimate = PositionEstimate(point: SpatialPoint(x: x, y: y, z: z), accuracy: accuracy, beaconCount: beacons)
        }

        init(nothing: Void) { estimate = nil }
    }

    static let observation = Observation(time: 0, signals: [BeaconSignal(beaconIndex: 0, rssi: -60)], ranges: [])

    @Test func trustsWeighTheAnswers() throws {
        // Trusts 3 and 1 → 0.75 and 0.25: P = 0.75·(0, 0) + 0.25·(4, 0) = (1, 0); z = 0.75·1 + 0.25·3 = 1.5.
        // Radius √(0.75·(1² + 1²) + 0.25·(2² + 3²)) = √(1.5 + 3.25) = √4.75 = 2.179449.
        let fusion = TrustFusion([(Fixed(0, 0, z: 1, accuracy: 1, beacons: 3), 3), (Fixed(4, 0, z: 3, accuracy: 2, beacons: 5), 1)])
        #expect(fusion.normalizedTrusts == [0.75, 0.25])
        let estimate = try #require(fusion.locate(Self.observation))
        #expect(abs(estimate.point.x - 1) < 1e-12 && abs(estimate.point.y) < 1e-12)
        #expect(abs(estimate.point.z - 1.5) < 1e-12)
        #expect(abs(estimate.accuracy - 4.75.squareRoot()) < 1e-12)
        #expect(estimate.beaconCount == 5)
        #expect(fusion.name == "fusion")
    }

    @Test func aMemberWithoutAnAnswerIsLeftOut() throws {
        // The silent member's trust 5 drops out; 3 and 1 renormalise to 0.75 and 0.25 as above.
        let fusion = TrustFusion([(Fixed(nothing: ()), 5), (Fixed(0, 0, accuracy: 1), 3), (Fixed(4, 0, accuracy: 2), 1)])
        let ninths: [Double] = [5.0 / 9, 3.0 / 9, 1.0 / 9]
        #expect(fusion.normalizedTrusts == ninths)
        let estimate = try #require(fusion.locate(Self.observation))
        #expect(abs(estimate.point.x - 1) < 1e-12)
        #expect(abs(estimate.accuracy - 4.75.squareRoot()) < 1e-12)
        // A non-finite answer counts as none.
        let broken = TrustFusion([(Fixed(.nan, 0, accuracy: 1), 1), (Fixed(2, 6, accuracy: 1), 1)])
        #expect(broken.locate(Self.observation)?.point == SpatialPoint(x: 2, y: 6, z: 0))
    }

    @Test func allZeroTrustsMeanEqualTrusts() throws {
        // Equal: P = (2, 0) at (0, 0) and (4, 0); radius √(0.5·(1² + 2²) + 0.5·(2² + 2²)) = √6.5.
        let fusion = TrustFusion([(Fixed(0, 0, accuracy: 1), 0), (Fixed(4, 0, accuracy: 2), 0)])
        #expect(fusion.normalizedTrusts == [0.5, 0.5])
        let estimate = try #require(fusion.locate(Self.observation))
        #expect(abs(estimate.point.x - 2) < 1e-12)
        #expect(abs(estimate.accuracy - 6.5.squareRoot()) < 1e-12)
        // Negative and non-finite trusts count as zero.
        let odd = TrustFusion([(Fixed(0, 0, accuracy: 1), -2), (Fixed(4, 0, accuracy: 2), .nan), (Fixed(8, 0, accuracy: 1), 2)])
        #expect(odd.normalizedTrusts == [0, 0, 1])
        #expect(odd.locate(Self.observation)?.point.x == 8)
    }

    @Test func noUsableAnswerGivesNil() {
        #expect(TrustFusion([(solver: any PositionSolver, trust: Double)]()).locate(Self.observation) == nil)
        #expect(TrustFusion([(Fixed(nothing: ()), 1), (Fixed(nothing: ()), 1)]).locate(Self.observation) == nil)
        // Trust 0 means "do not use": the only answer comes from a member that is not trusted.
        #expect(TrustFusion([(Fixed(nothing: ()), 1), (Fixed(1, 1, accuracy: 1), 0)]).locate(Self.observation) == nil)
    }

    @Test func agreeingMembersKeepTheirRadiusAndLargeCoordinatesStayExact() throws {
        // Same point: no disagreement, radius √(0.5·3² + 0.5·3²) = 3. Far from the origin the
        // result stays exact: (1e7 + 1, 2e7) from 1e7 and 1e7 + 2.
        let same = TrustFusion([(Fixed(5, 5, accuracy: 3), 1), (Fixed(5, 5, accuracy: 3), 2)])
        #expect(same.locate(Self.observation)?.accuracy == 3)
        let far = TrustFusion([(Fixed(1e7, 2e7, accuracy: 1), 1), (Fixed(1e7 + 2, 2e7, accuracy: 1), 1)])
        let estimate = try #require(far.locate(Self.observation))
        #expect(estimate.point.x == 1e7 + 1)
        // √(0.5·(1 + 1) + 0.5·(1 + 1)) = √2.
        #expect(abs(estimate.accuracy - 2.0.squareRoot()) < 1e-9)
    }

    @Test func fusesRealSolvers() throws {
        // A centroid and a fingerprint solver on two beacons: the fused point lies between theirs.
        let venue = PositioningVenue(Venue(beacons: [Venue.Beacon(id: "a", x: 0, y: 0), Venue.Beacon(id: "b", x: 10, y: 0)]))
        let training = [Scan(time: 0, readings: [Reading(beacon: .id("a"), rssi: -50), Reading(beacon: .id("b"), rssi: -80)],
                             truth: GroundTruth(x: 1, y: 0)),
                        Scan(time: 1, readings: [Reading(beacon: .id("a"), rssi: -80), Reading(beacon: .id("b"), rssi: -50)],
                             truth: GroundTruth(x: 9, y: 0))]
        let knn = FingerprintSolver(venue: venue, training: training,
                                    options: FingerprintSolver.Options(k: 1, metric: .euclidean, queryFilter: nil))
        let centroid = WeightedCentroid(venue: venue)
        let observation = Observation(time: 0, signals: [BeaconSignal(beaconIndex: 0, rssi: -50),
                                                         BeaconSignal(beaconIndex: 1, rssi: -80)], ranges: [])
        let a = try #require(knn.locate(observation)), b = try #require(centroid.locate(observation))
        let fused = try #require(TrustFusion([(knn, 1), (centroid, 1)]).locate(observation))
        #expect(abs(fused.point.x - (a.point.x + b.point.x) / 2) < 1e-12)
        #expect(fused.isFinite)
    }
}
