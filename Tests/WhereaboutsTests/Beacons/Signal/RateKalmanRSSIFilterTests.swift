import Foundation
import Testing
@testable import Whereabouts

@Suite("Level-and-rate Kalman RSSI filter")
struct RateKalmanRSSIFilterTests {
    @Test func firstStepsByHand() throws {
        var filter = RateKalmanRSSIFilter()
        filter.add(rssi: -60, at: 0)
        #expect(filter.value == -60)
        #expect(filter.rate == 0)
        #expect(filter.estimateVariance == 9)
        filter.add(rssi: -62, at: 1)
        // φ = e^(−1/1.5) = 0.513417, a = 1.5·(1 − φ) = 0.729874
        // P⁻₀₀ = 9 + a² + 0.5/3 = 9.699383, P⁻₁₀ = φ·a + 0.5/2 = 0.624730, S = 18.699383
        // K = (0.518701, 0.033409); ν = −2 → level −61.037401, rate −0.066818
        #expect(abs(try #require(filter.value) - -61.037401) < 1e-5)
        #expect(abs(try #require(filter.rate) - -0.066818) < 1e-5)
        #expect(abs(try #require(filter.estimateVariance) - 4.668306) < 1e-5)
    }

    @Test func deepDropIsClippedToTwoSigma() throws {
        var filter = RateKalmanRSSIFilter()
        filter.add(rssi: -60, at: 0)
        filter.add(rssi: -80, at: 1)
        // ν = −20 is clipped to −2·√18.699383 = −8.648560; level −60 + 0.518701·ν = −64.486012
        #expect(abs(try #require(filter.value) - -64.486012) < 1e-5)
        var unclipped = try #require(RateKalmanRSSIFilter(rateNoise: 0.5, measurementNoise: 9, dropClip: 0))
        unclipped.add(rssi: -60, at: 0)
        unclipped.add(rssi: -80, at: 1)
        #expect(abs(try #require(unclipped.value) - (-60 - 20 * 0.518701)) < 1e-5)
        // A rise is never clipped.
        var rise = RateKalmanRSSIFilter()
        rise.add(rssi: -80, at: 0)
        rise.add(rssi: -60, at: 1)
        #expect(abs(try #require(rise.value) - (-80 + 20 * 0.518701)) < 1e-5)
    }

    @Test func followsARampWithLessLagThanTheScalarFilter() throws {
        var rate = RateKalmanRSSIFilter()
        var scalar = try #require(KalmanRSSIFilter(processNoise: 1, measurementNoise: 9))
        var undamped = try #require(RateKalmanRSSIFilter(rateNoise: 0.5, measurementNoise: 9, rateTimeConstant: 1e6))
        for second in 0..<30 {
            let rssi = -90 + 2 * Double(second)   // 2 dB/s towards the beacon
            rate.add(rssi: rssi, at: Double(second))
            scalar.add(rssi: rssi, at: Double(second))
            undamped.add(rssi: rssi, at: Double(second))
        }
        let truth = -90 + 2 * 29.0
        let rateLag = truth - (try #require(rate.value))
        let scalarLag = truth - (try #require(scalar.value))
        let undampedLag = truth - (try #require(undamped.value))
        // About 3.5 dB (1.7 s) against the scalar filter's 5.1 dB (2.5 s); without decay the rate
        // catches the ramp almost fully.
        #expect(rateLag > 0 && rateLag < 4)
        #expect(rateLag < scalarLag - 1)
        #expect(abs(undampedLag) < 0.5)
        #expect(abs(try #require(undamped.rate) - 2) < 0.1)
    }

    @Test func averagesAConstantLevel() throws {
        var filter = RateKalmanRSSIFilter()
        var outputs: [Double] = []
        for second in 0..<60 {
            filter.add(rssi: second.isMultiple(of: 2) ? -63 : -57, at: Double(second))
            if second >= 20 { outputs.append(try #require(filter.value)) }
        }
        // Samples scatter by 3 dB; the estimate stays within about 0.5 dB of the level.
        #expect(outputs.allSatisfy { abs($0 + 60) < 0.6 })
    }

    @Test func aLongerStepMovesFurther() throws {
        var soon = RateKalmanRSSIFilter(), late = RateKalmanRSSIFilter()
        soon.add(rssi: -60, at: 0)
        soon.add(rssi: -62, at: 1)
        late.add(rssi: -60, at: 0)
        late.add(rssi: -62, at: 4)
        #expect(try #require(late.value) < (try #require(soon.value)))
        // Two samples at the same time are fused without a prediction.
        var same = RateKalmanRSSIFilter()
        same.add(rssi: -60, at: 0)
        same.add(rssi: -62, at: 0)
        #expect(same.value == -61)
        #expect(same.rate == 0)
    }

    @Test func aGapForgetsTheRate() throws {
        var filter = RateKalmanRSSIFilter()
        for second in 0..<10 { filter.add(rssi: -80 + 2 * Double(second), at: Double(second)) }
        #expect(try #require(filter.rate) > 0.5)
        filter.add(rssi: -60, at: 20)
        #expect(filter.rate == 0)
        #expect(try #require(filter.value).isFinite)
    }

    @Test func invalidParametersAreRefused() throws {
        #expect(RateKalmanRSSIFilter(rateNoise: -1, measurementNoise: 9) == nil)
        #expect(RateKalmanRSSIFilter(rateNoise: 0.5, measurementNoise: 0) == nil)
        #expect(RateKalmanRSSIFilter(rateNoise: 0.5, measurementNoise: 9, gapReset: 0) == nil)
        #expect(RateKalmanRSSIFilter(rateNoise: 0.5, measurementNoise: 9, dropClip: .nan) == nil)
        #expect(RateKalmanRSSIFilter(rateNoise: 0.5, measurementNoise: 9, rateTimeConstant: 0) == nil)
        #expect(RSSIFilterKind(name: "Rate") == .rate)
        let built = try BuiltInRSSIFilter(kind: .rate, parameters: ["rateNoise": 1])
        #expect(built == .rate(try #require(RateKalmanRSSIFilter(rateNoise: 1, measurementNoise: 9))))
        #expect(try BuiltInRSSIFilter(kind: .rate, parameters: built.parameters) == built)
        #expect(throws: RSSIFilterConfigurationError.self) {
            try BuiltInRSSIFilter(kind: .rate, parameters: ["gapReset": -1])
        }
    }
}
