/// An HCI command packet: an opcode (OGF and OCF) and its parameters, as the Bluetooth Core
/// Specification (Vol 4, Part E, §5.4.1 and §7.8) defines them.
///
/// ```swift
/// let command = HCICommand.setScanParameters(type: .active, interval: 0x0010, window: 0x0010)
/// command.packet   // [0x01, 0x0B, 0x20, 0x07, 0x01, 0x10, 0x00, 0x10, 0x00, 0x00, 0x00]
/// ```
///
/// Intervals and windows are in units of 0.625 ms, as on the wire; ``ScanTiming`` converts from
/// seconds.
public struct HCICommand: Hashable, Sendable {
    /// The opcode: `OGF << 10 | OCF`.
    public var opcode: UInt16
    /// The parameters (at most 255 bytes).
    public var parameters: [UInt8]

    /// Creates a command from its opcode and parameters.
    public init(opcode: UInt16, parameters: [UInt8] = []) {
        self.opcode = opcode
        self.parameters = parameters
    }

    /// Creates a command from its opcode group and command field.
    public init(ogf: UInt16, ocf: UInt16, parameters: [UInt8] = []) {
        self.init(opcode: ogf << 10 | (ocf & 0x03FF), parameters: parameters)
    }

    /// The opcode group field (`0x08` for LE controller commands).
    public var ogf: UInt16 { opcode >> 10 }
    /// The opcode command field.
    public var ocf: UInt16 { opcode & 0x03FF }

    /// The command as an HCI command packet without the H4 packet type: opcode (little-endian),
    /// parameter length, parameters.
    public var bytes: [UInt8] {
        [UInt8(truncatingIfNeeded: opcode), UInt8(truncatingIfNeeded: opcode >> 8),
         UInt8(truncatingIfNeeded: parameters.count)] + parameters.prefix(255)
    }

    /// The command as an H4 (UART) packet, as written to a Linux HCI socket: the packet type
    /// `0x01` followed by ``bytes``.
    public var packet: [UInt8] { [HCIPacketType.command.rawValue] + bytes }

    // MARK: - Opcodes

    /// The opcodes of the commands the scanner uses.
    public enum Opcode {
        /// LE Read Local Supported Features (OGF 0x08, OCF 0x0003).
        public static let readLocalSupportedFeatures: UInt16 = 0x2003
        /// LE Set Scan Parameters (OGF 0x08, OCF 0x000B).
        public static let setScanParameters: UInt16 = 0x200B
        /// LE Set Scan Enable (OGF 0x08, OCF 0x000C).
        public static let setScanEnable: UInt16 = 0x200C
        /// LE Set Extended Scan Parameters (OGF 0x08, OCF 0x0041), Bluetooth 5.
        public static let setExtendedScanParameters: UInt16 = 0x2041
        /// LE Set Extended Scan Enable (OGF 0x08, OCF 0x0042), Bluetooth 5.
        public static let setExtendedScanEnable: UInt16 = 0x2042
    }

    /// Passive scanning only listens; active scanning also asks scannable advertisers for their
    /// scan response.
    public enum ScanType: UInt8, Hashable, Sendable {
        /// Listen only (`0x00`).
        case passive = 0x00
        /// Send scan requests (`0x01`).
        case active = 0x01
    }

    /// The PHYs extended scanning listens on (`Scanning_PHYs` bits).
    public struct ScanningPHYs: OptionSet, Hashable, Sendable {
        /// The bits.
        public let rawValue: UInt8
        /// Creates a set from its bits.
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// LE 1M (bit 0).
        public static let le1M = ScanningPHYs(rawValue: 0x01)
        /// LE Coded (bit 2).
        public static let leCoded = ScanningPHYs(rawValue: 0x04)
    }

    /// LE Read Local Supported Features: the controller answers with 8 bytes of LE feature bits
    /// (bit 12: LE Extended Advertising).
    public static var readLocalSupportedFeatures: HCICommand { HCICommand(opcode: Opcode.readLocalSupportedFeatures) }

    /// LE Set Scan Parameters (Core Vol 4, Part E, §7.8.10).
    ///
    /// - Parameters:
    ///   - type: Passive or active.
    ///   - interval: Time between the starts of two scan windows, 0x0004…0x4000 × 0.625 ms.
    ///   - window: Length of a scan window, 0x0004…`interval` × 0.625 ms.
    ///   - ownAddressType: 0 public, 1 random, 2/3 resolvable private with fallback.
    ///   - filterPolicy: 0 accepts all advertisements.
    public static func setScanParameters(type: ScanType, interval: UInt16, window: UInt16,
                                         ownAddressType: UInt8 = 0, filterPolicy: UInt8 = 0) -> HCICommand {
        HCICommand(opcode: Opcode.setScanParameters,
                   parameters: [type.rawValue] + interval.littleEndianBytes + window.littleEndianBytes
                       + [ownAddressType, filterPolicy])
    }

    /// LE Set Scan Enable (Core Vol 4, Part E, §7.8.11).
    public static func setScanEnable(_ enable: Bool, filterDuplicates: Bool = false) -> HCICommand {
        HCICommand(opcode: Opcode.setScanEnable, parameters: [enable ? 1 : 0, filterDuplicates ? 1 : 0])
    }

    /// LE Set Extended Scan Parameters (Core Vol 4, Part E, §7.8.64): the same type, interval and
    /// window on every PHY of `phys`, in order of their bits.
    public static func setExtendedScanParameters(type: ScanType, interval: UInt16, window: UInt16,
                                                 phys: ScanningPHYs = .le1M, ownAddressType: UInt8 = 0,
                                                 filterPolicy: UInt8 = 0) -> HCICommand {
        var parameters: [UInt8] = [ownAddressType, filterPolicy, phys.rawValue]
        for bit in 0..<8 where phys.rawValue & (1 << bit) != 0 {
            parameters += [type.rawValue] + interval.littleEndianBytes + window.littleEndianBytes
        }
        return HCICommand(opcode: Opcode.setExtendedScanParameters, parameters: parameters)
    }

    /// LE Set Extended Scan Enable (Core Vol 4, Part E, §7.8.65). A `duration` of 0 scans until
    /// disabled; `period` 0 scans continuously.
    public static func setExtendedScanEnable(_ enable: Bool, filterDuplicates: Bool = false,
                                             duration: UInt16 = 0, period: UInt16 = 0) -> HCICommand {
        HCICommand(opcode: Opcode.setExtendedScanEnable,
                   parameters: [enable ? 1 : 0, filterDuplicates ? 1 : 0] + duration.littleEndianBytes + period.littleEndianBytes)
    }
}

/// The H4 (UART transport) packet types: the first byte of every packet on a Linux HCI socket
/// and in a btsnoop capture with datalink 1002.
public enum HCIPacketType: UInt8, Hashable, Sendable {
    /// An HCI command (host to controller).
    case command = 0x01
    /// ACL data.
    case aclData = 0x02
    /// Synchronous (SCO) data.
    case scoData = 0x03
    /// An HCI event (controller to host).
    case event = 0x04
    /// ISO data (Bluetooth 5.2).
    case isoData = 0x05
}

/// Scan interval and window in seconds, converted to the controller's 0.625 ms units.
///
/// ```swift
/// let timing = ScanTiming(interval: 0.1, window: 0.1)   // 160 × 0.625 ms each
/// ```
public struct ScanTiming: Hashable, Sendable {
    /// Time between the starts of two scan windows, in units of 0.625 ms.
    public let intervalUnits: UInt16
    /// Length of a scan window, in units of 0.625 ms.
    public let windowUnits: UInt16

    /// Interval and window both 100 ms: continuous scanning, the usual choice for beacon tracking.
    public init() {
        intervalUnits = 160
        windowUnits = 160
    }

    /// The timing for an `interval` and `window` in seconds, or `nil` unless
    /// 2.5 ms ≤ window ≤ interval ≤ 10.24 s (the range legacy scanning accepts).
    public init?(interval: Double, window: Double) {
        let units = (interval / 0.000625).rounded(), windowUnits = (window / 0.000625).rounded()
        guard units.isFinite, windowUnits.isFinite, windowUnits >= 4, units <= 0x4000, windowUnits <= units else { return nil }
        intervalUnits = UInt16(units)
        self.windowUnits = UInt16(windowUnits)
    }

    /// The interval in seconds.
    public var interval: Double { Double(intervalUnits) * 0.000625 }
    /// The window in seconds.
    public var window: Double { Double(windowUnits) * 0.000625 }
}

extension UInt16 {
    var littleEndianBytes: [UInt8] { [UInt8(truncatingIfNeeded: self), UInt8(truncatingIfNeeded: self >> 8)] }
}
