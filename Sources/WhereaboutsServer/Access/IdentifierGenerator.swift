import Foundation

/// Identifiers for new events and accesses, cuid-like as Pryv's: a `c`, the creation time in
/// milliseconds (8 base-36 digits) and 16 random characters (about 82 bits).
///
/// The time prefix keeps a store's identifier index append-mostly: a batch of new events lands
/// in the last pages of the index instead of dirtying pages all over it. The random part comes
/// from the operating system's secure source, fetched for ten identifiers at a time.
///
/// ```swift
/// var identifiers = IdentifierGenerator()
/// let ids = (0..<1_000).map { _ in identifiers.next() }  // "cmi8…" and 24 characters each
/// ```
public struct IdentifierGenerator: Sendable {
    private var words = SecureRandomWords()

    /// Creates a generator.
    public init() {}

    /// A new identifier: a `c`, 8 characters of time and 16 random ones.
    public mutating func next() -> String {
        next(milliseconds: UInt64(max(0, Date().timeIntervalSince1970 * 1000)))
    }

    /// A new identifier for the given creation time, in milliseconds since 1970.
    mutating func next(milliseconds: UInt64) -> String {
        var bytes = [UInt8](repeating: UInt8(ascii: "0"), count: 9)
        bytes.reserveCapacity(25)
        bytes[0] = UInt8(ascii: "c")
        var time = milliseconds % 2_821_109_907_456  // 36⁸: the prefix wraps in the year 2059
        for index in stride(from: 8, through: 1, by: -1) {
            bytes[index] = AccessToken.alphabet[Int(time % 36)]
            time /= 36
        }
        AccessToken.appendRandomCharacters(16, using: &words, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
