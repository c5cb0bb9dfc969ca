import Foundation

/// Reads BLE advertising data (the payload of an advertising report: a sequence of AD
/// structures, each `length, type, data[length - 1]`) into beacon frames.
///
/// ```swift
/// let bytes: [UInt8] = [0x02, 0x01, 0x06, 0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15, /* UUID, major, minor, power */ …]
/// switch try Advertisement.parse(bytes) {
/// case .iBeacon(let frame)?: print(frame.identity, frame.measuredPower)
/// case let other?: print(other.kind)
/// case nil: print("no beacon frame")
/// }
/// ```
///
/// Reading follows the Core Specification (Vol 3, Part C, §11): a length byte of 0 ends the
/// significant part and the rest is ignored; a structure whose length runs past the end is an
/// error. Reading iBeacon, AltBeacon and Eddystone-UID frames allocates no memory.
public enum Advertisement {
    /// Which advertising PDUs the data came from, which bounds its length.
    public enum Kind: Hashable, Sendable {
        /// Legacy advertising (`ADV_IND`, `ADV_NONCONN_IND`, scan responses, …): at most 31 bytes.
        case legacy
        /// Extended advertising (Bluetooth 5): at most 1650 bytes.
        case extended

        /// The longest advertising data such PDUs carry.
        public var maximumLength: Int {
            switch self {
            case .legacy: 31
            case .extended: 1650
            }
        }
    }

    /// One AD structure of advertising data.
    public struct Structure: Hashable, Sendable {
        /// The offset of the structure's length byte in the advertising data.
        public var offset: Int
        /// The AD type, such as `0x01` (flags), `0x16` (16-bit UUID service data) or `0xFF`
        /// (manufacturer specific data).
        public var type: UInt8
        /// The data after the type byte.
        public var data: [UInt8]

        /// Creates a structure.
        public init(offset: Int, type: UInt8, data: [UInt8]) {
            self.offset = offset
            self.type = type
            self.data = data
        }
    }

    /// The first beacon frame in `bytes`, or `nil` when the advertising data is well formed but
    /// holds no iBeacon, AltBeacon, Eddystone-UID, -URL or unencrypted -TLM frame.
    ///
    /// Every AD structure is checked, including those after the frame. Manufacturer data of
    /// other formats (and Apple data other than iBeacon), other Eddystone frame types and
    /// encrypted TLM frames are not beacon frames.
    ///
    /// - Parameters:
    ///   - bytes: The advertising data.
    ///   - kind: The advertising PDUs the data came from; bounds its length. Defaults to
    ///     `.extended`, which accepts both.
    /// - Throws: ``AdvertisementError`` saying what is malformed and at which byte.
    @inlinable
    public static func parse(_ bytes: some Collection<UInt8>, kind: Kind = .extended) throws(AdvertisementError) -> BeaconFrame? {
        let result = bytes.withContiguousStorageIfAvailable { buffer in
            parseResult(UnsafeRawBufferPointer(buffer), maximumLength: kind.maximumLength)
        } ?? Array(bytes).withUnsafeBytes { parseResult($0, maximumLength: kind.maximumLength) }
        return try result.get()
    }

    /// The first beacon frame in the advertising data in `buffer`; see `parse(_:kind:)` over a collection of bytes.
    public static func parse(_ buffer: UnsafeRawBufferPointer, kind: Kind = .extended) throws(AdvertisementError) -> BeaconFrame? {
        try parseResult(buffer, maximumLength: kind.maximumLength).get()
    }

    /// The AD structures of `bytes` up to the end or to a length byte of 0.
    ///
    /// ```swift
    /// try Advertisement.structures([0x02, 0x01, 0x06, 0x03, 0x03, 0xAA, 0xFE])
    /// // [Structure(offset: 0, type: 0x01, data: [0x06]), Structure(offset: 3, type: 0x03, data: [0xAA, 0xFE])]
    /// ```
    ///
    /// - Throws: ``AdvertisementError/dataTooLong(length:maximum:)`` or
    ///   ``AdvertisementError/structureOverrun(offset:length:available:)``.
    public static func structures(_ bytes: some Collection<UInt8>, kind: Kind = .extended) throws(AdvertisementError) -> [Structure] {
        let data = Array(bytes)
        guard data.count <= kind.maximumLength else { throw .dataTooLong(length: data.count, maximum: kind.maximumLength) }
        var structures = [Structure]()
        var offset = 0
        while offset < data.count {
            let length = Int(data[offset])
            if length == 0 { break }
            let available = data.count - offset - 1
            guard length <= available else { throw .structureOverrun(offset: offset, length: length, available: available) }
            structures.append(Structure(offset: offset, type: data[offset + 1], data: Array(data[(offset + 2)..<(offset + 1 + length)])))
            offset += 1 + length
        }
        return structures
    }

    // MARK: - Reading

    @usableFromInline
    static func parseResult(_ buffer: UnsafeRawBufferPointer, maximumLength: Int) -> Result<BeaconFrame?, AdvertisementError> {
        Result { () throws(AdvertisementError) in try parseBuffer(buffer, maximumLength: maximumLength) }
    }

    static func parseBuffer(_ buffer: UnsafeRawBufferPointer, maximumLength: Int) throws(AdvertisementError) -> BeaconFrame? {
        let count = buffer.count
        guard count <= maximumLength else { throw .dataTooLong(length: count, maximum: maximumLength) }
        var found: BeaconFrame?
        var offset = 0
        while offset < count {
            let length = Int(buffer[offset])
            if length == 0 { break }
            let available = count - offset - 1
            guard length <= available else { throw .structureOverrun(offset: offset, length: length, available: available) }
            if found == nil {
                found = try frame(in: buffer, structureAt: offset, type: buffer[offset + 1], dataCount: length - 1)
            }
            offset += 1 + length
        }
        return found
    }

    /// The beacon frame in the AD structure at `structure`, whose `dataCount` data bytes are in
    /// the buffer (the caller checked), or `nil` when it is not one.
    private static func frame(in buffer: UnsafeRawBufferPointer, structureAt structure: Int, type: UInt8,
                              dataCount: Int) throws(AdvertisementError) -> BeaconFrame? {
        let data = structure + 2
        switch type {
        case 0xFF where dataCount >= 3:
            if buffer[data] == 0x4C && buffer[data + 1] == 0x00 && buffer[data + 2] == 0x02 {
                return .iBeacon(try iBeacon(in: buffer, structureAt: structure, dataCount: dataCount))
            }
            if dataCount >= 4 && buffer[data + 2] == 0xBE && buffer[data + 3] == 0xAC {
                return .altBeacon(try altBeacon(in: buffer, structureAt: structure, dataCount: dataCount))
            }
            return nil
        case 0x16 where dataCount >= 2 && buffer[data] == 0xAA && buffer[data + 1] == 0xFE:
            return try eddystone(in: buffer, structureAt: structure, dataCount: dataCount)
        default:
            return nil
        }
    }

    private static func iBeacon(in buffer: UnsafeRawBufferPointer, structureAt structure: Int,
                                dataCount: Int) throws(AdvertisementError) -> IBeaconFrame {
        guard BeaconFrameKind.iBeacon.acceptsDataLength(dataCount) else {
            throw .invalidFrameLength(.iBeacon, offset: structure, length: dataCount)
        }
        let data = structure + 2
        guard buffer[data + 3] == 0x15 else { throw .invalidIBeaconLength(offset: data + 3, value: buffer[data + 3]) }
        return IBeaconFrame(identity: identity(in: buffer, at: data + 4),
                            measuredPower: Int8(bitPattern: buffer[data + 24]))
    }

    private static func altBeacon(in buffer: UnsafeRawBufferPointer, structureAt structure: Int,
                                  dataCount: Int) throws(AdvertisementError) -> AltBeaconFrame {
        guard BeaconFrameKind.altBeacon.acceptsDataLength(dataCount) else {
            throw .invalidFrameLength(.altBeacon, offset: structure, length: dataCount)
        }
        let data = structure + 2
        return AltBeaconFrame(manufacturerID: UInt16(buffer[data]) | UInt16(buffer[data + 1]) << 8,
                              identity: identity(in: buffer, at: data + 4),
                              referenceRSSI: Int8(bitPattern: buffer[data + 24]),
                              manufacturerReserved: buffer[data + 25])
    }

    private static func eddystone(in buffer: UnsafeRawBufferPointer, structureAt structure: Int,
                                  dataCount: Int) throws(AdvertisementError) -> BeaconFrame? {
        guard dataCount >= 3 else { throw .missingEddystoneFrameType(offset: structure) }
        let frame = structure + 4  // after length, type and the two UUID bytes
        switch buffer[frame] {
        case 0x00:
            guard BeaconFrameKind.eddystoneUID.acceptsDataLength(dataCount) else {
                throw .invalidFrameLength(.eddystoneUID, offset: structure, length: dataCount)
            }
            return .eddystoneUID(EddystoneUIDFrame(txPower: Int8(bitPattern: buffer[frame + 1]), idAt: frame + 2, in: buffer))
        case 0x10:
            guard BeaconFrameKind.eddystoneURL.acceptsDataLength(dataCount) else {
                throw .invalidFrameLength(.eddystoneURL, offset: structure, length: dataCount)
            }
            let url = try EddystoneURLFrame.decodeURL(in: buffer, at: frame + 2, count: dataCount - 4)
            return .eddystoneURL(EddystoneURLFrame(url: url, txPower: Int8(bitPattern: buffer[frame + 1])))
        case 0x20:
            // Version 0x00 is the unencrypted frame; 0x01 (encrypted) and later are not read.
            if dataCount >= 4 && buffer[frame + 1] != 0x00 { return nil }
            guard BeaconFrameKind.eddystoneTLM.acceptsDataLength(dataCount) else {
                throw .invalidFrameLength(.eddystoneTLM, offset: structure, length: dataCount)
            }
            return .eddystoneTLM(EddystoneTLMFrame(
                batteryVoltage: bigEndianUInt16(in: buffer, at: frame + 2),
                rawTemperature: Int16(bitPattern: bigEndianUInt16(in: buffer, at: frame + 4)),
                advertisementCount: bigEndianUInt32(in: buffer, at: frame + 6),
                uptimeTenths: bigEndianUInt32(in: buffer, at: frame + 10)))
        default:
            return nil  // EID (0x30), reserved types, non-zero low-order bits
        }
    }

    /// The UUID at `offset`, then major and minor big-endian (20 bytes, checked by the caller).
    private static func identity(in buffer: UnsafeRawBufferPointer, at offset: Int) -> IBeaconIdentity {
        IBeaconIdentity(uuid: UUID(uuid: buffer.loadUnaligned(fromByteOffset: offset, as: uuid_t.self)),
                        major: bigEndianUInt16(in: buffer, at: offset + 16),
                        minor: bigEndianUInt16(in: buffer, at: offset + 18))
    }

    private static func bigEndianUInt16(in buffer: UnsafeRawBufferPointer, at offset: Int) -> UInt16 {
        UInt16(bigEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }

    private static func bigEndianUInt32(in buffer: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
        UInt32(bigEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    // MARK: - Writing

    /// The flags AD structure frames are written with: LE General Discoverable, BR/EDR not supported.
    static let flagsStructure: [UInt8] = [0x02, 0x01, 0x06]

    /// Flags, the complete list of 16-bit service UUIDs holding `0xFEAA`, and the header of the
    /// Eddystone service data structure for a frame of `frameLength` bytes.
    static func eddystoneHeader(frameLength: Int) -> [UInt8] {
        var bytes = flagsStructure
        bytes.reserveCapacity(11 + frameLength)
        bytes += [0x03, 0x03, 0xAA, 0xFE, UInt8(truncatingIfNeeded: 3 + frameLength), 0x16, 0xAA, 0xFE]
        return bytes
    }
}
