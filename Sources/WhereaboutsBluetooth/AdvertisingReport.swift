import Foundation
import Whereabouts

/// One advertisement a controller heard, from an LE Advertising Report (legacy) or an LE Extended
/// Advertising Report (Bluetooth 5) event.
public struct AdvertisingReport: Hashable, Sendable {
    /// The event type. For legacy reports the PDU type (``LegacyEventType``); for extended
    /// reports the bit field of Core Vol 4, Part E, §7.7.65.13 (bit 4: legacy PDU, bits 5–6:
    /// data status).
    public var eventType: UInt16
    /// Whether it came from an extended report, which bounds the data at 1650 bytes instead of 31.
    public var isExtended: Bool
    /// The advertiser's address type: 0 public, 1 random, 2/3 identity addresses, 0xFF anonymous.
    public var addressType: UInt8
    /// The advertiser's address.
    public var address: BluetoothAddress
    /// Received signal strength in dBm, or `nil` when the controller could not measure it (127).
    public var rssi: Int8?
    /// The transmit power the advertiser reported (extended reports only; `nil` when absent).
    public var txPower: Int8?
    /// The primary PHY (extended reports only).
    public var primaryPHY: UInt8?
    /// The secondary PHY, 0 when none (extended reports only).
    public var secondaryPHY: UInt8?
    /// The advertising set id, 0xFF when none (extended reports only).
    public var advertisingSID: UInt8?
    /// The periodic advertising interval in 1.25 ms units, 0 when none (extended reports only).
    public var periodicAdvertisingInterval: UInt16?
    /// The advertising (or scan response) data: AD structures.
    public var data: [UInt8]

    /// Creates a report.
    public init(eventType: UInt16, isExtended: Bool = false, addressType: UInt8 = 0, address: BluetoothAddress,
                rssi: Int8?, txPower: Int8? = nil, primaryPHY: UInt8? = nil, secondaryPHY: UInt8? = nil,
                advertisingSID: UInt8? = nil, periodicAdvertisingInterval: UInt16? = nil, data: [UInt8]) {
        self.eventType = eventType
        self.isExtended = isExtended
        self.addressType = addressType
        self.address = address
        self.rssi = rssi
        self.txPower = txPower
        self.primaryPHY = primaryPHY
        self.secondaryPHY = secondaryPHY
        self.advertisingSID = advertisingSID
        self.periodicAdvertisingInterval = periodicAdvertisingInterval
        self.data = data
    }

    /// The legacy PDU types of LE Advertising Report events.
    public enum LegacyEventType: UInt8, Hashable, Sendable {
        /// Connectable and scannable undirected (`ADV_IND`).
        case connectableUndirected = 0x00
        /// Connectable directed (`ADV_DIRECT_IND`).
        case connectableDirected = 0x01
        /// Scannable undirected (`ADV_SCAN_IND`).
        case scannableUndirected = 0x02
        /// Non-connectable undirected (`ADV_NONCONN_IND`), what most beacons send.
        case nonConnectableUndirected = 0x03
        /// A scan response (`SCAN_RSP`).
        case scanResponse = 0x04
    }

    /// Whether the data is complete. Extended reports can carry a fragment (data status 01, more
    /// to come) or a truncated advertisement (10); fragments are not read as frames.
    public var isComplete: Bool { !isExtended || (eventType >> 5) & 0x3 == 0 }

    /// The beacon frame in the data, or `nil` when there is none, the data is malformed or
    /// incomplete.
    public var frame: BeaconFrame? {
        guard isComplete else { return nil }
        return try? Advertisement.parse(data, kind: isExtended ? .extended : .legacy)
    }
}

/// A beacon heard once: the reading (beacon, RSSI, advertised power), who sent it and when.
///
/// Scans (`Scan`) carry readings only; sightings keep the advertiser's address as well, for
/// tables and diagnostics.
public struct BeaconSighting: Hashable, Sendable {
    /// When it was heard, in seconds since 1970.
    public var time: Double
    /// The advertiser's address.
    public var address: BluetoothAddress
    /// The beacon, its RSSI and the measured power its frame advertised.
    public var reading: Reading

    /// Creates a sighting.
    public init(time: Double, address: BluetoothAddress, reading: Reading) {
        self.time = time
        self.address = address
        self.reading = reading
    }
}

/// Turns HCI events into beacon sightings and scans: decodes advertising reports, reads their
/// frames (iBeacon, AltBeacon, Eddystone-UID) and keeps those of the wanted UUIDs.
///
/// ```swift
/// let decoder = SightingDecoder(uuids: [myUUID])
/// if let scan = decoder.scan(fromEvent: eventBytes, at: Date().timeIntervalSince1970) {
///     print(scan.readings)
/// }
/// ```
///
/// Reports without an RSSI, without a beacon frame (including Eddystone-URL and -TLM, which name
/// no beacon), with malformed data or with incomplete extended data give no reading — unless
/// the ``SightingDecoder/tagResolver`` names their resolvable private address.
public struct SightingDecoder: Sendable {
    /// The iBeacon/AltBeacon proximity UUIDs to keep; empty keeps every beacon. When it is not
    /// empty, Eddystone beacons are left out.
    public var uuids: Set<UUID>
    /// The layout of legacy advertising report events with several reports.
    public var layout: AdvertisingReportLayout
    /// The `device` of the scans made.
    public var device: String?
    /// Names the phones that advertise from resolvable private addresses by their keys: a
    /// report from such an address that holds no wanted beacon is a reading of the tag
    /// (`.id(tag)`) when one of the keys made the address.
    public var tagResolver: TagResolver?

    /// Creates a decoder.
    public init(uuids: Set<UUID> = [], layout: AdvertisingReportLayout = .groupedByField, device: String? = nil,
                tagResolver: TagResolver? = nil) {
        self.uuids = uuids
        self.layout = layout
        self.device = device
        self.tagResolver = tagResolver
    }

    /// The reading of one report, or `nil` when it holds no wanted beacon and comes from no
    /// tag the ``tagResolver`` resolves.
    public func reading(from report: AdvertisingReport) -> Reading? {
        guard let rssi = report.rssi else { return nil }
        if let frame = report.frame, let reading = frame.reading(rssi: Double(rssi)) {
            if uuids.isEmpty { return reading }
            if case .iBeacon(let identity) = reading.beacon, uuids.contains(identity.uuid) { return reading }
        }
        // A random device address (type 1) whose two most significant bits are 01.
        if report.addressType == 1, let tagResolver, let tag = tagResolver.tag(for: report.address) {
            return Reading(beacon: .id(tag), rssi: Double(rssi))
        }
        return nil
    }

    /// The sightings in an HCI event packet (event code, length, parameters; no H4 type byte);
    /// empty for events other than advertising reports.
    ///
    /// - Throws: ``HCIDecodingError`` when the event is malformed.
    public func sightings(fromEvent bytes: some Collection<UInt8>, at time: Double) throws(HCIDecodingError) -> [BeaconSighting] {
        let reports = try HCIEvent.decode(bytes, layout: layout).advertisingReports
        var sightings: [BeaconSighting] = []
        sightings.reserveCapacity(reports.count)
        for report in reports {
            if let reading = reading(from: report) {
                sightings.append(BeaconSighting(time: time, address: report.address, reading: reading))
            }
        }
        return sightings
    }

    /// The scan of an HCI event packet: one reading per report that holds a wanted beacon, or
    /// `nil` when there is none (or the event is malformed or not an advertising report).
    public func scan(fromEvent bytes: some Collection<UInt8>, at time: Double) -> Scan? {
        guard let event = try? HCIEvent.decode(bytes, layout: layout) else { return nil }
        return scan(from: event.advertisingReports, at: time)
    }

    /// The scan of some reports heard at `time`, or `nil` when none holds a wanted beacon.
    public func scan(from reports: [AdvertisingReport], at time: Double) -> Scan? {
        var readings: [Reading] = []
        for report in reports {
            if let reading = reading(from: report) { readings.append(reading) }
        }
        return readings.isEmpty ? nil : Scan(time: time, device: device, readings: readings)
    }

    /// The scan of some sightings (all heard at `time`), or `nil` when there are none.
    public func scan(from sightings: [BeaconSighting], at time: Double) -> Scan? {
        sightings.isEmpty ? nil : Scan(time: time, device: device, readings: sightings.map(\.reading))
    }
}
