import Testing
@testable import Whereabouts

/// Feeds `values` one second apart from `start`.
private func feed<F: RSSIFilter>(_ filter: inout F, _ values: [Double], from start: Double = 0) {
    for (offset, value) in values.enumerated() {
        filter.add(rssi: value, at: start + Double(offset))
    }
}

private func close(_ a: Double?, _ b: Double, tolerance: Double = 1e-9) -> Bool {
    guard let a else { return false }
    return abs(a - b) <= tolerance
}

@Suite("RSSI filters")
struct RSSIFilterTests {
    // MARK: Running average (AltBeacon)

    @Test func runningAverageTrimsTwoAtEachEndOfTen() throws {
        var filter = RunningAverageRSSIFilter()
        feed(&filter, [-50, -95, -70, -72, -68, -71, -69, -73, -67, -90])
        // sorted: -95 -90 | -73 -72 -71 -70 -69 -68 | -67 -50
        // n = 10 → cut 10/10 + 1 = 2 at each end; kept sum = -423, mean = -423 / 6 = -70.5
        #expect(filter.value == -70.5)
    }

    @Test func runningAverageTrimsThreeAtEachEndOfTwenty() throws {
        var filter = RunningAverageRSSIFilter()
        feed(&filter, [-50, -95, -70, -72, -68, -71, -69, -73, -67, -90,
                       -100, -40, -70, -70, -71, -69, -72, -68, -70, -70])
        // sorted: -100 -95 -90 | -73 -72 -72 -71 -71 -70 -70 -70 -70 -70 -69 -69 -68 -68 | -67 -50 -40
        // n = 20 → cut 20/10 + 1 = 3 at each end (so -67 goes too); kept 14 samples,
        // sum = -73 - 144 - 142 - 350 - 138 - 136 = -983, mean = -983 / 14 = -70.2142857…
        #expect(close(filter.value, -983.0 / 14))
    }

    @Test func runningAverageSmallCounts() {
        var filter = RunningAverageRSSIFilter()
        #expect(filter.value == nil)
        filter.add(rssi: -60, at: 0)
        #expect(filter.value == -60)
        filter.add(rssi: -70, at: 1)
        // n = 2: no trimming, (-60 - 70) / 2
        #expect(filter.value == -65)
        filter.add(rssi: -90, at: 2)
        // n = 3: cut 3/10 + 1 = 1 at each end → the middle sample, -70
        #expect(filter.value == -70)
    }

    @Test func runningAverageWindowExpiry() throws {
        var filter = try #require(RunningAverageRSSIFilter(window: 20))
        filter.add(rssi: -90, at: 0)
        filter.add(rssi: -60, at: 10)
        #expect(filter.value == -75)          // (-90 - 60) / 2
        filter.add(rssi: -70, at: 20)
        // at 20 the sample of 0 is 20 s old: not younger than the window, gone → (-60 - 70) / 2
        #expect(filter.value == -65)
        #expect(filter.value(at: 29.5) == -65) // 29.5 - 10 = 19.5 < 20: both still count
        #expect(filter.value(at: 30) == -70)   // 30 - 10 = 20: only the sample of 20 left
        #expect(filter.value(at: 40) == nil)   // nothing younger than 20 s
        filter.reset()
        #expect(filter.value == nil)
        #expect(filter.window == 20)
    }

    @Test func runningAverageRejectsBadParameters() {
        #expect(RunningAverageRSSIFilter(window: 0) == nil)
        #expect(RunningAverageRSSIFilter(window: -1) == nil)
        #expect(RunningAverageRSSIFilter(window: .infinity) == nil)
        #expect(RunningAverageRSSIFilter(window: .nan) == nil)
        #expect(RunningAverageRSSIFilter().window == 20)
    }

    @Test func lateSampleOutsideTheWindowIsNotKept() {
        var filter = RunningAverageRSSIFilter()
        filter.add(rssi: -60, at: 100)
        filter.add(rssi: -90, at: 70)     // 30 s older than the newest: outside the 20 s window
        #expect(filter.value == -60)
        filter.add(rssi: -70, at: 95)     // late but inside the window
        #expect(filter.value == -65)
    }

    // MARK: ARMA (AltBeacon)

    @Test func armaSeries() {
        var filter = ARMARSSIFilter()
        #expect(filter.value == nil)
        filter.add(rssi: -60, at: 0)
        #expect(close(filter.value, -60))     // the first sample initialises
        filter.add(rssi: -70, at: 1)
        #expect(close(filter.value, -61))     // -60 - 0.1 × (-60 + 70) = -61
        filter.add(rssi: -80, at: 2)
        #expect(close(filter.value, -62.9))   // -61 - 0.1 × (-61 + 80) = -62.9
        // no window: the estimate stays however late it is read
        #expect(close(filter.value(at: 1_000), -62.9))
        filter.reset()
        #expect(filter.value == nil)
    }

    @Test func armaCoefficient() throws {
        var filter = try #require(ARMARSSIFilter(coefficient: 0.5))
        feed(&filter, [-60, -70])
        #expect(close(filter.value, -65))     // -60 - 0.5 × 10
        #expect(ARMARSSIFilter(coefficient: 0) == nil)
        #expect(ARMARSSIFilter(coefficient: 1.5) == nil)
        #expect(ARMARSSIFilter(coefficient: .nan) == nil)
        #expect(ARMARSSIFilter(coefficient: 1) != nil)
    }

    // MARK: Kalman (room-assistant / kalmanjs)

    @Test func kalmanFirstThreeSteps() {
        var filter = KalmanRSSIFilter()
        filter.add(rssi: -60, at: 0)
        // first sample: x = z = -60, p = Q = 4
        #expect(filter.value == -60)
        #expect(filter.estimateVariance == 4)
        filter.add(rssi: -70, at: 1)
        // p⁻ = 4 + 0.008 = 4.008; K = 4.008 / 8.008 = 0.5004995…
        // x = -60 + K × (-10) = -65.004995…; p = (1 - K) × 4.008 = 16.032 / 8.008 = 2.001998…
        #expect(close(filter.value, -60 - 10 * 4.008 / 8.008))
        #expect(close(filter.estimateVariance, 16.032 / 8.008))
        filter.add(rssi: -80, at: 2)
        // p⁻ = 2.001998 + 0.008 = 2.009998; K = 2.009998 / 6.009998 = 0.3344424
        // x = -65.004995 + 0.3344424 × (-80 + 65.004995) = -70.019960; p = (1 - K) × p⁻ = 1.337769
        #expect(close(filter.value, -70.01996008, tolerance: 1e-7))
        #expect(close(filter.estimateVariance, 1.33776950, tolerance: 1e-7))
        filter.reset()
        #expect(filter.value == nil && filter.estimateVariance == nil)
    }

    @Test func kalmanParameters() throws {
        let filter = try #require(KalmanRSSIFilter(processNoise: 0, measurementNoise: 1))
        var copy = filter
        feed(&copy, [-60, -70])
        // p⁻ = 1 + 0 = 1; K = 1 / 2; x = -60 + 0.5 × (-10) = -65
        #expect(copy.value == -65)
        #expect(KalmanRSSIFilter(processNoise: -1, measurementNoise: 4) == nil)
        #expect(KalmanRSSIFilter(processNoise: 0.1, measurementNoise: 0) == nil)
        #expect(KalmanRSSIFilter(processNoise: .infinity, measurementNoise: 4) == nil)
    }

    // MARK: Median with IQR rejection (ESPresense)

    @Test func medianRejectsAnOutlierOddCount() {
        var filter = MedianRSSIFilter()
        feed(&filter, [-70, -71, -69, -72, -40])
        // sorted -72 -71 -70 -69 -40; Q1 at position 0.25 × 4 = 1 → -71, Q3 at 3 → -69, IQR = 2
        // fences [-71 - 3, -69 + 3] = [-74, -66]: -40 rejected; median of -72 -71 -70 -69 = -70.5
        #expect(filter.value == -70.5)
    }

    @Test func medianInterpolatedQuartilesEvenCount() {
        var filter = MedianRSSIFilter()
        feed(&filter, [-60, -62, -61, -63, -20, -64])
        // sorted -64 -63 -62 -61 -60 -20, n = 6
        // Q1 at 0.25 × 5 = 1.25 → -63 + 0.25 × 1 = -62.75; Q3 at 3.75 → -61 + 0.75 × 1 = -60.25
        // IQR = 2.5, fences [-62.75 - 3.75, -60.25 + 3.75] = [-66.5, -56.5]: -20 rejected
        // median of the five left, -64 -63 -62 -61 -60, is -62 (with -20 it would be -61.5)
        #expect(filter.value == -62)
        #expect(MedianRSSIFilter.quantile(0.25, ofSorted: [-64, -63, -62, -61, -60, -20]) == -62.75)
        #expect(MedianRSSIFilter.quantile(0.75, ofSorted: [-64, -63, -62, -61, -60, -20]) == -60.25)
    }

    @Test func medianWithoutOutliersIsThePlainMedian() throws {
        var filter = try #require(MedianRSSIFilter(window: 15, iqrMultiplier: 3))
        feed(&filter, [-60, -70, -65, -80])
        // sorted -80 -70 -65 -60: Q1 = -80 + 0.75 × 10 = -72.5, Q3 = -65 + 0.25 × 5 = -63.75
        // IQR = 8.75, fences at ±26.25: nothing rejected; median = (-70 - 65) / 2 = -67.5
        #expect(filter.value == -67.5)
    }

    @Test func medianWindowExpiry() {
        var filter = MedianRSSIFilter()
        filter.add(rssi: -90, at: 0)
        filter.add(rssi: -60, at: 14)
        #expect(filter.value == -75)           // both within 15 s: (-90 - 60) / 2
        filter.add(rssi: -62, at: 15)
        // the sample of 0 is now 15 s old and gone: median of -62, -60 = -61
        #expect(filter.value == -61)
        #expect(filter.value(at: 28.5) == -61) // 28.5 - 14 = 14.5 < 15
        #expect(filter.value(at: 29) == -62)   // only the sample of 15 left
        #expect(filter.value(at: 30) == nil)
        #expect(MedianRSSIFilter(window: 0) == nil)
        #expect(MedianRSSIFilter(window: 10, iqrMultiplier: -1) == nil)
    }

    // MARK: Input that is not a sample

    @Test(arguments: RSSIFilterKind.allCases)
    func invalidSamplesAreIgnored(kind: RSSIFilterKind) {
        var filter = BuiltInRSSIFilter(kind: kind)
        filter.add(rssi: 0, at: 0)
        filter.add(rssi: 3, at: 0)
        filter.add(rssi: .nan, at: 0)
        filter.add(rssi: -.infinity, at: 0)
        filter.add(rssi: -60, at: .nan)
        filter.add(rssi: -60, at: .infinity)
        #expect(filter.value == nil)
        filter.add(rssi: -60, at: 1)
        filter.add(rssi: 0, at: 2)
        #expect(filter.value == -60)
        filter.reset()
        #expect(filter.value == nil)
    }
}

@Suite("RSSI filter configuration")
struct RSSIFilterConfigurationTests {
    @Test func kindsByName() {
        #expect(RSSIFilterKind(name: "average") == .average)
        #expect(RSSIFilterKind(name: " ARMA ") == .arma)
        #expect(RSSIFilterKind(name: "Kalman") == .kalman)
        #expect(RSSIFilterKind(name: "median") == .median)
        #expect(RSSIFilterKind(name: "mean") == nil)
        #expect(RSSIFilterKind(name: "") == nil)
    }

    @Test func defaults() {
        #expect(BuiltInRSSIFilter(kind: .average).parameters == ["window": 20])
        #expect(BuiltInRSSIFilter(kind: .arma).parameters == ["coefficient": 0.1])
        #expect(BuiltInRSSIFilter(kind: .kalman).parameters == ["processNoise": 0.008, "measurementNoise": 4])
        #expect(BuiltInRSSIFilter(kind: .median).parameters == ["window": 15, "iqrMultiplier": 1.5])
        for kind in RSSIFilterKind.allCases {
            #expect(BuiltInRSSIFilter(kind: kind).kind == kind)
            #expect(Set(BuiltInRSSIFilter(kind: kind).parameters.keys) == Set(kind.parameterNames))
        }
    }

    @Test func parametersRoundTrip() throws {
        let filter = try BuiltInRSSIFilter(kind: .median, parameters: ["window": 5, "iqrMultiplier": 2])
        #expect(filter == .median(try #require(MedianRSSIFilter(window: 5, iqrMultiplier: 2))))
        #expect(try BuiltInRSSIFilter(kind: filter.kind, parameters: filter.parameters) == filter)
        let partial = try BuiltInRSSIFilter(kind: .kalman, parameters: ["measurementNoise": 9])
        #expect(partial.parameters == ["processNoise": 0.008, "measurementNoise": 9])
        #expect(partial.description == "kalman(measurementNoise: 9.0, processNoise: 0.008)")
    }

    @Test func errorsNameTheParameter() {
        #expect(throws: RSSIFilterConfigurationError.unknownParameter("coefficient", kind: .kalman)) {
            try BuiltInRSSIFilter(kind: .kalman, parameters: ["coefficient": 0.2])
        }
        #expect(throws: RSSIFilterConfigurationError.invalidValue(-3, parameter: "window", kind: .average)) {
            try BuiltInRSSIFilter(kind: .average, parameters: ["window": -3])
        }
        #expect(throws: RSSIFilterConfigurationError.invalidValue(2, parameter: "coefficient", kind: .arma)) {
            try BuiltInRSSIFilter(kind: .arma, parameters: ["coefficient": 2])
        }
        #expect(throws: RSSIFilterConfigurationError.invalidValue(0, parameter: "measurementNoise", kind: .kalman)) {
            try BuiltInRSSIFilter(kind: .kalman, parameters: ["measurementNoise": 0])
        }
        #expect(throws: RSSIFilterConfigurationError.invalidValue(-1, parameter: "iqrMultiplier", kind: .median)) {
            try BuiltInRSSIFilter(kind: .median, parameters: ["iqrMultiplier": -1])
        }
        let message = RSSIFilterConfigurationError.unknownParameter("coefficient", kind: .kalman).description
        #expect(message == "the 'kalman' RSSI filter has no parameter 'coefficient' (it takes 'processNoise', 'measurementNoise')")
    }

    @Test func builtInFilterBehavesLikeTheWrappedOne() {
        var wrapped = BuiltInRSSIFilter(kind: .arma)
        var plain = ARMARSSIFilter()
        for (second, rssi) in [-60.0, -70, -80].enumerated() {
            wrapped.add(rssi: rssi, at: Double(second))
            plain.add(rssi: rssi, at: Double(second))
        }
        #expect(wrapped == .arma(plain))
        #expect(wrapped.value == plain.value)
    }
}
