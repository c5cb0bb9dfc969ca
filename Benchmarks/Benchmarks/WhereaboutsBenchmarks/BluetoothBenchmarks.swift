import Benchmark
import Foundation
import Whereabouts
import WhereaboutsBluetooth

/// Decoding throughput of live scanning and capture replay: HCI advertising report events to
/// beacon readings.
///
/// Each iteration decodes 1,000 LE Advertising Report events of one iBeacon report each
/// (`scalingFactor: .kilo`), so the throughput reads in advertising reports per second: the
/// event is decoded, the frame parsed, and a scan with its reading built.
func registerBluetoothBenchmarks() {
    let uuid = UUID(uuid: (0xE2, 0xC5, 0x6D, 0xB5, 0xDF, 0xFB, 0x48, 0xD2, 0xB0, 0x60, 0xD0, 0xF5, 0xA7, 0x10, 0x96, 0xE0))
    let data = IBeaconFrame(identity: IBeaconIdentity(uuid: uuid, major: 1, minor: 2), measuredPower: -59).encoded()
    let parameters: [UInt8] = [0x02, 0x01, 0x03, 0x01, 0x01, 0x00, 0x00, 0xEE, 0xFF, 0xC0, UInt8(data.count)] + data + [0xC5]
    let event: [UInt8] = [0x3E, UInt8(parameters.count)] + parameters
    let decoder = SightingDecoder()

    let configuration = Benchmark.Configuration(
        metrics: [.throughput, .wallClock, .mallocCountTotal],
        scalingFactor: .kilo,
        maxDuration: .seconds(3))

    Benchmark("Bluetooth: advertising report to scan", configuration: configuration) { benchmark in
        for index in benchmark.scaledIterations {
            blackHole(decoder.scan(fromEvent: event, at: Double(index)))
        }
    }

    Benchmark("Bluetooth: advertising report decoding", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try? HCIEvent.decode(event))
        }
    }

    // A capture of 1,000 such events, replayed as fast as possible: reading records included.
    var writer = BTSnoopWriter(datalink: .h4)
    for index in 0..<1_000 { writer.append(.event(event, time: 1_700_000_000 + Double(index) * 0.01, datalink: .h4)) }
    let capture = writer.bytes
    Benchmark("Bluetooth: btsnoop replay", configuration: configuration) { benchmark in
        for _ in 0..<(benchmark.scaledIterations.count / 1_000) {
            guard let replay = try? BTSnoopReplay(bytes: capture) else { continue }
            var iterator = replay.makeAsyncIterator()
            while let scan = try? await iterator.next() { blackHole(scan) }
        }
    }
}
