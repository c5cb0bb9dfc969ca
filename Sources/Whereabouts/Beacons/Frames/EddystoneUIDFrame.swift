/// An Eddystone-UID advertisement: a 10-byte namespace, a 6-byte instance and the Tx power at 0 m.
///
/// On the air it is service data (AD type `0x16`) of the Eddystone UUID `0xFEAA` (sent `AA FE`):
/// frame type `0x00`, Tx power, namespace, instance and two reserved bytes, which some beacons
/// leave out (both forms are read; the reserved bytes are always written, as zeros).
///
/// The frame keeps the id in fixed-size integers, so reading one allocates nothing;
/// ``identity`` builds the hexadecimal ``EddystoneIdentity``.
///
/// ```swift
/// let frame = EddystoneUIDFrame(identity: EddystoneIdentity(namespace: "8b0ca750095477cb3e77",
///                                                           instance: "000000000001")!,
///                               txPower: -18)
/// frame.measuredPower  // -59: dBm at 1 m (-18 - 41)
/// ```
public struct EddystoneUIDFrame: Hashable, Sendable {
    /// The calibrated Tx power at 0 m from the beacon, in dBm (Eddystone's "ranging data").
    public var txPower: Int8
    /// Namespace bytes 0–7, big-endian.
    private var namespaceHead: UInt64
    /// Namespace bytes 8–9, big-endian.
    private var namespaceTail: UInt16
    /// Instance bytes 0–5 in the low 48 bits, big-endian.
    private var instanceValue: UInt64

    /// Creates a frame advertising `identity`.
    public init(identity: EddystoneIdentity, txPower: Int8) {
        self.init(uncheckedNamespace: identity.namespaceBytes, instance: identity.instanceBytes, txPower: txPower)
    }

    /// Creates a frame from a 10-byte namespace and a 6-byte instance, or `nil` for other lengths.
    public init?(namespace: some Collection<UInt8>, instance: some Collection<UInt8>, txPower: Int8) {
        let namespace = Array(namespace), instance = Array(instance)
        guard namespace.count == 10, instance.count == 6 else { return nil }
        self.init(uncheckedNamespace: namespace, instance: instance, txPower: txPower)
    }

    private init(uncheckedNamespace namespace: [UInt8], instance: [UInt8], txPower: Int8) {
        self.txPower = txPower
        namespaceHead = namespace.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
        namespaceTail = namespace.dropFirst(8).prefix(2).reduce(0) { $0 << 8 | UInt16($1) }
        instanceValue = instance.prefix(6).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// Reads the frame whose namespace starts at `offset` of `buffer` (16 bytes must be there).
    init(txPower: Int8, idAt offset: Int, in buffer: UnsafeRawBufferPointer) {
        self.txPower = txPower
        namespaceHead = UInt64(bigEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        namespaceTail = UInt16(bigEndian: buffer.loadUnaligned(fromByteOffset: offset + 8, as: UInt16.self))
        let instanceHead = UInt16(bigEndian: buffer.loadUnaligned(fromByteOffset: offset + 10, as: UInt16.self))
        let instanceTail = UInt32(bigEndian: buffer.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
        instanceValue = UInt64(instanceHead) << 32 | UInt64(instanceTail)
    }

    /// The namespace's 10 bytes.
    public var namespaceBytes: [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: namespaceHead >> (56 - 8 * $0)) }
            + [UInt8(truncatingIfNeeded: namespaceTail >> 8), UInt8(truncatingIfNeeded: namespaceTail)]
    }

    /// The instance's 6 bytes.
    public var instanceBytes: [UInt8] {
        (0..<6).map { UInt8(truncatingIfNeeded: instanceValue >> (40 - 8 * $0)) }
    }

    /// The namespace and instance as an ``EddystoneIdentity`` (lower-case hexadecimal).
    public var identity: EddystoneIdentity {
        EddystoneIdentity(uncheckedNamespace: namespaceBytes.hexString, instance: instanceBytes.hexString)
    }

    /// The RSSI expected at 1 m, in dBm: ``txPower`` (at 0 m) minus 41 dB, the loss over the first
    /// metre that the Eddystone specification assumes.
    public var measuredPower: Int { Int(txPower) - 41 }

    /// Complete advertising data: flags (`02 01 06`), the service UUID list (`03 03 AA FE`) and
    /// the service data with the reserved bytes, 31 bytes.
    public func encoded() -> [UInt8] {
        var bytes = Advertisement.eddystoneHeader(frameLength: 20)
        bytes.append(0x00)
        bytes.append(UInt8(bitPattern: txPower))
        bytes += namespaceBytes
        bytes += instanceBytes
        bytes += [0x00, 0x00]
        return bytes
    }
}

/// An unencrypted Eddystone-TLM advertisement (version `0x00`): the beacon's battery voltage,
/// temperature, advertising count and time since power-on. It carries no beacon id; scanners
/// associate it with the UID or URL frames sent from the same device address.
public struct EddystoneTLMFrame: Hashable, Sendable {
    /// The battery voltage in millivolts; 0 when the beacon does not measure it.
    public var batteryVoltage: UInt16
    /// The beacon temperature as sent: degrees Celsius in signed 8.8 fixed point;
    /// ``temperatureNotSupported`` (`0x8000`) when the beacon does not measure it.
    public var rawTemperature: Int16
    /// Advertising PDUs sent since power-on or reboot.
    public var advertisementCount: UInt32
    /// Time since power-on or reboot, in tenths of a second.
    public var uptimeTenths: UInt32

    /// The ``rawTemperature`` of a beacon without a temperature sensor, `0x8000` (-128 °C).
    public static let temperatureNotSupported = Int16.min

    /// Creates a frame from the values as sent.
    public init(batteryVoltage: UInt16, rawTemperature: Int16 = EddystoneTLMFrame.temperatureNotSupported,
                advertisementCount: UInt32, uptimeTenths: UInt32) {
        self.batteryVoltage = batteryVoltage
        self.rawTemperature = rawTemperature
        self.advertisementCount = advertisementCount
        self.uptimeTenths = uptimeTenths
    }

    /// The temperature in degrees Celsius, or `nil` when the beacon does not report one.
    ///
    /// Setting it rounds to the nearest 1/256 °C and clamps to the range 8.8 fixed point holds
    /// (-127.996…127.996 °C); setting `nil` (or NaN) stores ``temperatureNotSupported``.
    public var temperature: Double? {
        get { rawTemperature == Self.temperatureNotSupported ? nil : Double(rawTemperature) / 256 }
        set {
            guard let newValue, !newValue.isNaN else { rawTemperature = Self.temperatureNotSupported; return }
            let scaled = (newValue * 256).rounded()
            rawTemperature = Int16(min(max(scaled, Double(Int16.min + 1)), Double(Int16.max)))
        }
    }

    /// Time since power-on or reboot, in seconds.
    public var uptime: Double { Double(uptimeTenths) / 10 }

    /// Complete advertising data: flags (`02 01 06`), the service UUID list (`03 03 AA FE`) and
    /// the TLM service data, 25 bytes.
    public func encoded() -> [UInt8] {
        var bytes = Advertisement.eddystoneHeader(frameLength: 14)
        bytes += [0x20, 0x00]
        bytes.appendBigEndian(batteryVoltage)
        bytes.appendBigEndian(UInt16(bitPattern: rawTemperature))
        bytes.appendBigEndian(advertisementCount)
        bytes.appendBigEndian(uptimeTenths)
        return bytes
    }
}
