import ArgumentParser
import Foundation
import Logging
import Whereabouts
import WhereaboutsServer

/// `whereabouts export`
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a user's positions from the server's store as GeoJSON, GPX or CSV.",
        discussion: HelpText.fitting("""
        Reads the store directly (the same --data-dir or --database as `serve`; the server may be \
        running). Exports the `position/wgs84` events not in the trash whose time lies in the \
        range, ordered by time, as a track. The same files come from the server with \
        GET /events?format=geojson|gpx|csv.

        Times are ISO 8601 (2026-11-21T08:00:00Z, or a date alone for its midnight UTC) or \
        seconds since 1970. Without --from, the 24 hours before --to; without --to, until now.

        Examples:
          whereabouts export --user alice --format gpx > alice.gpx
          whereabouts export --user alice --from 2026-11-20 --to 2026-11-21 -o day.geojson
          whereabouts export --user alice --from 1763700000 --format csv --stream position
        """)
    )

    @Option(name: .long, help: ArgumentHelp("The user whose positions to export.", valueName: "name"))
    var user: String

    @Option(name: .long, help: ArgumentHelp("The start of the range (ISO 8601 or seconds since 1970).", valueName: "time"))
    var from: String?

    @Option(name: .long, help: ArgumentHelp("The end of the range (default: now).", valueName: "time"))
    var to: String?

    @Option(name: .long, help: ArgumentHelp("The format (default: as the output file is named, .geojson, .gpx or .csv; else geojson).",
                                            valueName: "format"))
    var format: EventExport.Format?

    @Option(name: .long, help: ArgumentHelp("Only these streams and their children (repeatable).", valueName: "id"))
    var stream: [String] = []

    @Option(name: [.short, .long], help: ArgumentHelp("Write to this file instead of standard output.", valueName: "file"))
    var output: String?

    @OptionGroup var store: StoreOptions

    func validate() throws {
        if let from { _ = try TimeArgument.seconds(from, option: "--from") }
        if let to { _ = try TimeArgument.seconds(to, option: "--to") }
        _ = try fileFormat()
    }

    /// The format asked for, or the one the output file is named as (refusing the two at odds).
    private func fileFormat() throws -> EventExport.Format {
        try OutputFileFormat.resolve(asked: format, askedAs: "--format", output: output,
                                     among: ["geojson": .geojson, "json": .geojson, "gpx": .gpx, "csv": .csv],
                                     fallback: .geojson) { $0.rawValue.uppercased() == "GEOJSON" ? "GeoJSON" : $0.rawValue.uppercased() }
    }

    func run() async throws {
        let end = try to.map { try TimeArgument.seconds($0, option: "--to") } ?? Date().timeIntervalSince1970
        let start = try from.map { try TimeArgument.seconds($0, option: "--from") } ?? end - 86_400
        guard start <= end else { throw CommandFailure("--from (\(start)) is after --to (\(end)).") }
        let fileFormat = try fileFormat()
        let eventStore = try await store.open(logger: Logger(label: "whereabouts.export"))
        do {
            guard try await eventStore.user(named: user) != nil else {
                throw CommandFailure("There is no user \"\(user)\" in \(store.summary).")
            }
            var streamIds: Set<String>?
            if !stream.isEmpty {
                let tree = StreamTree(try await eventStore.streams(of: user))
                var ids: Set<String> = []
                for id in stream {
                    guard tree.streams[id] != nil else { throw CommandFailure("User \"\(user)\" has no stream \"\(id)\".") }
                    ids.formUnion(tree.subtree(of: id))
                }
                streamIds = ids
            }
            let query = EventQuery(fromTime: start, toTime: end, streamIds: streamIds, types: ["position/wgs84"],
                                   sortAscending: true)
            let count: Int
            if let output {
                // Written beside the destination and moved over it at the end: an export that
                // fails half-way leaves no half file.
                let partial = output + ".partial"
                guard FileManager.default.createFile(atPath: partial, contents: nil),
                      let file = FileHandle(forWritingAtPath: partial)
                else { throw CommandFailure("Cannot write \(partial): check the directory exists and is writable.") }
                do {
                    count = try await EventExport.write(fileFormat, reading: query, from: eventStore, userName: user) { text in
                        try file.write(contentsOf: Data(text.utf8))
                    }
                    try file.close()
                    guard rename(partial, output) == 0 else { throw CocoaError(.fileWriteUnknown) }
                } catch {
                    try? file.close()
                    try? FileManager.default.removeItem(atPath: partial)
                    throw CommandFailure("Cannot write \(output): \(error.localizedDescription)")
                }
                Terminal.error("Wrote \(count) positions to \(output).")
            } else {
                count = try await EventExport.write(fileFormat, reading: query, from: eventStore, userName: user) { text in
                    try FileHandle.standardOutput.write(contentsOf: Data(text.utf8))
                }
            }
            if count == 0 {
                // An empty range most often misses the data by its dates: say where the latest is.
                var latest = query
                (latest.fromTime, latest.toTime, latest.sortAscending, latest.limit) = (nil, nil, false, 1)
                let time = try? await eventStore.events(matching: latest, for: user).first?.time
                Terminal.error(TimeArgument.hint(latest: time, defaultRange: from == nil && to == nil))
            }
            try await eventStore.close()
        } catch {
            try? await eventStore.close()
            throw error
        }
    }
}
