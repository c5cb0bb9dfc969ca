/// A 48-bit Bluetooth device address (`BD_ADDR`), written most significant byte first as
/// `AA:BB:CC:DD:EE:FF`.
///
/// HCI packets carry addresses least significant byte first; ``init(littleEndianBytes:)`` and
/// ``littleEndianBytes`` convert.
///
/// ```swift
/// let address = BluetoothAddress("C0:FF:EE:00:00:01")
/// address?.description   // "C0:FF:EE:00:00:01"
/// ```
public struct BluetoothAddress: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The 48 bits, most significant byte first in the printed form.
    public let rawValue: UInt64

    /// Creates an address from its 48-bit value (higher bits are dropped).
    public init(rawValue: UInt64) {
        self.rawValue = rawValue & 0xFFFF_FFFF_FFFF
    }

    /// Creates an address from the six bytes an HCI packet carries (least significant first), or
    /// `nil` when there are not exactly six.
    public init?(littleEndianBytes bytes: some Collection<UInt8>) {
        guard bytes.count == 6 else { return nil }
        var value: UInt64 = 0
        for (shift, byte) in bytes.enumerated() { value |= UInt64(byte) << (8 * UInt64(shift)) }
        self.init(rawValue: value)
    }

    /// Parses `AA:BB:CC:DD:EE:FF` (or with `-` separators, or none: `AABBCCDDEEFF`, as the
    /// specification also writes it and ESPresense's `mac` gives it; either case), or returns `nil`.
    public init?(_ text: String) {
        var parts = text.split(whereSeparator: { $0 == ":" || $0 == "-" })
        if parts.count == 1, text.count == 12 {
            parts = stride(from: 0, to: 12, by: 2).map { text.dropFirst($0).prefix(2) }
        }
        guard parts.count == 6 else { return nil }
        var value: UInt64 = 0
        for part in parts {
            guard part.count == 2, let byte = UInt8(part, radix: 16) else { return nil }
            value = value << 8 | UInt64(byte)
        }
        self.init(rawValue: value)
    }

    /// The six bytes as HCI packets carry them, least significant first.
    public var littleEndianBytes: [UInt8] {
        (0..<6).map { UInt8(truncatingIfNeeded: rawValue >> (8 * UInt64($0))) }
    }

    /// `AA:BB:CC:DD:EE:FF`, upper-case hexadecimal.
    public var description: String {
        let digits = Array("0123456789ABCDEF")
        var text = ""
        for index in (0..<6).reversed() {
            let byte = Int((rawValue >> (8 * UInt64(index))) & 0xFF)
            text.append(digits[byte >> 4])
            text.append(digits[byte & 0x0F])
            if index > 0 { text.append(":") }
        }
        return text
    }

    /// Orders addresses by their numeric value.
    public static func < (lhs: BluetoothAddress, rhs: BluetoothAddress) -> Bool { lhs.rawValue < rhs.rawValue }
}
