import Foundation
import Whereabouts

/// Replays the LE advertising reports of a btsnoop capture as `Scan`s: an `AsyncSequence`
/// that feeds the same pipeline as live scanning, without hardware.
///
/// ```swift
/// let replay = try BTSnoopReplay(url: URL(fileURLWithPath: "btsnoop_hci.log"), pace: .live(ContinuousClock()))
/// for try await scan in replay { print(scan.time, scan.readings.count) }
/// ```
///
/// Every event record (H4, unencapsulated HCI or monitor datalink) that is an advertising
/// report holding a wanted beacon becomes a scan at the record's time. Other records, and
/// malformed events (counted in ``Statistics``), are skipped; a malformed capture ends the
/// sequence with a ``BTSnoopError``.
///
/// Its ``pace`` says how fast: `ScanPace/replay` as fast as the consumer takes the scans,
/// `ScanPace/live(_:)` with the capture's own gaps between events, slept on that clock (a test
/// passes a `ManualClock`). A replay at its recorded pace is a live source: a `ScanTimeline`
/// or `LocationEngine.fixes(from:)` moves time between its scans too.
public struct BTSnoopReplay: PacedScans {
    /// What a replay read, for a summary.
    public struct Statistics: Hashable, Sendable {
        /// Records read.
        public var records = 0
        /// HCI events among them.
        public var events = 0
        /// Advertising reports in those events.
        public var reports = 0
        /// Events that could not be decoded.
        public var malformedEvents = 0
    }

    /// The capture's reader, at its first record.
    public let reader: BTSnoopReader
    /// Which reports become readings.
    public let decoder: SightingDecoder
    /// How fast to replay: as fast as possible, or (live) with the capture's own gaps.
    public let pace: ScanPace
    private let statistics = StatisticsBox()

    /// A replay of the capture in `bytes`.
    public init(bytes: [UInt8], decoder: SightingDecoder = SightingDecoder(), pace: ScanPace = .replay) throws(BTSnoopError) {
        try self.init(reader: BTSnoopReader(bytes: bytes), decoder: decoder, pace: pace)
    }

    /// A replay of the capture at `url`.
    public init(url: URL, decoder: SightingDecoder = SightingDecoder(), pace: ScanPace = .replay) throws(BTSnoopError) {
        try self.init(reader: BTSnoopReader(url: url), decoder: decoder, pace: pace)
    }

    /// A replay from a reader.
    public init(reader: BTSnoopReader, decoder: SightingDecoder = SightingDecoder(), pace: ScanPace = .replay) {
        self.reader = reader
        self.decoder = decoder
        self.pace = pace
    }

    /// What the iterations so far have read.
    public var readStatistics: Statistics { statistics.value }

    /// The sightings, one array per advertising report event (with the advertisers' addresses),
    /// instead of scans.
    public var sightings: Sightings { Sightings(replay: self) }

    /// The type of the scans.
    public typealias Element = Scan

    /// Starts replaying from the first record.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: Sightings.AsyncIterator(replay: self)) }

    /// Iterates the scans.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: Sightings.AsyncIterator

        /// The next scan, or `nil` at the end of the capture (or when the task is cancelled).
        public mutating func next() async throws -> Scan? {
            guard let sightings = try await base.next(), let first = sightings.first else { return nil }
            return base.replay.decoder.scan(from: sightings, at: first.time)
        }
    }

    /// The sightings of a replay, one array per event that held a wanted beacon.
    public struct Sightings: AsyncSequence, Sendable {
        let replay: BTSnoopReplay

        /// Starts replaying from the first record.
        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(replay: replay) }

        /// Iterates the sightings.
        public struct AsyncIterator: AsyncIteratorProtocol {
            let replay: BTSnoopReplay
            private var reader: BTSnoopReader
            /// The clock a replay at its recorded pace sleeps on.
            private let clock: LiveClock?
            /// When (on ``clock``) the first event was given, and its time in the capture.
            private var start: (elapsed: Duration, time: Double)?

            init(replay: BTSnoopReplay) {
                self.replay = replay
                reader = replay.reader
                if case .live(let clock) = replay.pace { self.clock = LiveClock(clock) } else { clock = nil }
            }

            /// The next event's sightings, or `nil` at the end of the capture (or when the task
            /// is cancelled).
            public mutating func next() async throws -> [BeaconSighting]? {
                while let record = try reader.next() {
                    if Task.isCancelled { return nil }
                    replay.statistics.update { $0.records += 1 }
                    guard let event = record.eventPacket(datalink: reader.datalink) else { continue }
                    let time = record.time
                    let sightings: [BeaconSighting]
                    do {
                        let decoded = try HCIEvent.decode(event, layout: replay.decoder.layout)
                        let reports = decoded.advertisingReports
                        replay.statistics.update { $0.events += 1; $0.reports += reports.count }
                        sightings = reports.compactMap { report in
                            replay.decoder.reading(from: report).map { BeaconSighting(time: time, address: report.address, reading: $0) }
                        }
                    } catch {
                        replay.statistics.update { $0.events += 1; $0.malformedEvents += 1 }
                        continue
                    }
                    guard !sightings.isEmpty else { continue }
                    if let clock {
                        let now = clock.elapsed()
                        let origin = start ?? (now, time)
                        start = origin
                        let due = origin.elapsed + .microseconds(Int64(Swift.max(0, Swift.min(time - origin.time, 1e9)) * 1_000_000))
                        if due > now {
                            do { try await clock.sleep(until: due) } catch { return nil }
                        }
                    }
                    return sightings
                }
                return nil
            }
        }
    }
}

/// Statistics shared by a replay's iterators.
final class StatisticsBox: @unchecked Sendable {
    private let lock = NSLock()
    private var statistics = BTSnoopReplay.Statistics()

    var value: BTSnoopReplay.Statistics { lock.withLock { statistics } }
    func update(_ body: (inout BTSnoopReplay.Statistics) -> Void) { lock.withLock { body(&statistics) } }
}
