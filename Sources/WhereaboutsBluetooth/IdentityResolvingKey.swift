import _CryptoExtras
import Crypto
import Whereabouts

/// A device's identity resolving key (IRK): the 16 bytes with which a phone makes, and a bonded
/// peer resolves, the resolvable private addresses it advertises from — a new one every ~15
/// minutes on iPhones and recent Androids.
///
/// An address resolves when its low 24 bits are the random address hash `ah(IRK, prand)` of its
/// high 24 bits (Bluetooth Core Specification, Vol 3, Part H, §2.2.2 and Appendix D.7):
/// `ah(k, r) = e(k, r') mod 2²⁴`, `e` being AES-128 and `r'` the 24-bit `prand` padded with zeros
/// to 128 bits.
///
/// ```swift
/// let key = try IdentityResolvingKey(hex: "ec0234a357c8ad05341010a60a397d9b")
/// key.resolves(BluetoothAddress("70:81:94:0D:FB:AA")!)   // true: the specification's sample
/// ```
public struct IdentityResolvingKey: Hashable, Sendable, CustomStringConvertible {
    /// The key, most significant byte first (as the specification writes it).
    public let bytes: [UInt8]

    /// Why text is not a key.
    public struct ParseError: Error, CustomStringConvertible, Sendable {
        /// What is wrong.
        public var description: String
    }

    /// A key from 32 hexadecimal digits, most significant first; spaces, colons and dashes
    /// between them are ignored (read as a tags file reads its `irk`).
    public init(hex text: String) throws(ParseError) {
        guard let bytes = TagsFile.identityResolvingKey(hex: text) else {
            throw ParseError(description: "an identity resolving key is 32 hexadecimal digits (16 bytes, most significant first); "
                                 + "found \"\(text.prefix(80))\"")
        }
        self.bytes = bytes
    }

    /// A key of 16 bytes, most significant first (`Venue.Tag.identityResolvingKey`), or `nil`
    /// for another count.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// The key as 32 lower-case hexadecimal digits.
    public var description: String { TagsFile.hexadecimal(bytes) }

    /// Whether `address` is a resolvable private address (its two most significant bits 01)
    /// made with this key.
    public func resolves(_ address: BluetoothAddress) -> Bool {
        guard Self.isResolvable(address) else { return false }
        let prand = UInt32(truncatingIfNeeded: address.rawValue >> 24) & 0xFF_FFFF
        let hash = UInt32(truncatingIfNeeded: address.rawValue) & 0xFF_FFFF
        return randomAddressHash(prand) == hash
    }

    /// `ah(IRK, prand)`: the 24 least significant bits of AES-128 of `prand` padded to 128 bits.
    public func randomAddressHash(_ prand: UInt32) -> UInt32 {
        var block = [UInt8](repeating: 0, count: 16)
        block[13] = UInt8(truncatingIfNeeded: prand >> 16)
        block[14] = UInt8(truncatingIfNeeded: prand >> 8)
        block[15] = UInt8(truncatingIfNeeded: prand)
        // A 16-byte key and block: AES cannot refuse them.
        try? AES.permute(&block, key: SymmetricKey(data: bytes))
        return UInt32(block[13]) << 16 | UInt32(block[14]) << 8 | UInt32(block[15])
    }

    /// Whether `address` is a resolvable private address: its two most significant bits are 01.
    public static func isResolvable(_ address: BluetoothAddress) -> Bool {
        (address.rawValue >> 46) & 0b11 == 0b01
    }
}

/// Resolves advertisers' addresses to the devices whose keys made them: each new resolvable
/// address is tried against every key once (at most ``maximumKeys``), and the answer — a
/// device or none — is remembered (at most ``maximumRemembered`` addresses, the oldest forgotten
/// first), so an address already seen costs a look-up.
///
/// ```swift
/// var resolver = AddressResolver(keys: ["anna-phone": key])
/// resolver.device(for: address)   // "anna-phone", or nil
/// ```
public struct AddressResolver: Sendable {
    /// Keys at most.
    public static let maximumKeys = 10_000
    /// Addresses remembered at most.
    public static let maximumRemembered = 100_000

    private let keys: [(device: String, key: IdentityResolvingKey)]
    private var remembered: [BluetoothAddress: String?] = [:]
    private var order: [BluetoothAddress] = []
    private var head = 0

    /// A resolver of `keys`' devices (the first ``maximumKeys``, in the devices' order).
    public init(keys: [String: IdentityResolvingKey]) {
        self.keys = keys.sorted { $0.key < $1.key }.prefix(Self.maximumKeys).map { ($0.key, $0.value) }
    }

    /// The device whose key made `address`, or `nil` (an address that is not resolvable, or
    /// that no key made).
    public mutating func device(for address: BluetoothAddress) -> String? {
        guard IdentityResolvingKey.isResolvable(address) else { return nil }
        if let known = remembered[address] { return known }
        let device = keys.first { $0.key.resolves(address) }?.device
        if remembered.count >= Self.maximumRemembered {
            remembered[order[head]] = nil
            head += 1
            if head * 2 >= order.count { order.removeFirst(head); head = 0 }
        }
        remembered[address] = .some(device)
        order.append(address)
        return device
    }
}
