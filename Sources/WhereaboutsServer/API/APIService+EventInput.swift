import Foundation
import Whereabouts

/// What a create brings: an event's JSON and the files sent with it.
extension APIService {
    /// One event to create: its JSON and the files sent with it.
    public struct EventCreateInput: Sendable {
        /// The event's fields, as the client sent them.
        public var json: JSONValue
        /// Files from a multipart request.
        public var files: [IncomingFile]

        /// Creates an input.
        public init(json: JSONValue, files: [IncomingFile] = []) {
            self.json = json
            self.files = files
        }

        /// Removes the files that were spooled to disk for this input and that the store did
        /// not take (it moves those it keeps). Call once the create is over, whatever its outcome.
        public func removeSpooledFiles() {
            for file in files {
                if case .spooledFile(let path) = file.content { unlink(path) }
            }
        }
    }

    /// A file sent with an event: its name and media type as the client gave them, its bytes or
    /// where they were spooled, and their size and digest.
    public struct IncomingFile: Sendable {
        /// The file's name.
        public var fileName: String
        /// Its media type.
        public var type: String
        /// Its bytes, or the file holding them.
        public var content: AttachmentUpload.Content
        /// Its size in bytes.
        public var size: Int
        /// Its Subresource Integrity string (`sha256-…`).
        public var integrity: String

        /// Describes a file whose size and digest are known (counted as it arrived).
        public init(fileName: String, type: String, content: AttachmentUpload.Content, size: Int, integrity: String) {
            self.fileName = fileName
            self.type = type
            self.content = content
            self.size = size
            self.integrity = integrity
        }
    }
}
