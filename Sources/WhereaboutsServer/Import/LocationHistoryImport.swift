import Foundation
import Whereabouts

/// Moving in: a location history another tool kept becomes `position/wgs84` events of a user.
///
/// Three formats, told apart by their files (``Format/of(path:)``):
/// - **OwnTracks Recorder**: a store's `rec/USER[/DEVICE]` folder or a `YYYY-MM.rec` file
///   (`OwnTracksRecorderReader`);
/// - **GPX**: `.gpx` files, their tracks' points (`GPXReader`);
/// - **Google Takeout**: the location history's `Records.json`, the monthly files of
///   `Semantic Location History`, and the phone's own export (`Timeline.json`, Android's or
///   iOS's) (`GoogleTakeoutReader`).
///
/// Each position's event identifier comes from its source, time and fix, so importing the same
/// history again adds nothing, and overlapping exports add each position once. What is not a
/// position (OwnTracks' transitions, GPX waypoints and routes, Takeout's activities) is passed
/// over and counted; a record that should be a position but cannot be is refused, named by its
/// file and line, and the import goes on. Positions are stored in batches, each one transaction,
/// so memory stays bounded by a batch (and by the largest GPX file) however long the history.
///
/// ```swift
/// let report = try await LocationHistoryImport.run(at: "Takeout/Location History/Records.json",
///                                                  into: store, user: "jane")
/// print(report.imported, "new positions,", report.existing, "there already,", report.refused, "refused")
/// ```
public enum LocationHistoryImport {
    /// A history's format.
    public enum Format: String, CaseIterable, Sendable, CustomStringConvertible {
        /// An OwnTracks Recorder store.
        case ownTracksRecorder = "owntracks"
        /// GPX 1.0 or 1.1.
        case gpx
        /// Google's location history: Takeout's or the phone's own export.
        case googleTakeout = "takeout"

        /// `OwnTracks Recorder`, `GPX`, `Google Takeout`.
        public var description: String {
            switch self {
            case .ownTracksRecorder: "OwnTracks Recorder"
            case .gpx: "GPX"
            case .googleTakeout: "Google Takeout"
            }
        }

        /// The file names this format reads.
        func reads(_ name: String) -> Bool {
            switch self {
            case .ownTracksRecorder: name.hasSuffix(".rec")
            case .gpx: name.lowercased().hasSuffix(".gpx")
            case .googleTakeout: name.lowercased().hasSuffix(".json")
            }
        }

        /// The format of the files at `path` (a file, or a folder holding some): the one with the
        /// most files there, or `nil` when there are none.
        public static func of(path: String) -> Format? {
            let counts = allCases.map { format in (format, LocationHistoryImport.files(at: path, format: format).count) }
            guard let best = counts.max(by: { $0.1 < $1.1 }), best.1 > 0 else { return nil }
            return best.0
        }
    }

    /// A refused record.
    public struct Refusal: Hashable, Sendable, CustomStringConvertible {
        /// The file.
        public var file: String
        /// The record's line in it, from 1 (0: the file as a whole).
        public var line: Int
        /// Why.
        public var reason: String

        /// `FILE:LINE: reason`.
        public var description: String { "\(file):\(line): \(reason)" }
    }

    /// What an import did so far.
    public struct Report: Hashable, Sendable {
        /// Files read.
        public var files = 0
        /// Positions newly stored.
        public var imported = 0
        /// Positions the user had already (an earlier import of the same history).
        public var existing = 0
        /// Records that are not positions (transitions, waypoints, activities…), passed over.
        public var passedOver = 0
        /// Records refused.
        public var refused = 0
        /// The first refusals (at most ``refusalsKept``).
        public var refusals: [Refusal] = []

        /// Positions read: imported or there already.
        public var positions: Int { imported + existing }
    }

    /// The most refusals a report names (all are counted).
    public static let refusalsKept = 100

    /// The files of `format` at `path` — the file itself, or every one under the folder, in name
    /// order.
    public static func files(at path: String, format: Format) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return [] }
        guard isDirectory.boolValue else { return format.reads(path) ? [path] : [] }
        let names = (FileManager.default.enumerator(atPath: path)?.compactMap { $0 as? String } ?? [])
            .filter(format.reads).sorted()
        return names.map { path + "/" + $0 }
    }

    /// Imports every position of the history at `path` (in `format`, else the one its files
    /// have) into `user`'s `stream` (made when missing), in batches of `batchSize`; `progress`
    /// hears the report after each batch. Throws ``ImportError`` when `path` holds no history.
    public static func run(at path: String, format: Format? = nil, into store: any EventStore, user: String,
                           stream: String = "position", batchSize: Int = 5_000,
                           progress: ((Report) -> Void)? = nil) async throws -> Report {
        guard let format = format ?? Format.of(path: path) else { throw ImportError.nothingToRead(path) }
        let files = files(at: path, format: format)
        guard !files.isEmpty else { throw ImportError.nothingToRead(path) }
        guard try await store.user(named: user) != nil else { throw StoreError.notFound("user", id: user) }
        let now = Date().timeIntervalSince1970
        if try await !store.streams(of: user).contains(where: { $0.id == stream }) {
            try await store.addStream(EventStream(id: stream, name: stream, created: now, createdBy: "import",
                                                  modified: now, modifiedBy: "import"), for: user)
        }
        var sink = ImportSink(store: store, user: user, stream: stream, now: now, batchSize: max(1, batchSize), progress: progress)
        do {
            for file in files {
                try Task.checkCancellation()
                sink.report.files += 1
                switch format {
                case .ownTracksRecorder: try await OwnTracksRecorderReader.read(file, into: &sink)
                case .gpx: try await GPXReader.read(file, into: &sink)
                case .googleTakeout: try await GoogleTakeoutReader.read(file, into: &sink)
                }
            }
            try await sink.finish()
        } catch {
            // The batch being stored is stored (or fails) before the caller may close the store.
            await sink.abandon()
            throw error
        }
        return sink.report
    }

    /// Why an import did not start.
    public enum ImportError: Error, Hashable, CustomStringConvertible {
        /// The path holds no file of a known format.
        case nothingToRead(String)

        /// What happened and what to do.
        public var description: String {
            switch self {
            case .nothingToRead(let path):
                "\(path) holds no history to import: an OwnTracks Recorder store (rec/USER, *.rec), GPX files (*.gpx) "
                    + "or Google's location history (Records.json, Semantic Location History/, Timeline.json)."
            }
        }
    }
}

/// Where readers put what they read: positions become events in batches, each batch one
/// transaction, stored while the next is read; refusals and records passed over are counted.
struct ImportSink {
    let store: any EventStore
    let user: String
    let stream: String
    let now: Double
    let batchSize: Int
    let progress: ((LocationHistoryImport.Report) -> Void)?
    var report = LocationHistoryImport.Report()
    private var batch: [EventWrite] = []
    /// The batch being stored: whether each event was new.
    private var pending: Task<[Bool], any Error>?

    init(store: any EventStore, user: String, stream: String, now: Double, batchSize: Int,
         progress: ((LocationHistoryImport.Report) -> Void)?) {
        self.store = store
        self.user = user
        self.stream = stream
        self.now = now
        self.batchSize = batchSize
        self.progress = progress
        batch.reserveCapacity(batchSize)
    }

    /// Adds a position, its identifier made by `id` from its content; a position out of range is
    /// refused as the record at `file`:`line`.
    mutating func add(_ position: ImportedPosition, file: String, line: Int, id: (JSONValue) -> String) async throws {
        do {
            batch.append(EventWrite(event: try position.event(stream: stream, now: now, accessId: "import", id: id)))
        } catch {
            refuse(file, line, error.description)
            return
        }
        if batch.count >= batchSize { try await flush() }
    }

    /// Counts a record that is not a position.
    mutating func passOver() { report.passedOver += 1 }

    /// Counts a refused record, and names it among the first ``LocationHistoryImport/refusalsKept``.
    mutating func refuse(_ file: String, _ line: Int, _ reason: String) {
        report.refused += 1
        if report.refusals.count < LocationHistoryImport.refusalsKept {
            report.refusals.append(LocationHistoryImport.Refusal(file: file, line: line, reason: reason))
        }
    }

    /// Hands the batch to the store, which writes it while the next one is read (on another
    /// core); the batch before must be stored first, so that at most two are in memory.
    mutating func flush() async throws {
        guard !batch.isEmpty else { return }
        let writes = batch
        batch = []
        batch.reserveCapacity(batchSize)
        try await settle()
        let store = store, user = user
        pending = Task { try await store.addEvents(writes, for: user).map { if case .created = $0 { true } else { false } } }
    }

    /// Stores what is left and waits until it is stored.
    mutating func finish() async throws {
        try await flush()
        try await settle()
    }

    /// Waits for the batch being stored, whatever becomes of it, after a failure elsewhere.
    mutating func abandon() async {
        _ = try? await pending?.value
        pending = nil
    }

    /// Waits for the batch being stored, and counts it.
    private mutating func settle() async throws {
        guard let task = pending else { return }
        pending = nil
        for created in try await task.value {
            if created { report.imported += 1 } else { report.existing += 1 }
        }
        progress?(report)
    }
}
