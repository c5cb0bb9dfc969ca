import Foundation
import Testing
@testable import Whereabouts

private func close(_ a: Double?, _ b: Double, tolerance: Double = 1e-9) -> Bool {
    guard let a else { return false }
    return abs(a - b) <= tolerance
}

@Suite("Distance models")
struct DistanceModelTests {
    // MARK: Log-distance path loss

    @Test func logDistanceHandValues() throws {
        let model = LogDistancePathLossModel()
        // d = 10^((-59 + 65) / (10 × 2)) = 10^0.3 = 1.9952623…
        #expect(close(model.distance(rssi: -65, txPower: -59), 1.9952623149688795))
        // at txPower the distance is 1 m; 20 dB weaker with n = 2 is 10 m
        #expect(close(model.distance(rssi: -59, txPower: -59), 1))
        #expect(close(model.distance(rssi: -79, txPower: -59), 10))
        // σ_d = d × ln 10 / (10 n) × σ = 1.9952623 × 2.3025851 / 20 × 2 = 0.4594261…
        let range = try #require(model.range(rssi: -65, txPower: -59, rssiStandardDeviation: 2))
        #expect(close(range.distance, 1.9952623149688795))
        #expect(close(range.standardDeviation, 0.4594261263060133))
        #expect(close(range.variance, 0.4594261263060133 * 0.4594261263060133))
        // slope dd/drssi = -d ln 10 / 20 = -0.2297131…
        #expect(close(model.distanceSlope(rssi: -65, txPower: -59), -0.22971306315300665))
    }

    @Test func logDistanceExponent() throws {
        let model = try #require(LogDistancePathLossModel(exponent: 2.5))
        // d = 10^(25 / 25) = 10; inverse: -59 - 25 × log10(10) = -84
        #expect(close(model.distance(rssi: -84, txPower: -59), 10))
        #expect(close(model.expectedRSSI(atDistance: 10, txPower: -59), -84))
        // σ_d = 10 × ln 10 / 25 × 3 = 2.7631021…
        #expect(close(model.range(rssi: -84, txPower: -59, rssiStandardDeviation: 3)?.standardDeviation,
                      10 * M_LN10 / 25 * 3))
        #expect(LogDistancePathLossModel(exponent: 0) == nil)
        #expect(LogDistancePathLossModel(exponent: -2) == nil)
        #expect(LogDistancePathLossModel(exponent: .nan) == nil)
    }

    @Test func logDistanceInverse() {
        let model = LogDistancePathLossModel()
        // -59 - 20 × log10(2) = -65.0205999…
        #expect(close(model.expectedRSSI(atDistance: 2, txPower: -59), -59 - 20 * log10(2.0)))
        for distance in [0.1, 0.5, 1, 3.7, 25] {
            let rssi = model.expectedRSSI(atDistance: distance, txPower: -59)
            #expect(close(rssi.flatMap { model.distance(rssi: $0, txPower: -59) }, distance, tolerance: 1e-9))
        }
        // 1 mm from a -59 dBm beacon the model predicts -59 + 60 = +1 dBm: no valid RSSI
        #expect(model.expectedRSSI(atDistance: 0.001, txPower: -59) == nil)
    }

    // MARK: AltBeacon curve fit

    @Test func curveFitHandValues() throws {
        let model = CurveFittedDistanceModel()
        // rssi -65, txPower -59: ratio = 65 / 59 = 1.1016949 ≥ 1
        // d = 0.42093 × 1.1016949^6.9476 + 0.54992 = 0.42093 × 1.9597 + 0.54992 = 1.3748845…
        #expect(close(model.distance(rssi: -65, txPower: -59), 1.3748845371363925))
        // slope = c1 c2 ratio^(c2 - 1) / txPower = 0.42093 × 6.9476 × 1.1016949^5.9476 / -59 = -0.0881773…
        #expect(close(model.distanceSlope(rssi: -65, txPower: -59), -0.08817728643398157))
        // σ_d = 0.0881773 × 2 = 0.1763546
        #expect(close(model.range(rssi: -65, txPower: -59, rssiStandardDeviation: 2)?.standardDeviation,
                      2 * 0.08817728643398157))
        // rssi -50: ratio = 50 / 59 = 0.8474576 < 1 → d = ratio^10 = 0.1910645…
        #expect(close(model.distance(rssi: -50, txPower: -59), 0.19106446691360568))
        // slope = 10 × ratio^9 / txPower = -0.0382129…
        #expect(close(model.distanceSlope(rssi: -50, txPower: -59), -0.038212893382721144))
        // at txPower: ratio 1 takes the second branch, c1 + c3 = 0.97085
        #expect(close(model.distance(rssi: -59, txPower: -59), 0.97085))
    }

    @Test func curveFitInverseRoundTrips() {
        let model = CurveFittedDistanceModel()
        for distance in [0.05, 0.5, 0.99, 1, 1.3748845371363925, 4, 30] {
            let rssi = model.expectedRSSI(atDistance: distance, txPower: -59)
            #expect(close(rssi.flatMap { model.distance(rssi: $0, txPower: -59) }, distance, tolerance: 1e-9))
        }
        // the second branch at 1.3748845 m gives back -65 dBm
        #expect(close(model.expectedRSSI(atDistance: 1.3748845371363925, txPower: -59), -65, tolerance: 1e-9))
    }

    @Test func curveFitCustomCoefficients() throws {
        // AltBeacon's Nexus 5 fit has a negative offset: 0.1862616782 ratio^8.235367435 - 0.45324519
        let nexus5 = try #require(CurveFittedDistanceModel(coefficient1: 0.1862616782, coefficient2: 8.235367435,
                                                           coefficient3: -0.45324519))
        // at ratio 1 the curve is 0.18626 - 0.45325 < 0: no distance rather than a negative one
        #expect(nexus5.distance(rssi: -59, txPower: -59) == nil)
        // ratio 1.5: 0.1862616782 × 1.5^8.235367435 - 0.45324519
        #expect(close(nexus5.distance(rssi: -88.5, txPower: -59),
                      0.1862616782 * pow(1.5, 8.235367435) - 0.45324519))
        // a fit whose second branch starts at c1 + c3 = 1.2 m has no RSSI for 1 m ≤ d < 1.2 m
        let gap = try #require(CurveFittedDistanceModel(coefficient1: 0.7, coefficient2: 5, coefficient3: 0.5))
        #expect(gap.expectedRSSI(atDistance: 1.1, txPower: -59) == nil)
        #expect(gap.expectedRSSI(atDistance: 1.2, txPower: -59) == -59)   // ratio ((1.2 - 0.5) / 0.7)^(1/5) = 1
        #expect(CurveFittedDistanceModel(coefficient1: 0, coefficient2: 1, coefficient3: 0) == nil)
        #expect(CurveFittedDistanceModel(coefficient1: 1, coefficient2: -1, coefficient3: 0) == nil)
        #expect(CurveFittedDistanceModel(coefficient1: 1, coefficient2: 1, coefficient3: .nan) == nil)
    }

    // MARK: Slopes agree with the curves

    @Test func slopesMatchFiniteDifferences() throws {
        let models: [any DistanceModel] = [LogDistancePathLossModel(), CurveFittedDistanceModel(),
                                           try #require(LogDistancePathLossModel(exponent: 3.3))]
        let step = 1e-5
        for model in models {
            for rssi in [-40.0, -55, -58, -62, -70, -85, -98] {
                let slope = try #require(model.distanceSlope(rssi: rssi, txPower: -59))
                let above = try #require(model.distance(rssi: rssi + step, txPower: -59))
                let below = try #require(model.distance(rssi: rssi - step, txPower: -59))
                let numeric = (above - below) / (2 * step)
                #expect(abs(slope - numeric) <= 1e-6 * max(1, abs(slope)), "\(model) at \(rssi)")
                #expect(slope < 0)   // weaker signal, longer distance
            }
        }
    }

    // MARK: Edge cases

    @Test func edgeCasesGiveNoRange() {
        let models: [any DistanceModel] = [LogDistancePathLossModel(), CurveFittedDistanceModel()]
        for model in models {
            for (rssi, txPower) in [(0.0, -59.0), (5, -59), (-65, 0), (-65, 4), (.nan, -59), (-65, .nan),
                                    (-.infinity, -59), (-65, -.infinity), (.infinity, -59)] {
                #expect(model.distance(rssi: rssi, txPower: txPower) == nil)
                #expect(model.distanceSlope(rssi: rssi, txPower: txPower) == nil)
                #expect(model.range(rssi: rssi, txPower: txPower, rssiStandardDeviation: 2) == nil)
            }
            for sigma in [-1.0, .nan, .infinity] {
                #expect(model.range(rssi: -65, txPower: -59, rssiStandardDeviation: sigma) == nil)
            }
            #expect(model.range(rssi: -65, txPower: -59, rssiStandardDeviation: 0)?.standardDeviation == 0)
            for distance in [0.0, -1, .nan, .infinity] {
                #expect(model.expectedRSSI(atDistance: distance, txPower: -59) == nil)
            }
            #expect(model.expectedRSSI(atDistance: 2, txPower: 0) == nil)
            #expect(model.expectedRSSI(atDistance: 2, txPower: .nan) == nil)
        }
        // finite inputs whose distance overflows: (-59 + 1e6) / 20 = 49997 decades
        #expect(LogDistancePathLossModel().distance(rssi: -1e6, txPower: -59) == nil)
        #expect(CurveFittedDistanceModel().distance(rssi: -1e300, txPower: -1e-300) == nil)
        // a tiny ratio underflows to 0 m: no distance rather than 0
        #expect(CurveFittedDistanceModel().distance(rssi: -1e-40, txPower: -59) == nil)
    }
}

@Suite("Proximity")
struct ProximityTests {
    @Test func defaultThresholds() {
        #expect(Proximity(distance: 0) == .immediate)
        #expect(Proximity(distance: 0.49) == .immediate)
        #expect(Proximity(distance: 0.5) == .near)      // d < 0.5 only is immediate
        #expect(Proximity(distance: 2.99) == .near)
        #expect(Proximity(distance: 3) == .far)         // d < 3 only is near
        #expect(Proximity(distance: 40) == .far)
        #expect(Proximity(distance: nil) == .unknown)
        #expect(Proximity(distance: -1) == .unknown)
        #expect(Proximity(distance: .nan) == .unknown)
        #expect(Proximity(distance: .infinity) == .unknown)
    }

    @Test func customThresholds() throws {
        let thresholds = try #require(Proximity.Thresholds(immediate: 1, near: 5))
        #expect(Proximity(distance: 0.7, thresholds: thresholds) == .immediate)
        #expect(Proximity(distance: 4, thresholds: thresholds) == .near)
        #expect(Proximity(distance: 5, thresholds: thresholds) == .far)
        #expect(Proximity.Thresholds(immediate: 0, near: 3) == nil)
        #expect(Proximity.Thresholds(immediate: 4, near: 3) == nil)
        #expect(Proximity.Thresholds(immediate: 1, near: .infinity) == nil)
        #expect(Proximity.Thresholds(immediate: 2, near: 2) != nil)
    }

    @Test func orderedByCloseness() {
        #expect(Proximity.immediate < .near)
        #expect(Proximity.near < .far)
        #expect(Proximity.far < .unknown)
        #expect(!(Proximity.unknown < .immediate))
        #expect([Proximity.unknown, .far, .immediate, .near, .far].sorted() == [.immediate, .near, .far, .far, .unknown])
    }

    @Test func fromRanges() {
        let model = LogDistancePathLossModel()
        // -59 dBm at 1 m; -50 dBm → 10^(-9/20) = 0.355 m; -65 → 1.995 m; -80 → 10^(21/20) = 11.2 m
        #expect(model.range(rssi: -50, txPower: -59, rssiStandardDeviation: 2)?.proximity() == .immediate)
        #expect(Proximity(model.range(rssi: -65, txPower: -59, rssiStandardDeviation: 2)) == .near)
        #expect(Proximity(model.range(rssi: -80, txPower: -59, rssiStandardDeviation: 2)) == .far)
        #expect(Proximity(model.range(rssi: 0, txPower: -59, rssiStandardDeviation: 2)) == .unknown)
    }
}
