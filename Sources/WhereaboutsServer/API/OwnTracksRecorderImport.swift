import Foundation
import Whereabouts

/// Moving in from OwnTracks Recorder: every location of a Recorder store (`rec/USER/DEVICE/
/// YYYY-MM.rec`, lines `TIME<tab>TOPIC<tab>JSON`) becomes a `position/wgs84` event of a user, as
/// OwnTracks' HTTP mode makes it (``OwnTracksMessage``: the same fields, the device from the
/// folder's name). An event's id comes from the device, the time and the fix, so importing the
/// same store again adds nothing. Lines of other types (transitions, waypoints…) are passed
/// over; a line that is not a location the Recorder wrote is refused, named by its file and line,
/// and the import goes on.
///
/// ```swift
/// let report = try await OwnTracksRecorderImport.run(at: "/var/spool/owntracks/recorder/store/rec/jane",
///                                                    into: store, user: "jane")
/// print(report.imported, "new points,", report.existing, "there already,", report.refused, "refused")
/// ```
public enum OwnTracksRecorderImport {
    /// A refused line.
    public struct Refusal: Hashable, Sendable, CustomStringConvertible {
        /// The file.
        public var file: String
        /// The line's number, from 1.
        public var line: Int
        /// Why.
        public var reason: String

        /// `FILE:LINE: reason`.
        public var description: String { "\(file):\(line): \(reason)" }
    }

    /// What an import did so far.
    public struct Report: Hashable, Sendable {
        /// `.rec` files read.
        public var files = 0
        /// Locations newly stored.
        public var imported = 0
        /// Locations the user had already (an earlier import of the same store).
        public var existing = 0
        /// Lines of other message types, passed over.
        public var otherMessages = 0
        /// Lines refused.
        public var refused = 0
        /// The first refusals (at most ``refusalsKept``).
        public var refusals: [Refusal] = []

        /// Locations read: imported or there already.
        public var locations: Int { imported + existing }
    }

    /// The most refusals a report names (all are counted).
    public static let refusalsKept = 100

    /// The `.rec` files at `path` — the file itself, or every one under the folder, in name order
    /// — with the device each belongs to (its folder's name).
    public static func files(at path: String) -> [(path: String, device: String)] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return [] }
        let device = { (file: String) in ((file as NSString).deletingLastPathComponent as NSString).lastPathComponent }
        guard isDirectory.boolValue else { return [(path, device(path))] }
        let names = (FileManager.default.enumerator(atPath: path)?.compactMap { $0 as? String } ?? [])
            .filter { $0.hasSuffix(".rec") }.sorted()
        return names.map { name in let file = path + "/" + name; return (file, device(file)) }
    }

    /// Imports every location under `path` into `user`'s `stream` (made when missing), in
    /// batches of `batchSize`; `progress` hears the report after each batch.
    public static func run(at path: String, into store: any EventStore, user: String, stream: String = "position",
                           batchSize: Int = 5_000, progress: ((Report) -> Void)? = nil) async throws -> Report {
        guard try await store.user(named: user) != nil else { throw StoreError.notFound("user", id: user) }
        let now = Date().timeIntervalSince1970
        if try await !store.streams(of: user).contains(where: { $0.id == stream }) {
            try await store.addStream(EventStream(id: stream, name: stream, created: now, createdBy: "import",
                                                  modified: now, modifiedBy: "import"), for: user)
        }
        var report = Report()
        var batch: [EventWrite] = []
        func flush() async throws {
            guard !batch.isEmpty else { return }
            for result in try await store.addEvents(batch, for: user) {
                if case .created = result { report.imported += 1 } else { report.existing += 1 }
            }
            batch.removeAll(keepingCapacity: true)
            progress?(report)
        }
        func refuse(_ file: String, _ line: Int, _ reason: String) {
            report.refused += 1
            if report.refusals.count < refusalsKept { report.refusals.append(Refusal(file: file, line: line, reason: reason)) }
        }
        for (file, device) in files(at: path) {
            report.files += 1
            guard let data = FileManager.default.contents(atPath: file) else {
                refuse(file, 0, "cannot be read")
                continue
            }
            // Lines and fields found by scanning an array of the file's bytes (`Data`'s own
            // split cost a sixth of the import's time).
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
                else { refuse(file, number, "not TIME<tab>TOPIC<tab>JSON"); continue }
                let message: JSONValue
                do { message = try JSONParser.parse(line[(secondTab + 1)...]) } catch {
                    refuse(file, number, "its JSON does not parse (\(error))")
                    continue
                }
                do {
                    guard var event = try OwnTracksMessage.event(from: message, device: device, now: now, accessId: "import") else {
                        report.otherMessages += 1
                        continue
                    }
                    if stream != "position", case .object(var members) = event,
                       let index = members.firstIndex(where: { $0.key == "streamIds" }) {
                        members[index].value = .array([.string(stream)])
                        event = .object(members)
                    }
                    batch.append(EventWrite(event: try EventValidation.event(fromCreate: event, now: now, accessId: "import")))
                } catch {
                    refuse(file, number, "\(error)")
                    continue
                }
                if batch.count >= batchSize { try await flush() }
            }
        }
        try await flush()
        return report
    }
}
