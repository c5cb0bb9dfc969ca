import Benchmark
import Foundation
import Whereabouts

/// Fixed receivers at scale: 100 receivers on a 10 × 10 grid 5 m apart (a 45 m square), 50 tags
/// walking circles through it, each receiver reporting each tag once a second (5,000 sightings a
/// second) from a phase of its own, with the path-loss model's RSSI. The reports are made as they
/// are consumed, so the figures are the fusion's (and the locating's), not a list's.
///
/// - "fusion" runs ``ReceiverFusion`` alone; "fusion and locating" runs ``FusedPipeline`` into the
///   default algorithm's ``FixPipeline``: every tag located once a second from its 100 receivers.
///   Their throughput reads in **sightings per second** (one iteration is one sighting;
///   `scalingFactor: .kilo`): a live system keeps up with 5,000 a second on one core when it is
///   above that.
/// - The "minute" and "ten minutes" runs fuse that much simulated time in one iteration: their
///   peak resident memory should be the same (memory flat whatever the run's length).
/// - The latency from a sighting to the fix that holds it is the fusion's design, not a cost:
///   at most the interval plus the lateness (0.85 s by default; `ReceiverFusionTests` checks it
///   sighting by sighting), once the fusion and locating keep up, which these throughputs say.
func registerReceiverBenchmarks() {
    // Both carry on from one iteration to the next, as a live system does.
    let fusionRun = FusionRun()
    Benchmark("Receivers: fusion, 100 receivers × 50 tags at 1 Hz",
              configuration: .init(metrics: [.throughput, .wallClock, .mallocCountTotal], scalingFactor: .kilo,
                                   maxDuration: .seconds(3))) { benchmark in
        var scans = 0
        for _ in benchmark.scaledIterations { scans += fusionRun.fusion.process(fusionRun.feed.next()).count }
        blackHole(scans)
    }

    let locatingRun = LocatingRun()
    Benchmark("Receivers: fusion and locating, 100 receivers × 50 tags at 1 Hz",
              configuration: .init(metrics: [.throughput, .wallClock], scalingFactor: .kilo, maxDuration: .seconds(3))) { benchmark in
        var fixes = 0
        for _ in benchmark.scaledIterations { fixes += await locatingRun.pipeline.process(locatingRun.feed.next()).count }
        blackHole(fixes)
    }

    for (name, seconds) in [("a minute", 60), ("ten minutes", 600)] {
        Benchmark("Receivers: memory, fusion of \(name) of 100 receivers × 50 tags",
                  configuration: .init(metrics: [.peakMemoryResident, .wallClock], scalingFactor: .one, maxIterations: 1)) { _ in
            var feed = ReceiverFeed()
            var fusion = ReceiverFusion(venue: ReceiverFeed.venue)
            var scans = 0
            for _ in 0..<(seconds * ReceiverFeed.receivers * ReceiverFeed.tags) { scans += fusion.process(feed.next()).count }
            scans += fusion.finish().count
            precondition(scans >= (seconds - 3) * ReceiverFeed.tags)
            blackHole(scans)
        }
    }
}

/// The reports of the grid's receivers, one sighting each, in time order, made as they are asked for.
struct ReceiverFeed {
    static let receivers = 100, tags = 50
    static let venue = Venue(receivers: (0..<receivers).map { index in
        Venue.Receiver(id: "r\(index)", x: Double(index % 10) * 5, y: Double(index / 10) * 5, z: 2.5)
    })
    static let receiverIDs = venue.receivers.map(\.id)
    static let tagIDs = (0..<tags).map { "tag\($0)" }

    /// The sighting made next: receiver `receiver` of tag `tag` in second `second`.
    private var second = 0, tag = 0, receiver = 0

    mutating func next() -> Scan {
        // Within a second, receiver by receiver and tag by tag, spread evenly over the second.
        let slot = receiver * Self.tags + tag
        let time = Double(second) + Double(slot) / Double(Self.receivers * Self.tags)
        let angle = time / 30 + Double(tag)
        let x = 22.5 + 15 * cos(angle), y = 22.5 + 15 * sin(angle)
        let r = Self.venue.receivers[receiver]
        let dx = x - (r.x ?? 0), dy = y - (r.y ?? 0), dz = 1.2 - 2.5
        let distance = max(0.5, (dx * dx + dy * dy + dz * dz).squareRoot())
        let rssi = (-59 - 20 * log10(distance)).rounded()
        let report = Scan(time: time, device: Self.receiverIDs[receiver], readings: [Reading(beacon: .id(Self.tagIDs[tag]), rssi: rssi)])
        tag += 1
        if tag == Self.tags {
            tag = 0
            receiver += 1
            if receiver == Self.receivers {
                receiver = 0
                second += 1
            }
        }
        return report
    }
}

/// A fusion fed from one benchmark iteration to the next.
private final class FusionRun {
    var feed = ReceiverFeed()
    var fusion = ReceiverFusion(venue: ReceiverFeed.venue)
}

/// A fusion and the default locator fed from one benchmark iteration to the next.
private final class LocatingRun {
    var feed = ReceiverFeed()
    var pipeline = FusedPipeline(fusion: ReceiverFusion(venue: ReceiverFeed.venue),
                                 then: FixPipeline(setup: PositioningAlgorithm.default.setup(venue: ReceiverFeed.venue.receiversAsBeacons())))
}
