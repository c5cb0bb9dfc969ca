import ArgumentParser
import Foundation
import Whereabouts
import WhereaboutsBluetooth

/// Where a command's sightings come from: a recording, a live adapter or a btsnoop capture.
/// Commands that read sightings (`locate`, `scan`, `record`, …) share these options.
struct SightingSourceOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("A recording to read (\"-\" for standard input).", valueName: "recording.jsonl"))
    var recording: String?

    @Option(name: .long, help: ArgumentHelp("Scan live with this Bluetooth adapter (Linux; needs CAP_NET_RAW and CAP_NET_ADMIN).", valueName: "hci0"))
    var adapter: String?

    @Option(name: .long, help: ArgumentHelp("Replay the advertising reports of a btsnoop capture (Android's HCI snoop log, btmon -w).", valueName: "capture.log"))
    var btsnoop: String?

    @Option(name: .customLong("uuid"), parsing: .upToNextOption,
            help: ArgumentHelp("Keep only iBeacon/AltBeacon beacons of these proximity UUIDs (live scans and captures).", valueName: "uuid"))
    var uuids: [String] = []

    @Option(name: .customLong("tags"),
            help: ArgumentHelp("Name phones that advertise from changing addresses by this tags file's identity resolving keys (live scans and captures).",
                               valueName: "tags.json"))
    var tagsPath: String?

    @Flag(name: .long, help: "Scan actively (ask advertisers for scan responses) instead of passively.")
    var active = false

    @Option(name: .long, help: ArgumentHelp("How fast to replay a capture.", valueName: "recorded|fast"))
    var pace: ReplaySpeed?

    @Option(name: .long, help: ArgumentHelp("Stop after this many seconds (live scans and captures).", valueName: "seconds"))
    var duration: Double?

    /// How fast a capture is replayed (an argument; what the pipeline runs at is the
    /// ``ScanPace`` it maps to).
    enum ReplaySpeed: String, CaseIterable, ExpressibleByArgument {
        /// The capture's own pace.
        case recorded
        /// As fast as the scans can be read.
        case fast

        /// What each pace means, for the help.
        static var allValueDescriptions: [String: String] {
            ["recorded": "its own pace", "fast": "as fast as possible"]
        }

        /// The capture's own gaps on the wall clock, or a replay as fast as possible.
        var scanPace: ScanPace {
            self == .recorded ? .live(ContinuousClock()) : .replay
        }
    }

    /// The source the options name.
    enum Kind {
        case recording(String)
        case adapter(String)
        case btsnoop(String)
    }

    /// The one source given; an error when none or several are.
    func kind(allowingRecording: Bool = true) throws -> Kind {
        let given = [recording.map(Kind.recording), adapter.map(Kind.adapter), btsnoop.map(Kind.btsnoop)].compactMap { $0 }
        let names = allowingRecording ? "--recording, --adapter or --btsnoop" : "--adapter or --btsnoop"
        guard given.count == 1, let kind = given.first else {
            throw ValidationError(given.isEmpty ? "Give a source: \(names)." : "Give only one source: \(names).")
        }
        if case .recording = kind, !allowingRecording {
            throw ValidationError("This command reads --adapter or --btsnoop, not a recording.")
        }
        if let duration, !(duration > 0) { throw ValidationError("--duration must be a positive number of seconds.") }
        return kind
    }

    /// The UUIDs of `--uuid`, parsed.
    func uuidSet() throws -> Set<UUID> {
        var set = Set<UUID>()
        for text in uuids {
            guard let uuid = UUID(uuidString: text) else {
                throw ValidationError("\"\(text)\" is not a UUID (expected the form E2C56DB5-DFFB-48D2-B060-D0F5A71096E0).")
            }
            set.insert(uuid)
        }
        return set
    }

    /// Opens the source; live adapters are checked at once, so that a missing adapter or a
    /// missing permission fails before any work.
    func open(lenient: Bool = false, defaultPace: ReplaySpeed = .fast, allowingRecording: Bool = true) throws -> ScanSource {
        var decoder = SightingDecoder(uuids: try uuidSet())
        if let tagsPath {
            let resolver = TagResolver(tags: try InputFiles.tags(at: tagsPath))
            if resolver.isEmpty { Terminal.error("warning: \(tagsPath) gives no tag an identity resolving key (\"irk\"): no address will be resolved.") }
            decoder.tagResolver = resolver
        }
        switch try kind(allowingRecording: allowingRecording) {
        case .recording(let path):
            return try Self.openRecording(path, lenient: lenient)
        case .btsnoop(let path):
            do {
                return try ScanSource.capture(atPath: path, decoder: decoder, pace: (pace ?? defaultPace).scanPace, duration: duration)
            } catch ScanSourceError.noSuchFile {
                throw CommandFailure("\(path): no such file (the btsnoop capture)")
            } catch {
                throw CommandFailure("\(path): \(error)")
            }
        case .adapter(let name):
            do {
                return try ScanSource.adapter(.init(adapter: name, scanType: active ? .active : .passive, decoder: decoder,
                                                    duration: duration))
            } catch {
                throw CommandFailure(error.description)
            }
        }
    }

    /// The recording at `path` (`-` for standard input; live when a pipe, a FIFO or a terminal),
    /// or an error naming the missing file.
    static func openRecording(_ path: String, lenient: Bool) throws -> ScanSource {
        do {
            return try ScanSource.recording(atPath: path, options: RecordingReader.Options(lenient: lenient))
        } catch ScanSourceError.noSuchFile {
            throw CommandFailure("\(path): no such file (the recording)")
        }
    }
}
