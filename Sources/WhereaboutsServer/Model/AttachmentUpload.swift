import Crypto
import Foundation

/// A file being attached, with its description: its bytes in memory, or a file that the request
/// spooled to disk as it arrived.
///
/// ```swift
/// let bytes = Array("hello".utf8)
/// let upload = AttachmentUpload(
///     attachment: Attachment(id: "a1", fileName: "hello.txt", type: "text/plain",
///                            size: bytes.count, integrity: AttachmentUpload.integrity(of: bytes)),
///     data: bytes)
/// ```
public struct AttachmentUpload: Sendable {
    /// Where an upload's bytes are.
    public enum Content: Sendable, Hashable {
        /// The bytes, in memory.
        case bytes([UInt8])
        /// A file holding the bytes (written, not necessarily synced). A store may move it into
        /// its own place (``SQLiteEventStore`` does, when it is on the same file system) or read
        /// it; whoever made it removes what is left after the write.
        case spooledFile(path: String)
    }

    /// The attachment's description (its size and integrity match the content).
    public var attachment: Attachment
    /// The file's bytes, or where they are.
    public var content: Content

    /// Creates an upload of bytes held in memory.
    public init(attachment: Attachment, data: [UInt8]) {
        self.attachment = attachment
        self.content = .bytes(data)
    }

    /// Creates an upload of bytes wherever they are.
    public init(attachment: Attachment, content: Content) {
        self.attachment = attachment
        self.content = content
    }

    /// The file's bytes, read from its spool file when there is one. Blocking: call it off the
    /// concurrency pool (on a thread pool for blocking work).
    public func bytes() throws -> [UInt8] {
        switch content {
        case .bytes(let bytes):
            return bytes
        case .spooledFile(let path):
            guard let data = FileManager.default.contents(atPath: path) else {
                throw StorageIOError(path: path, operation: "read an uploaded file", reason: "the file cannot be read")
            }
            return [UInt8](data)
        }
    }

    /// A Subresource Integrity string (`sha256-…` in base 64) of `bytes`.
    public static func integrity(of bytes: [UInt8]) -> String {
        var digest = IntegrityDigest()
        digest.update(bytes)
        return digest.finish()
    }
}

/// The SHA-256 of a file fed piece by piece, finished as an attachment's integrity string.
struct IntegrityDigest {
    private var hasher = SHA256()

    /// Adds the next bytes.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        hasher.update(bufferPointer: bytes)
    }

    /// Adds the next bytes.
    mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// `sha256-` and the digest in base 64.
    func finish() -> String {
        "sha256-" + Data(hasher.finalize()).base64EncodedString()
    }
}
