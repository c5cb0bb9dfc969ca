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
/// - "latency" measures each sighting's wait for the fix of the first scan that holds it, in
///   milliseconds: the fusion's design (at most the interval and the lateness, 0.85 s by default;
///   `ReceiverFusionTests` checks it sighting by sighting) plus the time the fusion and the
///   locating take.
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

    // Each sighting's latency, in milliseconds: from when it was heard to the fix of the first
    // scan that holds it — the fusion's wait on the feed's clock plus the wall time the fusion
    // and the locating took over the report that gave the fix out. A minute of the grid. A tag's
    // first fix, which waits a whole interval more for every receiver to have its say, is
    // counted apart: from the tag's first sighting.
    let latency = BenchmarkMetric.custom("sighting to fix (ms)", polarity: .prefersSmaller, useScalingFactor: false)
    let firstFix = BenchmarkMetric.custom("first sighting to first fix (ms)", polarity: .prefersSmaller, useScalingFactor: false)
    Benchmark("Receivers: latency from sighting to fix, 100 receivers × 50 tags at 1 Hz",
              configuration: .init(metrics: [latency, firstFix, .wallClock], scalingFactor: .one, maxIterations: 1)) { benchmark in
        var feed = ReceiverFeed()
        let fusion = ReceiverFusion(venue: ReceiverFeed.venue)
        let interval = fusion.configuration.interval, lateness = fusion.configuration.lateness
        var pipeline = FusedPipeline(fusion: fusion, then: FixPipeline(setup: PositioningAlgorithm.default.setup(venue: ReceiverFeed.venue.receiversAsBeacons())))
        // Per tag, the times of its sightings in no fix yet, oldest first.
        var pending: [String: [Double]] = [:]
        var located: Set<String> = []
        for _ in 0..<(60 * ReceiverFeed.receivers * ReceiverFeed.tags) {
            let report = feed.next()
            if case .id(let tag)? = report.readings.first?.beacon { pending[tag, default: []].append(report.time) }
            let started = ContinuousClock.now
            let fixes = await pipeline.process(report)
            let spent = ContinuousClock.now - started
            let wall = Double(spent.components.seconds) + Double(spent.components.attoseconds) * 1e-18
            for fix in fixes {
                guard let tag = fix.device, var times = pending[tag] else { continue }
                // The scan's interval ended a lateness or more before the report that gave it out.
                let end = ((report.time - lateness) / interval).rounded(.down) * interval
                let held = times.prefix { $0 <= end + 1e-9 }.count
                if !located.contains(tag), let first = times.first {
                    located.insert(tag)
                    benchmark.measurement(firstFix, Int(((report.time - first + wall) * 1000).rounded()))
                } else {
                    for time in times.prefix(held) { benchmark.measurement(latency, Int(((report.time - time + wall) * 1000).rounded())) }
                }
                times.removeFirst(held)
                pending[tag] = times
            }
        }
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
