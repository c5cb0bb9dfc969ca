import Foundation
import Testing
@testable import Whereabouts

/// ``ReceiverFusion``: fixed receivers' reports become one scan per tag per interval, placed by
/// each receiver's stamp on the fusion's clock, with duplicates, late and unknown reports
/// counted, silent receivers and tags expiring, and memory bounded.
@Suite struct ReceiverFusionTests {
    static let anna = IBeaconIdentity(uuid: UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!, major: 7, minor: 1)
    static let venue = Venue(beacons: [Venue.Beacon(id: "door", x: 5, y: 5)],
                             receivers: [Venue.Receiver(id: "A", x: 0, y: 0), Venue.Receiver(id: "B", x: 10, y: 0, rssiOffset: 3)],
                             tags: [Venue.Tag(id: "anna", iBeacon: anna)])

    /// A scan a second of each receiver's sightings in that second, waiting half a second for
    /// late ones: what the hand-worked cases below assume (the defaults average more, more often).
    static let perSecond = ReceiverFusion.Configuration(interval: 1, window: 3, averaging: 1, lateness: 0.5)

    /// A receiver's report of one tag (iBeacon `anna` unless named otherwise).
    static func report(_ receiver: String?, at stamp: Double, arrival: Double? = nil, _ rssi: Double,
                       tag: BeaconReference = .iBeacon(anna)) -> Scan {
        var scan = Scan(time: stamp, device: receiver, readings: [Reading(beacon: tag, rssi: rssi)])
        scan.arrival = arrival
        return scan
    }

    /// `tag@time: receiver=rssi …`, the time to the millisecond.
    static func summary(_ scans: [Scan]) -> [String] {
        scans.map { scan in
            "\(scan.device ?? "-")@\(String(format: "%.3f", scan.time)): "
                + scan.readings.map { reading in
                    guard case .id(let id) = reading.beacon else { return "?" }
                    return "\(id)=\(reading.rssi)"
                }.joined(separator: " ")
        }
    }

    /// A tag's first scan comes a whole interval after its first sighting (on the grid all tags
    /// share) and holds every sighting so far; then one scan an interval, each receiver's reading
    /// the mean of its sightings in the interval or else its latest in the window; each scan is
    /// dated the mean time of the sightings it is made of. The end of the input gives the
    /// interval holding the latest sighting.
    @Test func sightingsBecomeOneScanPerTagPerInterval() {
        var fusion = ReceiverFusion(venue: Self.venue, configuration: Self.perSecond)
        var out: [Scan] = []
        for report in [Self.report("A", at: 10.25, -60), Self.report("B", at: 10.5, -70), Self.report("A", at: 11.25, -62),
                       Self.report("B", at: 11.5, -72), Self.report("A", at: 12.25, -64)] {
            out += fusion.process(report)
        }
        #expect(out.isEmpty)                              // the scan of 12 waits until 12.5 for late sightings
        #expect(fusion.nextDeadline() == 12.5)
        out += fusion.process(Self.report("A", at: 12.75, -66))
        out += fusion.finish()
        #expect(Self.summary(out) == [
            "anna@10.875: A=-61.0 B=-71.0",     // up to 12: every sighting so far
            "anna@12.500: A=-65.0 B=-72.0",     // (12, 13]: A's 12.25 and 12.75; B silent, its latest stands in
        ])
        #expect(fusion.statistics.sightings == 6 && fusion.statistics.scans == 2)
    }

    /// A batch that arrives late is placed by its stamps: the receiver's clock (100 s behind,
    /// 0.05 s of network) is the median of arrival − stamp, which one delayed batch does not move.
    @Test func aBatchIsPlacedByItsStampsOnTheReceiversClock() {
        var fusion = ReceiverFusion(venue: Self.venue, configuration: Self.perSecond)
        var out: [Scan] = []
        for k in 1...9 { out += fusion.process(Self.report("B", at: Double(k), arrival: 100 + Double(k) + 0.05, -70)) }
        out += fusion.process(Self.report("B", at: 10, arrival: 111.4, -50))
        out += fusion.process(Self.report("B", at: 11, arrival: 111.4, -90))
        out += fusion.finish()
        #expect(Self.summary(Array(out.prefix(1))) == ["anna@101.550: B=-70.0"])   // 101.05 and 102.05, up to 103
        // Placed by arrival, both would fall in (111, 112] and average −70.
        #expect(Self.summary(Array(out.suffix(2))) == ["anna@110.050: B=-50.0", "anna@111.050: B=-90.0"])
        #expect(fusion.statistics.late == 0)
    }

    /// Duplicates, late reports, unknown receivers, readings of a venue beacon or with a bad RSSI,
    /// and reports stamped ahead of the receiver's clock are counted, and the rest is kept.
    @Test func badReportsAreCountedAndTheRestKept() {
        var fusion = ReceiverFusion(venue: Self.venue, configuration: Self.perSecond)
        var out: [Scan] = []
        out += fusion.process(Self.report("A", at: 10.2, -60))
        out += fusion.process(Self.report("A", at: 10.2, -60))                 // duplicate
        out += fusion.process(Self.report("C", at: 10.3, -60))                 // unknown receiver
        out += fusion.process(Self.report(nil, at: 10.3, -60))                 // no receiver
        out += fusion.process(Self.report("A", at: 10.4, -55, tag: .id("door"))) // a venue beacon
        out += fusion.process(Self.report("A", at: 10.5, 3))                   // not an RSSI
        out += fusion.process(Self.report("B", at: 10.6, -70))
        out += fusion.process(Self.report("A", at: 12.7, -61))                 // the scan of 12 is out
        out += fusion.process(Self.report("A", at: 11.9, arrival: 12.8, -71))  // its stamp is before it: late
        out += fusion.process(Self.report("B", at: 30, arrival: 12.9, -71))    // 17 s ahead: refused
        #expect(Self.summary(out) == ["anna@10.400: A=-60.0 B=-70.0"])
        let statistics = fusion.statistics
        #expect(statistics.duplicates == 1 && statistics.unknownReceiver == 2 && statistics.notTags == 2)
        #expect(statistics.late == 1 && statistics.future == 1 && statistics.unknownReceivers == ["C", "(none)"])
        #expect(statistics.sightings == 10)
    }

    /// An interval in which nobody heard the tag gives no scan; a receiver whose latest sighting
    /// is older than the window is left out; a tag nobody heard for the window is forgotten, on
    /// the clock.
    @Test func silenceExpiresReceiversAndTagsOnTime() {
        var fusion = ReceiverFusion(venue: Self.venue, configuration: Self.perSecond)
        #expect(fusion.process(Self.report("A", at: 10.25, -60)).isEmpty)
        #expect(fusion.process(Self.report("B", at: 11.5, -70)).isEmpty)
        #expect(fusion.advance(to: 12.49).isEmpty)
        #expect(Self.summary(fusion.advance(to: 12.5)) == ["anna@10.875: A=-60.0 B=-70.0"])
        #expect(fusion.process(Self.report("B", at: 13.5, -72)).isEmpty)      // (12, 13]: nobody, no scan
        // (13, 14]: B; A's latest (10.25) is older than the window (11, 14].
        #expect(Self.summary(fusion.advance(to: 14.5)) == ["anna@13.500: B=-72.0"])
        #expect(fusion.advance(to: 16.5).isEmpty)        // quiet intervals: B's 13.5 is still in the window
        #expect(fusion.nextDeadline() == 17.5)
        #expect(fusion.advance(to: 17.5).isEmpty)        // (14, 17]: nobody heard anna: away
        #expect(fusion.nextDeadline() == nil)
        // Heard again: a new first scan, a whole interval after.
        #expect(fusion.process(Self.report("A", at: 20.5, -65)).isEmpty)
        #expect(fusion.nextDeadline() == 22.5)
    }

    /// By default a scan every 0.75 s on the shared grid, each reading the mean of the receiver's
    /// sightings in the last 2 s, dated their mean time, given out 0.1 s after its interval. An
    /// interval with no new sighting gives no scan; a sighting that comes after its interval's
    /// scan still counts in the next one, and makes it, while that one averages its time, and is
    /// late when none does.
    @Test func byDefaultScansAverageTwoSecondsEveryThreeQuartersOfOne() {
        var fusion = ReceiverFusion(venue: Self.venue)
        #expect(fusion.process(Self.report("A", at: 10.0, -60)).isEmpty)
        #expect(fusion.nextDeadline() == 11.35)             // (10, 11.25] on the grid of 0.75 s, 0.1 s late
        #expect(fusion.process(Self.report("B", at: 10.5, -70)).isEmpty)
        #expect(fusion.process(Self.report("A", at: 11.0, -62)).isEmpty)
        #expect(fusion.advance(to: 11.34).isEmpty)
        #expect(Self.summary(fusion.advance(to: 11.35)) == ["anna@10.500: A=-61.0 B=-70.0"])   // every sighting so far
        #expect(fusion.process(Self.report("A", at: 11.75, -64)).isEmpty)
        // (10, 12]: A's 11.0 and 11.75, B's 10.5; dated (11 + 11.75 + 10.5) / 3.
        #expect(Self.summary(fusion.advance(to: 12.1)) == ["anna@11.083: A=-63.0 B=-70.0"])
        #expect(fusion.advance(to: 12.85).isEmpty)          // nothing new in (12, 12.75]: no scan
        // Heard at 12.5, in at 13.0: after the scan of 12.75, but the one of 13.5 averages (11.5, 13.5].
        #expect(fusion.process(Self.report("A", at: 12.5, arrival: 13.0, -66)).isEmpty)
        // B's 10.5 is older than the window (10.5, 13.5]: left out.
        #expect(Self.summary(fusion.advance(to: 13.6)) == ["anna@12.125: A=-65.0"])
        #expect(fusion.statistics.late == 0)
        // Heard at 11.2, in at 13.8: the next scan averages (12.25, 14.25]: late.
        #expect(fusion.process(Self.report("A", at: 11.2, arrival: 13.8, -50)).isEmpty)
        #expect(fusion.statistics.late == 1)
        #expect(fusion.advance(to: 14.35).isEmpty)
    }

    /// With the defaults every sighting after a tag's first scan is in a scan given out within a
    /// second of being heard: at most an interval, the lateness and the report's way over the
    /// network (0.75 + 0.1 + 0.15 s here) whatever the receivers' phases. (The first scan waits
    /// a whole interval more, for every receiver to have its say.) Two receivers hearing two tags
    /// for a minute.
    @Test func byDefaultEverySightingIsInAScanWithinASecond() throws {
        var fusion = ReceiverFusion(venue: Self.venue)
        var reports: [Scan] = []
        // A reports twice a second, 0.05 s on the way; B once, 0.15 s (so each receiver's clock
        // offset, the median of arrival − stamp, is its delay, and a sighting is on the fusion's
        // clock when it arrives).
        for second in 0..<60 {
            for (receiver, phase, delay) in [("A", 0.0, 0.05), ("B", 0.29, 0.15), ("A", 0.58, 0.05)] {
                for (tag, shift) in [(BeaconReference.iBeacon(Self.anna), 0.0), (.id("ben"), 0.41)] {
                    let time = 100 + Double(second) + phase + shift + 0.013 * Double(second % 7)
                    reports.append(Self.report(receiver, at: time, arrival: time + delay, -60 - Double(second % 9), tag: tag))
                }
            }
        }
        reports.sort { ($0.arrival ?? 0) < ($1.arrival ?? 0) }
        // Driven as a timeline drives it: to each report's arrival, or first to the fusion's next
        // deadline, where its scans come out.
        var given: [(scan: Scan, at: Double)] = []
        for report in reports {
            let arrival = report.arrival ?? report.time
            while let deadline = fusion.nextDeadline(), deadline <= arrival {
                given += fusion.advance(to: deadline).map { ($0, deadline) }
            }
            given += fusion.process(report).map { ($0, arrival) }
        }
        let lateness = fusion.configuration.lateness
        let annas = given.filter { $0.scan.device == "anna" }
        #expect(fusion.statistics.late == 0 && fusion.statistics.duplicates == 0)
        #expect(annas.count >= 75)                           // a scan every 0.75 s
        let first = try #require(annas.first)
        #expect(abs(first.at - 101.35) < 1e-9)             // heard at 100.0, in at 100.05: up to 101.25, 0.1 s late
        for report in reports where report.readings.first?.beacon == .iBeacon(Self.anna) {
            let arrival = report.arrival ?? report.time
            guard arrival > first.at, arrival < 159 else { continue }   // the input ends before the last ones fall due
            // The first scan whose interval (it ends `lateness` before it comes out) holds the sighting.
            let scan = annas.first { $0.at - lateness >= arrival - 1e-9 }
            let wait = (scan?.at ?? .infinity) - report.time
            #expect(wait < 1, "heard at \(report.time), in a scan \(wait) s later")
        }
    }

    /// A time jump (a replay's gap) gives the scans of the intervals the window still covers, then stops.
    @Test func aGapGivesTheWindowsScansThenStops() {
        var fusion = ReceiverFusion(venue: Self.venue, configuration: Self.perSecond)
        _ = fusion.process(Self.report("A", at: 10.25, -60))
        let out = fusion.process(Self.report("A", at: 100, -80))
        #expect(out.map(\.time) == [10.25])                 // 12; 13 quiet; at 14 the window (11, 14] is empty
        #expect(fusion.nextDeadline() == 101.5)
    }

    /// At most the configured tags (the one heard longest ago goes first) and sightings per
    /// receiver and tag (the oldest go first).
    @Test func memoryIsBounded() {
        var fusion = ReceiverFusion(venue: Self.venue, configuration: .init(interval: 1, averaging: 1, lateness: 0.5,
                                                                          maximumTags: 2, maximumSightingsPerPair: 2))
        _ = fusion.process(Self.report("A", at: 10.0, -60, tag: .id("t1")))
        _ = fusion.process(Self.report("A", at: 10.25, -60, tag: .id("t2")))
        _ = fusion.process(Self.report("A", at: 10.5, -60, tag: .id("t3")))   // t1 goes
        for (k, rssi) in [-61.0, -62, -63].enumerated() { _ = fusion.process(Self.report("B", at: 11 + 0.25 * Double(k), rssi, tag: .id("t3"))) }
        let out = fusion.finish()
        #expect(fusion.statistics.tagsEvicted == 1 && fusion.statistics.flooded == 1)
        // t3: B keeps its latest two (11.25: −62, 11.5: −63), A its one (10.5).
        #expect(Self.summary(out) == ["t2@10.250: A=-60.0", "t3@11.083: A=-60.0 B=-62.5"])
    }

    /// Unfused, each tag reading of a report is the tag's one-reading scan of the receiver, with
    /// the report's time and truth; a venue beacon, a bad RSSI and an unknown receiver give none.
    @Test func sightingsInAReport() {
        let fusion = ReceiverFusion(venue: Self.venue)
        let report = Scan(time: 7, device: "B", readings: [Reading(beacon: .iBeacon(Self.anna), rssi: -61), Reading(beacon: .id("door"), rssi: -50),
                                                          Reading(beacon: .id("t2"), rssi: 4), Reading(beacon: .id("t3"), rssi: -77)],
                          truth: GroundTruth(x: 1, y: 2))
        #expect(fusion.sightings(in: report) == [
            Scan(time: 7, device: "anna", readings: [Reading(beacon: .id("B"), rssi: -61)], truth: GroundTruth(x: 1, y: 2)),
            Scan(time: 7, device: "t3", readings: [Reading(beacon: .id("B"), rssi: -77)], truth: GroundTruth(x: 1, y: 2)),
        ])
        var unknown = report
        unknown.device = "Z"
        #expect(fusion.sightings(in: unknown).isEmpty)
    }

    /// Receivers that advertise hear each other: the one heard stands where the venue has it
    /// (whatever truth the report carries), and a receiver does not hear itself.
    @Test func receiversHearingEachOtherHaveTheirPlaceAsTruth() {
        var venue = Self.venue
        venue.receivers[1].z = 2.5
        venue.receivers[1].floor = 1
        let fusion = ReceiverFusion(venue: venue)
        let report = Scan(time: 3, device: "A", readings: [Reading(beacon: .id("B"), rssi: -70), Reading(beacon: .id("A"), rssi: -20)],
                          truth: GroundTruth(x: 1, y: 2))
        #expect(fusion.sightings(in: report) == [
            Scan(time: 3, device: "B", readings: [Reading(beacon: .id("A"), rssi: -70)], truth: GroundTruth(x: 10, y: 0, z: 2.5, floor: 1)),
        ])
    }

    /// Checked against a venue with receivers, a receiver's report may name any tag; a scan from
    /// a device that is no receiver is a problem where the venue has receivers only, and is
    /// checked against the beacons otherwise.
    @Test func recordingSummaryKnowsReports() {
        var summary = RecordingSummary(venue: Self.venue)
        summary.add(Self.report("A", at: 1, -60, tag: .id("any-tag")), line: 1)
        summary.add(Self.report("Z", at: 2, -60, tag: .id("any-tag")), line: 2)   // the venue has beacons too: a phone's scan
        #expect(summary.receiverReports == 1 && summary.unknownReceivers.isEmpty)
        #expect(summary.unknownBeacons == [.id("any-tag"): 1] && summary.problems.map(\.message) == [#"the venue has no beacon "any-tag""#])
        var receiversOnly = Self.venue
        receiversOnly.beacons = []
        var reports = RecordingSummary(venue: receiversOnly)
        reports.add(Self.report("A", at: 1, -60, tag: .id("any-tag")), line: 1)
        reports.add(Self.report("Z", at: 2, -60), line: 2)
        reports.add(Self.report("Z", at: 3, -60), line: 3)
        #expect(reports.receiverReports == 1 && reports.unknownReceivers == ["Z": 2] && reports.unknownBeacons.isEmpty)
        #expect(reports.problems.map(\.message) == [#"the venue has no receiver "Z""#])
    }

    /// Tags are named by the venue's list, or by their identity.
    @Test func tagNames() {
        let fusion = ReceiverFusion(venue: Self.venue)
        #expect(fusion.tagName(for: .iBeacon(Self.anna)) == "anna")
        let other = IBeaconIdentity(uuid: Self.anna.uuid, major: 7, minor: 2)
        #expect(fusion.tagName(for: .iBeacon(other)) == "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0_Maj:7_Min:2")
        #expect(fusion.tagName(for: .id("wristband")) == "wristband")
    }

    /// The receivers as the tag's beacons: positions kept, the offset shifts the calibration.
    @Test func receiversAsBeacons() {
        let beacons = Self.venue.receiversAsBeacons().beacons
        #expect(beacons.map(\.id) == ["A", "B"])
        #expect(beacons[0].txPower == nil && beacons[1].txPower == -56)
        #expect(beacons[1].x == 10 && beacons[1].y == 0)
    }

    /// Fused and located: four receivers hearing a tag by the path-loss model, each on its own
    /// schedule, put it where it is.
    @Test func fusedScansLocateTheTag() async throws {
        let corners = [(0.0, 0.0), (10, 0), (10, 10), (0, 10)]
        let venue = Venue(receivers: corners.enumerated().map { Venue.Receiver(id: "r\($0.offset)", x: $0.element.0, y: $0.element.1) })
        let tag = (x: 3.0, y: 4.0)
        var reports: [Scan] = []
        for second in 0..<10 {
            for (index, corner) in corners.enumerated() {
                let distance = ((tag.x - corner.0) * (tag.x - corner.0) + (tag.y - corner.1) * (tag.y - corner.1)).squareRoot()
                let rssi = -59 - 20 * log10(distance)
                reports.append(Scan(time: Double(second) + 0.2 * Double(index), device: "r\(index)",
                                    readings: [Reading(beacon: .id("tag"), rssi: rssi)]))
            }
        }
        let setup = PositioningAlgorithm.default.setup(venue: venue.receiversAsBeacons())
        var pipeline = FusedPipeline(fusion: ReceiverFusion(venue: venue), then: FixPipeline(setup: setup))
        var timeline = ScanTimeline(scans: ScanList(reports), pace: .replay)
        var fixes: [Fix] = []
        try await timeline.run(&pipeline) { fixes += $0 }
        #expect(fixes.count == 13)                            // every 0.75 s, 0.75 … 9.75
        let last = try #require(fixes.last)
        #expect(last.device == "tag")
        #expect(((last.point.x - tag.x) * (last.point.x - tag.x) + (last.point.y - tag.y) * (last.point.y - tag.y)).squareRoot() < 0.5)
    }
}

/// Scans as an async sequence.
private struct ScanList: AsyncSequence, Sendable {
    typealias Element = Scan
    let scans: [Scan]
    init(_ scans: [Scan]) { self.scans = scans }
    struct AsyncIterator: AsyncIteratorProtocol {
        var remaining: ArraySlice<Scan>
        mutating func next() async -> Scan? { remaining.popFirst() }
    }
    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(remaining: scans[...]) }
}
