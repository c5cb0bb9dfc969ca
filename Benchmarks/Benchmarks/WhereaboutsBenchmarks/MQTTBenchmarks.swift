import Benchmark
import Foundation
import Whereabouts
import WhereaboutsBluetooth
import WhereaboutsMQTT

/// ESPresense over MQTT and phones' rotating addresses:
///
/// - "ESPresense messages parsed and fused": the grid of ``ReceiverFeed`` (100 receivers × 50
///   tags at 1 Hz) published as ESPresense nodes publish (``ESPresenseNode``), each message read
///   back (``ESPresenseInput``: its JSON parsed, its tag and receiver named) and fused. Throughput
///   in **messages per second** (`scalingFactor: .kilo`); the target is 10,000 on one core.
/// - "a new address against 1,000 IRKs": each iteration a resolvable address never seen, tried
///   against every key (none matches: the worst case); the target is under 1 ms.
/// - "an address already resolved": the look-up that follows; it costs a dictionary look-up.
func registerMQTTBenchmarks() {
    let espresense = ESPresenseRun()
    Benchmark("MQTT: ESPresense messages parsed and fused, 100 receivers × 50 tags at 1 Hz",
              configuration: .init(metrics: [.throughput, .wallClock], scalingFactor: .kilo, maxDuration: .seconds(3))) { benchmark in
        var scans = 0
        for _ in benchmark.scaledIterations { scans += espresense.next() }
        blackHole(scans)
    }

    let keys = Dictionary(uniqueKeysWithValues: (0..<1_000).map { index -> (String, IdentityResolvingKey) in
        var generator = SeededRandom(seed: UInt64(index))
        let hex = (0..<16).map { _ in String(format: "%02x", Int.random(in: 0...255, using: &generator)) }.joined()
        return ("phone\(index)", try! IdentityResolvingKey(hex: hex))
    })
    let resolving = ResolverRun(keys: keys)
    Benchmark("MQTT: a new address against 1,000 IRKs",
              configuration: .init(metrics: [.wallClock, .throughput], scalingFactor: .one, maxDuration: .seconds(3))) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(resolving.resolveNew()) }
    }
    Benchmark("MQTT: an address already resolved",
              configuration: .init(metrics: [.wallClock, .throughput], scalingFactor: .kilo, maxDuration: .seconds(3))) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(resolving.resolveKnown()) }
    }
}

/// The grid's sightings as ESPresense messages, read back and fused, one at a time.
private final class ESPresenseRun {
    var feed = ReceiverFeed()
    var fusion = ReceiverFusion(venue: ReceiverFeed.venue)
    let input = ESPresenseInput()

    func next() -> Int {
        let report = feed.next()
        var scans = 0
        for message in ESPresenseNode(room: report.device ?? "").messages(for: report) {
            guard let read = try? input.report(from: message, arrival: report.time) else { continue }
            scans += fusion.process(read).count
        }
        return scans
    }
}

/// A resolver of 1,000 keys, with a stream of fresh resolvable addresses and one known address.
private final class ResolverRun {
    var resolver: AddressResolver
    var counter: UInt64 = 0
    let known = BluetoothAddress(rawValue: 0x40_0000_000001)

    init(keys: [String: IdentityResolvingKey]) {
        resolver = AddressResolver(keys: keys)
        _ = resolver.device(for: known)
    }

    func resolveNew() -> String? {
        counter += 1
        // 01 in the top two bits (resolvable), a new prand and hash each time.
        return resolver.device(for: BluetoothAddress(rawValue: 0x4000_0000_0000 | (counter & 0x3FFF_FFFF_FFFF)))
    }

    func resolveKnown() -> String? { resolver.device(for: known) }
}
