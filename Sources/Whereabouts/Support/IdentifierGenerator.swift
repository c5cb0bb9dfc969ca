import Foundation

/// Identifiers for new events and accesses, cuid-like as Pryv's: a `c`, the creation time in
/// milliseconds (8 base-36 digits) and 16 random characters (about 82 bits).
///
/// The server names the events and accesses it creates with it, and a tracking client the
/// events it queues (so that an event keeps its identifier through every resend). The time
/// prefix keeps a store's identifier index append-mostly: a batch of new events lands in the
/// last pages of the index instead of dirtying pages all over it. The random part comes from the
/// operating system's secure source, fetched for ten identifiers at a time.
///
/// ```swift
/// var identifiers = IdentifierGenerator()
/// let ids = (0..<1_000).map { _ in identifiers.next() }  // "cmi8…" and 24 characters each
/// ```
public struct IdentifierGenerator: Sendable {
    private var words = SecureRandomWords()

    /// Creates a generator.
    public init() {}

    /// A new identifier created now: a `c`, 8 characters of time and 16 random ones.
    public mutating func next() -> String {
        next(createdAt: Date().timeIntervalSince1970)
    }

    /// A new identifier created at `time` (seconds since 1970; kept within 1970 … 5138, and the
    /// 8 digits of milliseconds wrap in 2059).
    public mutating func next(createdAt time: Double) -> String {
        next(milliseconds: UInt64(max(0, min(time.isNaN ? 0 : time, 1e11)) * 1000))
    }

    /// A new identifier for the given creation time, in milliseconds since 1970.
    package mutating func next(milliseconds: UInt64) -> String {
        var bytes = [UInt8](repeating: UInt8(ascii: "0"), count: 9)
        bytes.reserveCapacity(25)
        bytes[0] = UInt8(ascii: "c")
        var time = milliseconds % 2_821_109_907_456  // 36⁸: the prefix wraps in the year 2059
        for index in stride(from: 8, through: 1, by: -1) {
            bytes[index] = RandomCharacters.alphabet[Int(time % 36)]
            time /= 36
        }
        RandomCharacters.append(16, using: &words, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Random lowercase letters and digits, for tokens and identifiers.
package enum RandomCharacters {
    /// The characters of tokens and identifiers; base-36 digits are `alphabet[0..<36]` in the
    /// order `0`–`9`, `a`–`z`, so that identifiers sort by their time prefix.
    package static let alphabet = Array("0123456789abcdefghijklmnopqrstuvwxyz".utf8)

    /// Appends `count` characters of the alphabet drawn from `generator` to `bytes`, one 64-bit
    /// word for every 10 characters rather than one per character (the system generator costs a
    /// system call per word). 2⁶⁴ / 36¹⁰ ≈ 5,000, so the base-36 digits of a word are uniform to
    /// within 1/5,000.
    package static func append(
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
}
