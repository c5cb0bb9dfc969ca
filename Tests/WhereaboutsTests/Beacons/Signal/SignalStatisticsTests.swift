import Foundation
import Testing
@testable import Whereabouts

/// Standard normal deviates from the package's seeded generator, so every run is the same.
private struct Gaussian {
    var generator: SeededRandom

    init(seed: UInt64) { generator = SeededRandom(seed: seed) }

    mutating func next() -> Double { generator.nextGaussian() }
}

private func meanAndDeviation(_ values: [Double]) -> (mean: Double, deviation: Double) {
    let mean = values.reduce(0, +) / Double(values.count)
    let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count - 1)
    return (mean, variance.squareRoot())
}

@Suite("Signal statistics")
struct SignalStatisticsTests {
    /// A device stands 4 m from a beacon (txPower -59, n = 2: mean RSSI -59 - 20 log10 4 =
    /// -71.04 dBm) and hears it once a second with 4 dB Gaussian noise for 30 minutes. After a
    /// 60 s warm-up, the filtered RSSI must stay on the mean and vary far less than the raw one.
    @Test(arguments: [RSSIFilterKind.kalman, .median, .average, .arma])
    func filtersReduceNoise(kind: RSSIFilterKind) throws {
        let model = LogDistancePathLossModel()
        let trueRSSI = try #require(model.expectedRSSI(atDistance: 4, txPower: -59))
        #expect(abs(trueRSSI - -71.0412) < 1e-4)
        var noise = Gaussian(seed: 0x5EED_0001)
        var filter = BuiltInRSSIFilter(kind: kind)
        var raw: [Double] = []
        var filtered: [Double] = []
        for second in 0..<1_800 {
            let rssi = trueRSSI + 4 * noise.next()
            filter.add(rssi: rssi, at: Double(second))
            guard second >= 60 else { continue }
            raw.append(rssi)
            filtered.append(try #require(filter.value))
        }
        let rawStats = meanAndDeviation(raw)
        let filteredStats = meanAndDeviation(filtered)
        // the generator is sound: the raw samples show the 4 dB we asked for
        #expect(abs(rawStats.deviation - 4) < 0.25)
        #expect(abs(rawStats.mean - trueRSSI) < 0.3)
        // every filter at least halves the spread and stays within 1 dB of the truth; expected
        // spreads: Kalman (steady gain ≈ 0.044) ≈ 4 × √(K / (2 - K)) ≈ 0.6 dB, median of 15
        // ≈ 1.25 × 4 / √15 ≈ 1.3 dB, trimmed mean of 14 of 20 ≈ 1 dB, ARMA ≈ 4 × √(0.1 / 1.9) ≈ 0.9 dB
        #expect(filteredStats.deviation < rawStats.deviation / 2,
                "\(kind): \(filteredStats.deviation) dB vs raw \(rawStats.deviation) dB")
        #expect(abs(filteredStats.mean - trueRSSI) < 1)
    }

    /// The median filter shrugs off bursts of reflections that drag a mean.
    @Test func medianResistsOutlierBursts() {
        var noise = Gaussian(seed: 42)
        var median = MedianRSSIFilter()
        var arma = ARMARSSIFilter()
        var medianValues: [Double] = []
        var armaValues: [Double] = []
        for second in 0..<600 {
            // one second in ten a reflection adds 25 dB
            let spike = second % 10 == 5 ? 25.0 : 0
            let rssi = -75 + 2 * noise.next() + spike
            median.add(rssi: rssi, at: Double(second))
            arma.add(rssi: rssi, at: Double(second))
            guard second >= 60, let m = median.value, let a = arma.value else { continue }
            medianValues.append(m)
            armaValues.append(a)
        }
        // the spikes lift the mean of the input by 25 / 10 = 2.5 dB; ARMA follows the mean,
        // the fenced median stays near -75 (the 1 or 2 spikes in its 15 s window are rejected)
        let medianBias = meanAndDeviation(medianValues).mean + 75
        let armaBias = meanAndDeviation(armaValues).mean + 75
        #expect(abs(medianBias) < 0.5, "median bias \(medianBias) dB")
        #expect(abs(armaBias - 2.5) < 0.5, "ARMA bias \(armaBias) dB")
    }

    /// Filtering before ranging narrows the distance error too.
    @Test func filteredRangesAreTighter() throws {
        let model = LogDistancePathLossModel()
        let trueRSSI = try #require(model.expectedRSSI(atDistance: 4, txPower: -59))
        var noise = Gaussian(seed: 7)
        var filter = KalmanRSSIFilter()
        var rawErrors: [Double] = []
        var filteredErrors: [Double] = []
        for second in 0..<900 {
            let rssi = trueRSSI + 4 * noise.next()
            filter.add(rssi: rssi, at: Double(second))
            guard second >= 60 else { continue }
            let rawDistance = try #require(model.distance(rssi: rssi, txPower: -59))
            let filteredRSSI = try #require(filter.value)
            let filteredDistance = try #require(model.distance(rssi: filteredRSSI, txPower: -59))
            rawErrors.append(abs(rawDistance - 4))
            filteredErrors.append(abs(filteredDistance - 4))
        }
        let rawMean = rawErrors.reduce(0, +) / Double(rawErrors.count)
        let filteredMean = filteredErrors.reduce(0, +) / Double(filteredErrors.count)
        // raw: σ_d ≈ 4 × ln 10 / 20 × 4 = 1.84 m, mean |error| ≈ 1.5 m; Kalman ≈ 0.3 m
        #expect(filteredMean < rawMean / 3)
    }
}
