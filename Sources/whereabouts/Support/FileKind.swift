import Foundation
import Whereabouts

/// What a file holds, told apart by content.
enum FileKind {
    /// A venue (a JSON object).
    case venue
    /// A recording (JSON Lines of scans).
    case recording
    /// No file there, or one that cannot be read.
    case missing

    /// A file whose first line is a complete JSON object with "t" or "readings" is a recording;
    /// anything else (a pretty-printed object, an object with "beacons") is read as a venue.
    static func of(_ url: URL) -> FileKind {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return .missing }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 1 << 16)) ?? Data()
        let bytes = [UInt8](head)
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: true)[...]
        while let first = lines.first, first.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { lines = lines.dropFirst() }
        guard let first = lines.first else { return url.pathExtension == "jsonl" ? .recording : .venue }
        if let value = try? JSONParser.parse(first), case .object = value {
            if value["beacons"] != nil { return .venue }
            if value["t"] != nil || value["readings"] != nil { return .recording }
        }
        return url.pathExtension == "jsonl" ? .recording : .venue
    }
}
