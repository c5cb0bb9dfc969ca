import Foundation
@testable import Whereabouts

/// Small hand-made and seeded data for the room classifier tests.
enum RoomTestData {
    /// A scan of `device` at time `t` with readings by venue id, and optionally a true place.
    static func scan(_ t: Double, _ readings: [(String, Double)], place: String? = nil, floor: Int? = nil, device: String? = nil) -> Scan {
        Scan(time: t, device: device, readings: readings.map { Reading(beacon: .id($0.0), rssi: $0.1) },
             truth: place == nil && floor == nil ? nil : GroundTruth(floor: floor, place: place))
    }

    /// `count` scans per place, in blocks (all of the first place, then the next, …), each beacon
    /// heard at its place's mean plus Gaussian noise of `sigma` dB, or missed with probability `miss`.
    static func survey(means: [(place: String, floor: Int, rssi: [Double])], count: Int, sigma: Double,
                       miss: Double = 0, seed: UInt64) -> [Scan] {
        var random = SeededRandom(seed: seed)
        var scans: [Scan] = []
        for entry in means {
            for _ in 0..<count {
                var readings: [(String, Double)] = []
                for (beacon, mean) in entry.rssi.enumerated() where random.nextUniform() >= miss {
                    readings.append(("b\(beacon)", (mean + sigma * random.nextGaussian()).rounded()))
                }
                scans.append(scan(Double(scans.count), readings, place: entry.place, floor: entry.floor))
            }
        }
        return scans
    }

    /// Four places on two floors and five beacons, close enough that single scans get confused.
    static let fourPlaces: [(place: String, floor: Int, rssi: [Double])] = [
        ("kitchen", 0, [-60, -70, -80, -85, -90]),
        ("hall", 0, [-66, -64, -78, -84, -88]),
        ("office", 1, [-82, -80, -66, -62, -75]),
        ("lab", 1, [-86, -84, -64, -70, -66]),
    ]
}
