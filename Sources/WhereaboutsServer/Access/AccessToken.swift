import Crypto
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Making tokens and the hashes the stores keep instead of them.
///
/// A token is 32 characters of lowercase letters and digits drawn from the system's secure
/// random source (about 165 bits); only its SHA-256 hash is stored, so a copy of the database
/// does not give access.
public enum AccessToken {
    /// The characters of tokens and identifiers; base-36 digits are `alphabet[0..<36]` in the
    /// order `0`–`9`, `a`–`z`, so that identifiers sort by their time prefix.
    static let alphabet = Array("0123456789abcdefghijklmnopqrstuvwxyz".utf8)

    /// A new random token.
    public static func generate() -> String {
        var generator = SecureRandomWords()
        return generate(using: &generator, length: 32)
    }

    /// A new identifier (for accesses and events), Pryv-style (cuid-like): a `c` and 24
    /// characters, the first 8 of them the creation time; see ``IdentifierGenerator``.
    public static func generateIdentifier() -> String {
        var identifiers = IdentifierGenerator()
        return identifiers.next()
    }

    /// `length` characters of the alphabet from the generator, drawing one 64-bit word for every
    /// 10 characters rather than one per character (the system generator costs a system call per
    /// word). 2⁶⁴ / 36¹⁰ ≈ 5,000, so the base-36 digits of a word are uniform to within 1/5,000.
    /// The callers draw the words from ``SecureRandomWords``, many at a time.
    fileprivate static func generate(using generator: inout some RandomNumberGenerator, length: Int) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(length)
        appendRandomCharacters(length, using: &generator, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `count` random characters of the alphabet to `bytes` (see ``generate(using:length:)``).
    fileprivate static func appendRandomCharacters(
        _ count: Int, using generator: inout some RandomNumberGenerator, to bytes: inout [UInt8]
    ) {
        var word: UInt64 = 0
        var digitsLeft = 0
        for _ in 0..<count {
            if digitsLeft == 0 {
                word = generator.next()
                digitsLeft = 10
            }
            bytes.append(alphabet[Int(word % UInt64(alphabet.count))])
            word /= UInt64(alphabet.count)
            digitsLeft -= 1
        }
    }

    /// The SHA-256 hash of `token` in lowercase hexadecimal, as stores keep it.
    ///
    /// ```swift
    /// AccessToken.hash("abc")
    /// // "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    /// ```
    public static func hash(_ token: String) -> String {
        let digest = SHA256.hash(data: Array(token.utf8))
        let hex = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for byte in digest {
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

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

/// 64-bit words from the operating system's secure random source (`getentropy`), fetched
/// 256 bytes at a time rather than with a system call per word as `SystemRandomNumberGenerator`
/// does on Linux.
struct SecureRandomWords: RandomNumberGenerator, Sendable {
    private var buffer = [UInt64](repeating: 0, count: 32)  // getentropy's limit: 256 bytes
    private var position = 32

    mutating func next() -> UInt64 {
        if position == buffer.count { refill() }
        defer { position += 1 }
        return buffer[position]
    }

    private mutating func refill() {
        let filled = buffer.withUnsafeMutableBytes { getentropy($0.baseAddress, $0.count) == 0 }
        if !filled {
            var system = SystemRandomNumberGenerator()
            for index in buffer.indices { buffer[index] = system.next() }
        }
        position = 0
    }
}
