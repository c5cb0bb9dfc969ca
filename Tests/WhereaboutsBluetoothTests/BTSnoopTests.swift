import Foundation
import Testing
@testable import Whereabouts
@testable import WhereaboutsBluetooth

@Suite struct BTSnoopTests {
    /// The header: "btsnoop\0", version 1, datalink 1002 = 0x3EA, big-endian.
    @Test func header() throws {
        #expect(BTSnoopWriter(datalink: .h4).bytes == [0x62, 0x74, 0x73, 0x6E, 0x6F, 0x6F, 0x70, 0x00,
                                                      0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x03, 0xEA])
        #expect(BTSnoopWriter(datalink: .monitor).bytes.suffix(4) == [0x00, 0x00, 0x07, 0xD1])   // 2001
        #expect(try BTSnoopReader(bytes: BTSnoopWriter(datalink: .other(1000)).bytes).datalink == .other(1000))
    }

    /// A record: original length, included length, flags, drops, then the timestamp. The Unix
    /// epoch is 0x00DCDDB30F2F8000 µs after 0 AD; 1.5 s later adds 1 500 000 = 0x16E360:
    /// 0x0F2F8000 + 0x0016E360 = 0x0F466360.
    @Test func recordLayoutAndTime() throws {
        var writer = BTSnoopWriter(datalink: .h4)
        writer.append(.event([0x0E, 0x04, 0x01, 0x0C, 0x20, 0x00], time: 1.5, datalink: .h4))
        #expect(Array(writer.bytes[16...]) == [0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x07,
                                               0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00,
                                               0x00, 0xDC, 0xDD, 0xB3, 0x0F, 0x46, 0x63, 0x60,
                                               0x04, 0x0E, 0x04, 0x01, 0x0C, 0x20, 0x00])
        var reader = try BTSnoopReader(bytes: writer.bytes)
        let record = try #require(try reader.next())
        #expect(record.time == 1.5 && record.timestamp == BTSnoop.unixEpochOffset + 1_500_000)
        #expect(try reader.next() == nil && reader.recordsRead == 1)
    }

    /// Every datalink: events written then read back, with their time, and non-event records
    /// (a command, ACL data) not read as events.
    @Test func roundTrip() throws {
        let events = [Vectors.legacyEvent(data: Vectors.iBeacon(major: 1, minor: 1)),
                      Vectors.extendedEvent(data: Vectors.eddystoneUID),
                      [0x0E, 0x04, 0x01, 0x0C, 0x20, 0x00]]
        for datalink in [BTSnoop.Datalink.h4, .monitor, .hciUnencapsulated] {
            var writer = BTSnoopWriter(datalink: datalink)
            switch datalink {
            case .h4: writer.append(BTSnoopRecord(data: HCICommand.setScanEnable(true).packet, flags: 0b10, timestamp: BTSnoop.timestamp(unixTime: 99)))
            case .monitor: writer.append(BTSnoopRecord(data: HCICommand.setScanEnable(true).bytes, flags: 2, timestamp: 0))
            default: writer.append(BTSnoopRecord(data: [0x01, 0x20, 0x00, 0x00], flags: 0b01, timestamp: 0, cumulativeDrops: 3, originalLength: 9))
            }
            for (index, event) in events.enumerated() {
                writer.append(.event(event, time: 1_700_000_000 + Double(index) * 0.25, datalink: datalink, index: 1))
            }
            var reader = try BTSnoopReader(bytes: writer.bytes)
            #expect(reader.datalink == datalink)
            var read: [[UInt8]] = [], times: [Double] = [], all: [BTSnoopRecord] = []
            while let record = try reader.next() {
                all.append(record)
                if let event = record.eventPacket(datalink: reader.datalink) {
                    read.append(Array(event))
                    times.append(record.time)
                }
            }
            #expect(read == events, "\(datalink)")
            #expect(times == [1_700_000_000, 1_700_000_000.25, 1_700_000_000.5])
            #expect(all.count == 4)
            if datalink == .monitor { #expect(all[1].flags == 0x0001_0003) }   // adapter 1, opcode 3
            if datalink == .hciUnencapsulated { #expect(all[0].cumulativeDrops == 3 && all[0].originalLength == 9) }
        }
    }

    @Test func malformedCaptures() throws {
        #expect(throws: BTSnoopError.truncatedHeader(length: 3)) { try BTSnoopReader(bytes: [0x62, 0x74, 0x73]) }
        #expect(throws: BTSnoopError.notBTSnoop) { try BTSnoopReader(bytes: Array("btsnoox\0".utf8) + [0, 0, 0, 1, 0, 0, 3, 0xEA]) }
        var header = BTSnoopWriter(datalink: .h4).bytes
        header[11] = 2
        #expect(throws: BTSnoopError.unsupportedVersion(2)) { try BTSnoopReader(bytes: header) }

        var writer = BTSnoopWriter(datalink: .h4)
        writer.append(.event([0x0E, 0x04, 0x01, 0x0C, 0x20, 0x00], time: 0, datalink: .h4))
        var cut = try BTSnoopReader(bytes: Array(writer.bytes.dropLast(2)))
        #expect(throws: BTSnoopError.truncatedRecord(offset: 16, needed: 31, available: 29)) { try cut.next() }
        var headerCut = try BTSnoopReader(bytes: Array(writer.bytes.prefix(30)))
        #expect(throws: BTSnoopError.truncatedRecord(offset: 16, needed: 24, available: 14)) { try headerCut.next() }
        // Included length (7) larger than the original (6).
        var inconsistent = writer.bytes
        inconsistent[19] = 6
        var reader = try BTSnoopReader(bytes: inconsistent)
        #expect(throws: BTSnoopError.invalidRecordLength(offset: 16, included: 7, original: 6)) { try reader.next() }
        #expect(throws: BTSnoopError.self) { try BTSnoopReader(url: URL(fileURLWithPath: "/nonexistent/capture.log")) }
    }

    /// A replay gives one scan per advertising event that holds a beacon, at the record's time,
    /// and counts what it skipped.
    @Test func replay() async throws {
        var writer = BTSnoopWriter(datalink: .h4)
        writer.append(.event(Vectors.legacyEvent(data: Vectors.iBeacon(major: 1, minor: 1)), time: 10, datalink: .h4))
        writer.append(.event([0x3E, 0x02, 0x02, 0x00], time: 10.1, datalink: .h4))                    // malformed
        writer.append(.event(Vectors.legacyEvent(data: [0x02, 0x01, 0x06]), time: 10.2, datalink: .h4)) // no beacon
        writer.append(BTSnoopRecord(data: [0x02, 0x01, 0x20, 0x00, 0x00], flags: 1, timestamp: 0))     // ACL
        writer.append(.event(Vectors.legacyEvent(data: Vectors.iBeacon(uuid: Vectors.otherUUID, major: 2, minor: 2), rssi: 0xB0),
                             time: 10.3, datalink: .h4))
        for pace in [ScanPace.replay, .live(ContinuousClock())] {
            let replay = try BTSnoopReplay(bytes: writer.bytes, pace: pace)
            var scans: [Scan] = []
            for try await scan in replay { scans.append(scan) }
            #expect(scans.map(\.time) == [10, 10.3])
            #expect(scans.map { $0.readings.map(\.rssi) } == [[-59], [-80]])
            // 5 records: 4 events, of which 1 malformed; 3 reports (2 beacons, 1 without a frame).
            #expect(replay.readStatistics == .init(records: 5, events: 4, reports: 3, malformedEvents: 1))
        }
        let filtered = try BTSnoopReplay(bytes: writer.bytes, decoder: SightingDecoder(uuids: [Vectors.otherUUID]))
        var sightings: [[BeaconSighting]] = []
        for try await batch in filtered.sightings { sightings.append(batch) }
        #expect(sightings.map { $0.map(\.address.description) } == [["C0:FF:EE:00:00:01"]])
        #expect(sightings.first?.first?.reading.beacon == .iBeacon(IBeaconIdentity(uuid: Vectors.otherUUID, major: 2, minor: 2)))
    }

    /// At its recorded pace a replay gives its first scan at once and each next one after the
    /// capture's own gap, slept on the pace's clock.
    @Test func aReplayAtItsRecordedPaceSleepsTheGapsOnItsClock() async throws {
        var writer = BTSnoopWriter(datalink: .h4)
        for (minor, time) in [(1, 10.0), (2, 10.3), (3, 12.3)] {
            writer.append(.event(Vectors.legacyEvent(data: Vectors.iBeacon(major: 1, minor: UInt16(minor))), time: time, datalink: .h4))
        }
        let clock = ManualClock()
        let replay = try BTSnoopReplay(bytes: writer.bytes, pace: .live(clock))
        #expect(replay.pace.isLive)
        let (times, sink) = AsyncStream.makeStream(of: Double.self)
        let replaying = Task {
            for try await scan in replay { sink.yield(scan.time) }
            sink.finish()
        }
        var received = times.makeAsyncIterator()
        #expect(await received.next() == 10)
        for (gap, time) in [(Duration.milliseconds(300), 10.3), (.seconds(2), 12.3)] {
            let sleeping = ContinuousClock.now + .seconds(60)
            while clock.sleeperCount == 0, ContinuousClock.now < sleeping { try await Task.sleep(for: .milliseconds(1)) }
            // It sleeps exactly until the gap after the first scan (on the capture's clock).
            let expected = ManualClock.Instant(offset: .milliseconds(Int64(((time - 10) * 1000).rounded())))
            #expect(clock.nextDeadline == expected)
            #expect(clock.now.advanced(by: gap) == expected)
            await clock.advance(to: clock.nextDeadline ?? expected)
            #expect(await received.next() == time)
        }
        #expect(await received.next() == nil)
        try await replaying.value
    }
}
