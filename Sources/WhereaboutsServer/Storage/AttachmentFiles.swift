import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An attachment written and synced under a temporary name in `.incoming`.
struct StagedFile: Sendable {
    var path: String
    var attachmentId: String
}

/// Where an upload's file is once ``AttachmentFiles/place(_:user:event:)`` is done with it.
enum PlacedFile: Sendable {
    /// At its final path, synced with its folders: only the event's row is left to commit.
    case placed(path: String)
    /// Staged, because its final name was taken (a retried write of the same attachment
    /// identifiers): moved into place within the transaction, if the event turns out to be new.
    case staged(StagedFile)
}

/// The attachment files of a ``SQLiteEventStore``: `<root>/<user>/<event>/<attachment>`, each
/// name escaped so that no identifier can leave its folder.
///
/// Every method here blocks on the disk: the store calls them through ``BlockingFileWork``.
struct AttachmentFiles: Sendable {
    let root: String

    /// Where uploads are spooled and staged: on the same file system as their final place, so
    /// that moving one there is a rename. Files left here by a crash are removed on start.
    var incoming: String { root + "/.incoming" }

    /// `abc-_9` stays; any other byte becomes `%XX` (so `.`, `/` and `..` cannot appear).
    static func escape(_ component: String) -> String {
        var result = ""
        for byte in component.utf8 {
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x5F: result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                result += "%"
                result.unicodeScalars.append(hex[Int(byte >> 4)])
                result.unicodeScalars.append(hex[Int(byte & 0xF)])
            }
        }
        return result.isEmpty ? "%" : result
    }

    func eventDirectory(user: String, event: String) -> String {
        "\(root)/\(Self.escape(user))/\(Self.escape(event))"
    }

    /// Creates the folder that uploads are spooled to.
    func prepare() throws {
        try Self.makeDirectory(incoming)
    }

    /// Puts one event's uploads at their final paths, each file and its folders synced, before
    /// the event's row is written: the transaction that follows does no file work. A final
    /// name is only ever created, never replaced (`link(2)` fails on an existing name), so a
    /// write that turns out to repeat a stored event cannot touch that event's files; a taken
    /// name leaves its file staged for the transaction. On failure nothing is left behind.
    func place(_ uploads: [AttachmentUpload], user: String, event: String) throws -> [PlacedFile] {
        guard !uploads.isEmpty else { return [] }
        var done: [PlacedFile] = []
        do {
            let directory = eventDirectory(user: user, event: event)
            try Self.makeDirectory(directory)
            for upload in uploads {
                let staged = try stage(upload)
                let target = directory + "/" + Self.escape(upload.attachment.id)
                if link(staged.path, target) == 0 {
                    unlink(staged.path)
                    done.append(.placed(path: target))
                } else {
                    done.append(.staged(staged))
                }
            }
            try Self.syncDirectory(directory)
            try Self.syncDirectory(root + "/" + Self.escape(user))
            try Self.syncDirectory(root)
            return done
        } catch {
            discard(done)
            throw error
        }
    }

    /// A synced copy of an upload under `.incoming`: bytes are written there; a file spooled
    /// there already is synced where it is; one spooled elsewhere is copied.
    private func stage(_ upload: AttachmentUpload) throws -> StagedFile {
        try Self.makeDirectory(incoming)
        switch upload.content {
        case .spooledFile(let path) where (path as NSString).deletingLastPathComponent == incoming:
            try Self.syncFile(at: path)
            return StagedFile(path: path, attachmentId: upload.attachment.id)
        case .bytes, .spooledFile:
            let path = incoming + "/" + AccessToken.generate()
            try BlockingFileWork.write(upload.bytes(), to: path, creating: true, sync: true, what: "an attachment")
            return StagedFile(path: path, attachmentId: upload.attachment.id)
        }
    }

    /// Moves staged files to their event's folder (created and synced by ``place(_:user:event:)``)
    /// and syncs it.
    func install(_ staged: [StagedFile], user: String, event: String) throws {
        guard !staged.isEmpty else { return }
        let directory = eventDirectory(user: user, event: event)
        for file in staged {
            let target = directory + "/" + Self.escape(file.attachmentId)
            guard rename(file.path, target) == 0 else {
                throw StorageIOError(path: target, operation: "move an attachment into place", reason: Self.errnoText())
            }
        }
        try Self.syncDirectory(directory)
    }

    /// Removes the files of placements that will not be used (errors ignored: at worst they
    /// are orphans).
    func discard<S: Sequence<PlacedFile>>(_ placed: S) {
        for file in placed {
            switch file {
            case .placed(let path): unlink(path)
            case .staged(let staged): unlink(staged.path)
            }
        }
    }

    /// Removes staged files last changed more than `age` seconds ago: orphans of a crash between
    /// staging and installing (errors ignored; the next start tries again). Returns how many.
    @discardableResult
    func removeStaged(olderThan age: Double) -> Int {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: incoming) else { return 0 }
        let cutoff = Date().addingTimeInterval(-age)
        var removed = 0
        for name in names {
            let path = incoming + "/" + name
            guard let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date,
                  modified < cutoff
            else { continue }
            if unlink(path) == 0 { removed += 1 }
        }
        return removed
    }

    /// Removes a user's folder, with every attachment of theirs.
    func removeUser(_ user: String) throws {
        let folder = "\(root)/\(Self.escape(user))"
        guard FileManager.default.fileExists(atPath: folder) else { return }
        do {
            try FileManager.default.removeItem(atPath: folder)
        } catch {
            throw StorageIOError(path: folder, operation: "remove a user's attachments", reason: "\(error)")
        }
    }

    /// Removes an event's folder.
    func remove(user: String, event: String) {
        try? FileManager.default.removeItem(atPath: eventDirectory(user: user, event: event))
    }

    /// Removes one attachment's file.
    func remove(user: String, event: String, attachment: String) {
        unlink(eventDirectory(user: user, event: event) + "/" + Self.escape(attachment))
    }

    /// The bytes of one file, or `nil` when it does not exist.
    func read(user: String, event: String, attachment: String) throws -> [UInt8]? {
        let path = eventDirectory(user: user, event: event) + "/" + Self.escape(attachment)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw StorageIOError(path: path, operation: "read an attachment", reason: "the file cannot be read")
        }
        return [UInt8](data)
    }

    private static func makeDirectory(_ path: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw StorageIOError(path: path, operation: "create a folder", reason: "\(error)")
        }
    }

    private static func syncFile(at path: String) throws {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw StorageIOError(path: path, operation: "open an uploaded file", reason: errnoText()) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw StorageIOError(path: path, operation: "sync an uploaded file", reason: errnoText()) }
    }

    private static func syncDirectory(_ path: String) throws {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw StorageIOError(path: path, operation: "open a folder", reason: errnoText()) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw StorageIOError(path: path, operation: "sync a folder", reason: errnoText()) }
    }

    private static func errnoText() -> String {
        String(cString: strerror(errno))
    }
}
