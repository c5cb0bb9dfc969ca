import Foundation
import Crypto
import Whereabouts

/// Making tokens and the hashes the stores keep instead of them.
///
/// A token is 32 characters of lowercase letters and digits drawn from the system's secure
/// random source (about 165 bits); only its SHA-256 hash is stored, so a copy of the database
/// does not give access.
public enum AccessToken {
    /// A new random token.
    public static func generate() -> String {
        var generator = SecureRandomWords()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        RandomCharacters.append(32, using: &generator, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A new identifier (for accesses and events), Pryv-style (cuid-like): a `c` and 24
    /// characters, the first 8 of them the creation time; see `IdentifierGenerator`.
    public static func generateIdentifier() -> String {
        var identifiers = IdentifierGenerator()
        return identifiers.next()
    }

    /// The token that lets `access` download one attachment with a plain link, as Pryv's
    /// `readToken`: the access's identifier, `-`, and an HMAC-SHA-256 of the event's and the
    /// attachment's identifiers keyed with the access's token hash (base 64, URL-safe, no
    /// padding). It works as long as the access does: deleting or expiring the access ends it,
    /// and only someone who can read the store could make one.
    public static func readToken(for access: Access, eventId: String, attachmentId: String) -> String {
        access.id + "-" + readTokenSignature(tokenHash: access.tokenHash, eventId: eventId, attachmentId: attachmentId)
    }

    /// Whether `readToken` is `access`'s token for this attachment (compared in constant time).
    public static func isReadToken(_ readToken: String, of access: Access, eventId: String, attachmentId: String) -> Bool {
        let expected = Array(Self.readToken(for: access, eventId: eventId, attachmentId: attachmentId).utf8)
        let given = Array(readToken.utf8)
        guard expected.count == given.count else { return false }
        var difference: UInt8 = 0
        for (left, right) in zip(expected, given) { difference |= left ^ right }
        return difference == 0
    }

    private static func readTokenSignature(tokenHash: String, eventId: String, attachmentId: String) -> String {
        let key = SymmetricKey(data: Array(tokenHash.utf8))
        let code = HMAC<SHA256>.authenticationCode(for: Array("\(eventId)/\(attachmentId)".utf8), using: key)
        return Data(code).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
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
