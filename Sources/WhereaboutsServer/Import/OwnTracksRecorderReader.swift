import Foundation
import Whereabouts

/// Reads an OwnTracks Recorder file (`rec/USER/DEVICE/YYYY-MM.rec`, lines
/// `TIME<tab>TOPIC<tab>JSON`): every location becomes a position as OwnTracks' HTTP mode makes it
/// (``OwnTracksMessage``: the same fields, the device from the folder's name, the same event
/// identifier, so that a location both posted live and imported is stored once). Lines of other
/// types (transitions, waypoints…) are passed over; a line that is not a location the Recorder
/// wrote is refused.
enum OwnTracksRecorderReader {
    /// Reads `file` into `sink`.
    static func read(_ file: String, into sink: inout ImportSink) async throws {
        let device = ((file as NSString).deletingLastPathComponent as NSString).lastPathComponent
        guard let data = FileManager.default.contents(atPath: file) else {
            sink.refuse(file, 0, "cannot be read")
            return
        }
        // Lines and fields found by scanning an array of the file's bytes (`Data`'s own split
        // cost a sixth of the import's time).
        let bytes = [UInt8](data)
        var number = 0, start = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            let line = bytes[start..<end]
            start = end + 1
            number += 1
            guard !line.isEmpty else { continue }
            // TIME <tab> TOPIC (padded) <tab> JSON
            guard let firstTab = line.firstIndex(of: UInt8(ascii: "\t")),
                  let secondTab = line[(firstTab + 1)...].firstIndex(of: UInt8(ascii: "\t"))
            else { sink.refuse(file, number, "not TIME<tab>TOPIC<tab>JSON"); continue }
            let message: JSONValue
            do { message = try JSONParser.parse(line[(secondTab + 1)...]) } catch {
                sink.refuse(file, number, "its JSON does not parse (\(error))")
                continue
            }
            let found: (ImportedPosition, device: String)?
            do { found = try OwnTracksMessage.position(from: message, device: device) } catch {
                sink.refuse(file, number, error.message)
                continue
            }
            guard let (position, name) = found else {
                sink.passOver()
                continue
            }
            try await sink.add(position, file: file, line: number) { content in
                OwnTracksMessage.identifier(device: name, timestamp: position.time, fix: content)
            }
        }
    }
}
