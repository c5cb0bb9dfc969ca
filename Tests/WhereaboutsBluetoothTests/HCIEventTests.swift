import Testing
@testable import Whereabouts
@testable import WhereaboutsBluetooth

@Suite struct HCIEventTests {
    /// Command Complete for LE Set Scan Enable: allowed commands 1, opcode 0x200C, status 0.
    @Test func commandComplete() throws {
        #expect(try HCIEvent.decode([0x0E, 0x04, 0x01, 0x0C, 0x20, 0x00])
                == .commandComplete(opcode: 0x200C, allowedCommands: 1, returnParameters: [0x00]))
        // Command Status: status 0x0C (Command Disallowed), allowed 1, opcode 0x2042.
        #expect(try HCIEvent.decode([0x0F, 0x04, 0x0C, 0x01, 0x42, 0x20]) == .commandStatus(opcode: 0x2042, status: 0x0C, allowedCommands: 1))
        #expect(try HCIEvent.decode([0x05, 0x04, 0x00, 0x40, 0x00, 0x13]) == .other(code: 0x05, parameters: [0x00, 0x40, 0x00, 0x13]))
        #expect(try HCIEvent.decode([0x3E, 0x02, 0x14, 0x01]) == .leMeta(subevent: 0x14, parameters: [0x01]))
    }

    /// One report: subevent 0x02, one report, ADV_NONCONN_IND, random address C0:FF:EE:00:00:01
    /// (sent least significant byte first), 30 bytes of iBeacon data, RSSI 0xC5 = −59 dBm.
    @Test func oneLegacyReport() throws {
        let data = Vectors.iBeacon(major: 1, minor: 2)
        let event = Vectors.legacyEvent(data: data)
        #expect(event.count == 2 + 12 + 30 && event[1] == 42)
        let reports = try HCIEvent.decode(event).advertisingReports
        #expect(reports.count == 1)
        let report = try #require(reports.first)
        #expect(report.eventType == 0x03 && report.addressType == 0x01 && !report.isExtended)
        #expect(report.address.description == "C0:FF:EE:00:00:01")
        #expect(report.rssi == -59 && report.txPower == nil && report.data == data)
        #expect(report.frame?.reference == .iBeacon(IBeaconIdentity(uuid: Vectors.uuid, major: 1, minor: 2)))
        // With one report the two layouts are the same bytes.
        #expect(try HCIEvent.decode(event, layout: .interleaved) == HCIEvent.decode(event))
        // RSSI 127 means "not available".
        #expect(try HCIEvent.decode(Vectors.legacyEvent(data: data, rssi: 0x7F)).advertisingReports.first?.rssi == nil)
    }

    /// Two reports in the Core 4.x layout, every field an array:
    /// Num_Reports 2 | Event_Type 03 00 | Address_Type 01 00 | Address[0] Address[1] |
    /// Data_Length 03 02 | Data[0] (3 bytes) Data[1] (2 bytes) | RSSI C5 B0.
    @Test func twoReportsGroupedByField() throws {
        let parameters: [UInt8] = [0x02, 0x02,
                                   0x03, 0x00,
                                   0x01, 0x00,
                                   0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26,
                                   0x03, 0x02,
                                   0x02, 0x01, 0x06, 0x01, 0x09,
                                   0xC5, 0xB0]
        let event = [0x3E, UInt8(parameters.count)] + parameters
        let reports = try HCIEvent.decode(event, layout: .groupedByField).advertisingReports
        #expect(reports == [
            AdvertisingReport(eventType: 0x03, addressType: 0x01, address: BluetoothAddress(rawValue: 0x16_15_14_13_12_11),
                              rssi: -59, data: [0x02, 0x01, 0x06]),
            AdvertisingReport(eventType: 0x00, addressType: 0x00, address: BluetoothAddress(rawValue: 0x26_25_24_23_22_21),
                              rssi: -80, data: [0x01, 0x09]),
        ])
        // Read one report after another, the same bytes do not add up.
        #expect(throws: HCIDecodingError.self) { try HCIEvent.decode(event, layout: .interleaved) }
    }

    /// The same two reports, one after another (BlueZ's reading).
    @Test func twoReportsInterleaved() throws {
        let parameters: [UInt8] = [0x02, 0x02,
                                   0x03, 0x01, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x03, 0x02, 0x01, 0x06, 0xC5,
                                   0x00, 0x00, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x02, 0x01, 0x09, 0xB0]
        let event = [0x3E, UInt8(parameters.count)] + parameters
        let reports = try HCIEvent.decode(event, layout: .interleaved).advertisingReports
        #expect(reports.map(\.rssi) == [-59, -80])
        #expect(reports.map(\.data) == [[0x02, 0x01, 0x06], [0x01, 0x09]])
        #expect(reports.map(\.address.description) == ["16:15:14:13:12:11", "26:25:24:23:22:21"])
    }

    /// LE Extended Advertising Report (subevent 0x0D): event type 0x0010 (legacy PDU, complete),
    /// public address, 1M primary PHY, no secondary PHY, no SID, TX power 0x7F (none), RSSI 0xBA
    /// = −70 dBm, no periodic interval, no direct address, data.
    @Test func extendedReport() throws {
        let data = Vectors.eddystoneUID
        let event = Vectors.extendedEvent(txPower: 0xF4, data: data)
        let report = try #require(try HCIEvent.decode(event).advertisingReports.first)
        #expect(report.isExtended && report.eventType == 0x0010 && report.isComplete)
        #expect(report.address.description == "C0:FF:EE:00:00:02")
        #expect(report.rssi == -70 && report.txPower == -12)
        #expect(report.primaryPHY == 1 && report.secondaryPHY == 0 && report.advertisingSID == 0xFF)
        #expect(report.periodicAdvertisingInterval == 0 && report.data == data)
        if case .eddystoneUID = report.frame {} else { Issue.record("expected Eddystone-UID") }
        // Data status 01 (incomplete, more to come): not read as a frame.
        let fragment = try #require(try HCIEvent.decode(Vectors.extendedEvent(eventType: 0x0020, data: data)).advertisingReports.first)
        #expect(!fragment.isComplete && fragment.frame == nil)
        #expect(try HCIEvent.decode(Vectors.extendedEvent(data: data)).advertisingReports.first?.txPower == nil)
    }

    @Test func malformedEvents() {
        #expect(throws: HCIDecodingError.truncatedHeader(length: 0)) { try HCIEvent.decode([]) }
        #expect(throws: HCIDecodingError.truncatedHeader(length: 1)) { try HCIEvent.decode([0x3E]) }
        #expect(throws: HCIDecodingError.lengthMismatch(declared: 5, available: 2)) { try HCIEvent.decode([0x3E, 0x05, 0x02, 0x01]) }
        #expect(throws: HCIDecodingError.lengthMismatch(declared: 0, available: 1)) { try HCIEvent.decode([0x0E, 0x00, 0x01]) }
        #expect(throws: HCIDecodingError.truncated(event: 0x0E, subevent: nil, needed: 3, available: 2)) { try HCIEvent.decode([0x0E, 0x02, 0x01, 0x0C]) }
        #expect(throws: HCIDecodingError.truncated(event: 0x3E, subevent: nil, needed: 1, available: 0)) { try HCIEvent.decode([0x3E, 0x00]) }
        #expect(throws: HCIDecodingError.noReports(subevent: 0x02)) { try HCIEvent.decode([0x3E, 0x02, 0x02, 0x00]) }
        #expect(throws: HCIDecodingError.noReports(subevent: 0x0D)) { try HCIEvent.decode([0x3E, 0x02, 0x0D, 0x00]) }
        // One report declaring 30 data bytes, cut after 10 of them: the event's own length is
        // consistent, the report is not.
        let full = Vectors.legacyEvent(data: Vectors.iBeacon(major: 1, minor: 1))
        var cut = Array(full.prefix(2 + 12 + 10))
        cut[1] = UInt8(cut.count - 2)
        for layout in [AdvertisingReportLayout.groupedByField, .interleaved] {
            #expect(throws: HCIDecodingError.self) { try HCIEvent.decode(cut, layout: layout) }
        }
        // A byte after the last report.
        var long = full + [0x00]
        long[1] += 1
        #expect(throws: HCIDecodingError.trailingBytes(subevent: 0x02, count: 1)) { try HCIEvent.decode(long) }
        #expect(throws: HCIDecodingError.trailingBytes(subevent: 0x02, count: 1)) { try HCIEvent.decode(long, layout: .interleaved) }
        // Extended: fewer than the 24 fixed bytes.
        let extended = Vectors.extendedEvent(data: [])
        var short = Array(extended.dropLast(5))
        short[1] = UInt8(short.count - 2)
        #expect(throws: HCIDecodingError.truncated(event: 0x3E, subevent: 0x0D, needed: 25, available: 20)) { try HCIEvent.decode(short) }
        #expect(HCIDecodingError.noReports(subevent: 0x02).description == "advertising report event (subevent 0x02) declares no reports")
    }

    /// Readings: RSSI and the frame's measured power; UUID filter; reports without RSSI or
    /// beacon frame give none.
    @Test func sightingDecoder() throws {
        let event = Vectors.legacyEvent(data: Vectors.iBeacon(major: 7, minor: 9, power: -61), rssi: 0xB5)  // −75 dBm
        let sightings = try SightingDecoder().sightings(fromEvent: event, at: 12.5)
        #expect(sightings == [BeaconSighting(time: 12.5, address: BluetoothAddress(rawValue: 0xC0FFEE000001),
                                             reading: Reading(beacon: .iBeacon(IBeaconIdentity(uuid: Vectors.uuid, major: 7, minor: 9)),
                                                              rssi: -75, txPower: -61))])
        #expect(SightingDecoder(uuids: [Vectors.uuid], device: "gw").scan(fromEvent: event, at: 3)
                == Scan(time: 3, device: "gw", readings: sightings.map(\.reading)))
        #expect(SightingDecoder(uuids: [Vectors.otherUUID]).scan(fromEvent: event, at: 3) == nil)
        // Eddystone-UID: txPower −18 dBm at 0 m − 41 dB = −59 at 1 m; left out by a UUID filter.
        let eddystone = Vectors.extendedEvent(data: Vectors.eddystoneUID)
        #expect(SightingDecoder().scan(fromEvent: eddystone, at: 1)?.readings.first?.txPower == -59)
        #expect(SightingDecoder(uuids: [Vectors.uuid]).scan(fromEvent: eddystone, at: 1) == nil)
        #expect(SightingDecoder().scan(fromEvent: Vectors.legacyEvent(data: Vectors.iBeacon(major: 1, minor: 1), rssi: 0x7F), at: 1) == nil)
        #expect(SightingDecoder().scan(fromEvent: Vectors.legacyEvent(data: [0x02, 0x01, 0x06]), at: 1) == nil)
        #expect(SightingDecoder().scan(fromEvent: [0x0E, 0x04, 0x01, 0x0C, 0x20, 0x00], at: 1) == nil)
        #expect(throws: HCIDecodingError.self) { try SightingDecoder().sightings(fromEvent: [0x3E], at: 1) }
    }
}
