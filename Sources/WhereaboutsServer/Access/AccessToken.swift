import Crypto

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
    static func appendRandomCharacters(
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
