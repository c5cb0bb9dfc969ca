import Benchmark
import Foundation
import Whereabouts

/// Advertisement frame parsing throughput.
///
/// Each benchmark iteration parses 1,000 advertisements (`scalingFactor: .kilo`); the results
/// are reported per advertisement, so the throughput reads in frames per second. Parsing
/// iBeacon, AltBeacon and Eddystone-UID frames allocates nothing, which `mallocCountTotal` shows.
func registerFrameBenchmarks() {
    let identity = IBeaconIdentity(uuid: UUID(uuid: (0xE2, 0xC5, 0x6D, 0xB5, 0xDF, 0xFB, 0x48, 0xD2,
                                                     0xB0, 0x60, 0xD0, 0xF5, 0xA7, 0x10, 0x96, 0xE0)),
                                   major: 1, minor: 2)
    let namespace: [UInt8] = [0x8B, 0x0C, 0xA7, 0x50, 0x09, 0x54, 0x77, 0xCB, 0x3E, 0x77]
    let instance: [UInt8] = [0, 0, 0, 0, 0, 1]
    var advertisements: [(name: String, bytes: [UInt8])] = [
        ("Frames: parse iBeacon", IBeaconFrame(identity: identity, measuredPower: -59).encoded()),
        ("Frames: parse AltBeacon", AltBeaconFrame(identity: identity, referenceRSSI: -59).encoded()),
    ]
    if let uid = EddystoneUIDFrame(namespace: namespace, instance: instance, txPower: -18) {
        advertisements.append(("Frames: parse Eddystone-UID", uid.encoded()))
    }
    if let url = try? EddystoneURLFrame(url: "https://goo.gl/Aq18zF", txPower: -18).encoded() {
        advertisements.append(("Frames: parse Eddystone-URL", url))
    }

    let configuration = Benchmark.Configuration(
        metrics: [.throughput, .wallClock, .mallocCountTotal],
        scalingFactor: .kilo,
        maxDuration: .seconds(3))

    for advertisement in advertisements {
        let bytes = advertisement.bytes
        Benchmark(advertisement.name, configuration: configuration) { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try? Advertisement.parse(bytes))
            }
        }
    }
}
