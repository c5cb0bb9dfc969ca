import Foundation
import Logging
import ServiceLifecycle
import Whereabouts

/// The server's half of fixed receivers: the reports that gateways send (`POST
/// /{username}/receivers/reports`, ``take(_:from:)``) are fused per user over the server's venue
/// (a `TagPipeline` on a live `ScanTimeline`), and each tag's fixes and the places it enters
/// and leaves are stored as the user's events, in a stream of the tag's own under `tags`
/// (``streamId(ofTag:)``) — so that `GET /events`, the exports, `/live` and the map show them.
///
/// Each report is stamped with its arrival on this server's clock (whatever arrival it carried;
/// the wall clock carried on by the tracking's `clock`),
/// which is what the fusion estimates each receiver's clock against. Time runs on between
/// reports: a tag that no receiver hears any more leaves its place the exit timeout after the
/// last report, while the gateways stay silent.
///
/// Bounds: at most ``maximumQueuedReports`` reports wait for a user's pipeline (more are refused
/// and counted, never queued without end), ``maximumUsers`` users are followed at once, and the
/// fusion bounds its tags and sightings (`ReceiverFusion`).
public actor TagTracking {
    /// What became of a request's reports.
    public struct Outcome: Sendable {
        /// Reports handed to the fusion.
        public var accepted: Int
        /// Reports refused, by their index in the request, with why.
        public var refused: [(index: Int, message: String)]
    }

    /// The venue: its receivers and tags, and the places the tags enter and leave.
    public let venue: Venue
    /// How reports are fused and the tags followed.
    public let configuration: TagPipeline.Configuration
    /// Reports waiting for one user's pipeline, at most.
    public static let maximumQueuedReports = 10_000
    /// Users followed at once, at most.
    public static let maximumUsers = 1_000
    /// The parent stream of every tag's stream.
    public static let tagsStreamId = "tags"
    /// The grant a token needs (`contribute`, or `contribute` on every stream) to send reports:
    /// ``Permission/receiversReports``.
    public static let reportsPermissionStreamId = Permission.receiversReports

    private let clock: any Clock<Duration>
    /// The clock's time since the tracking began, and the wall clock's then: a report's arrival
    /// is the one carried on by the other (the wall clock with a real clock, exact in tests).
    private let elapsed: LiveClock
    private let origin: Double
    private let service: APIService
    private let logger: Logger
    private let setup: PositioningSetup
    /// The ids of the venue's receivers.
    private let receiverIds: Set<String>
    private var runs: [String: UserRun] = [:]
    /// Streams known to exist, per user.
    private var streams: [String: Set<String>] = [:]
    private var stopping = false
    /// Told each batch of a user's outputs once they are stored.
    private let outputsDidChange: @Sendable (_ user: String, _ outputs: [TagPipeline.Output]) async -> Void

    /// One user's pipeline: the reports' way in, and the task that runs the timeline.
    private struct UserRun {
        let input: ScanInbox
        let task: Task<Void, Never>
        /// The access whose report came last: the stored events are created by it.
        var sender: Access
    }

    /// Tracking over `venue`'s receivers; `clock` moves the pipelines' time between reports;
    /// `outputsDidChange` is told each batch of a user's outputs once they are stored.
    public init(venue: Venue, configuration: TagPipeline.Configuration = TagPipeline.Configuration(),
                clock: any Clock<Duration> = ContinuousClock(), service: APIService,
                logger: Logger = Logger(label: "whereabouts.receivers"),
                outputsDidChange: @escaping @Sendable (_ user: String, _ outputs: [TagPipeline.Output]) async -> Void = { _, _ in }) {
        self.outputsDidChange = outputsDidChange
        self.venue = venue
        self.configuration = configuration
        self.clock = clock
        elapsed = LiveClock(clock)
        origin = Date().timeIntervalSince1970
        self.service = service
        self.logger = logger
        setup = PositioningAlgorithm.allCases[0].setup(venue: venue.receiversAsBeacons())
        receiverIds = Set(venue.receivers.map(\.id))
    }

    /// Whether `access` may send reports: it contributes to ``reportsPermissionStreamId`` or to
    /// every stream.
    public static func allowsReports(_ access: Access) -> Bool {
        access.permissions.contains {
            ($0.streamId == reportsPermissionStreamId || $0.streamId == Permission.allStreams) && $0.level >= .contribute
        }
    }

    /// Takes in a request's reports (each a receiver's scan, FORMATS.md §8), stamped with their
    /// arrival now; a report whose receiver the venue does not list is refused, as are reports
    /// beyond the queue's bound.
    public func take(_ reports: [Scan], from access: Access) -> Outcome {
        var outcome = Outcome(accepted: 0, refused: [])
        guard !stopping else {
            outcome.refused = reports.indices.map { ($0, "The server is stopping.") }
            return outcome
        }
        var known: [(index: Int, report: Scan)] = []
        for (index, report) in reports.enumerated() {
            if let receiver = report.device, receiverIds.contains(receiver) {
                known.append((index, report))
            } else {
                let name = report.device.map { "\"\($0.prefix(100))\"" } ?? "no receiver (`device` is missing)"
                outcome.refused.append((index, "The venue lists no receiver \(name); its receivers are named in venue.json's \"receivers\"."))
            }
        }
        guard !known.isEmpty else { return outcome }
        var run: UserRun
        if let existing = runs[access.userName] {
            run = existing
            run.sender = access
        } else {
            guard runs.count < Self.maximumUsers else {
                outcome.refused = reports.indices.map { ($0, "The server follows \(Self.maximumUsers) users' receivers already.") }
                return outcome
            }
            run = start(for: access)
        }
        runs[access.userName] = run
        let arrival = origin + elapsed.elapsed().inSeconds
        for (index, report) in known {
            var stamped = report
            stamped.arrival = arrival
            if run.input.offer(stamped) {
                outcome.accepted += 1
            } else {
                outcome.refused.append((index, "\(Self.maximumQueuedReports) reports wait already; send again later."))
            }
        }
        outcome.refused.sort { $0.index < $1.index }
        return outcome
    }

    /// Takes in reports that came another way than a request (``ReceiverReportFeed``) as
    /// `user`'s, their events written as `source`'s; as ``take(_:from:)`` otherwise.
    public func take(_ reports: [Scan], asUser user: String, source: String) -> Outcome {
        let access = Access(id: source, userName: user, name: source, tokenHash: "",
                            permissions: [Permission(streamId: Self.reportsPermissionStreamId, level: .contribute)], created: 0)
        return take(reports, from: access)
    }

    /// Stops every user's pipeline without giving out what they hold (a restart is not the tags
    /// leaving their places), and waits for the pipelines to end.
    public func stop() async {
        stopping = true
        let ending = runs.values
        runs = [:]
        for run in ending {
            run.input.finish()
            run.task.cancel()
        }
        for run in ending { await run.task.value }
    }

    /// The stream of a tag's events: `tag-` and the tag's name reduced to the letters, digits,
    /// `-`, `_` and `.` a stream id may hold, with a short hash of the name when it had to be
    /// changed (so that two names never share a stream).
    ///
    /// ```swift
    /// TagTracking.streamId(ofTag: "wristband-7")                // "tag-wristband-7"
    /// TagTracking.streamId(ofTag: "ibeacon:e2c56db5…:1:2")      // "tag-ibeacon-e2c56db5…-1-2-" + 8 hex digits
    /// ```
    public static func streamId(ofTag tag: String) -> String {
        let allowed = tag.unicodeScalars.map { scalar -> Character in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "-_.".unicodeScalars.contains(scalar))
                ? Character(scalar) : "-"
        }
        let cleaned = String(allowed.prefix(80))
        guard cleaned != tag else { return "tag-" + cleaned }
        var hash: UInt32 = 2_166_136_261
        for byte in tag.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return "tag-" + cleaned + "-" + String(hash, radix: 16).leftPadded(to: 8)
    }

    // MARK: A user's pipeline

    private func start(for access: Access) -> UserRun {
        let (timeline, input) = ScanTimeline.makeInbox(clock: clock, capacity: Self.maximumQueuedReports)
        let user = access.userName
        let pipeline = TagPipeline(venue: venue, setup: setup, configuration: configuration)
        let task = Task { [weak self] in
            var stage = pipeline
            var timeline = timeline
            do {
                try await timeline.run(&stage) { outputs in
                    guard let self, !outputs.isEmpty else { return }
                    await self.store(outputs, for: user)
                    await self.outputsDidChange(user, outputs)
                }
            } catch {
                // An inbox never fails; a cancelled run just ends.
            }
        }
        return UserRun(input: input, task: task, sender: access)
    }

    /// Stores a pipeline's outputs as the user's events: fixes as positions, places entered and
    /// left as `place/enter` and `place/exit`, each in the tag's stream.
    private func store(_ outputs: [TagPipeline.Output], for user: String) async {
        guard !stopping, let sender = runs[user]?.sender else { return }
        // The events are the receivers' token's, written with the server's own right to the
        // tags' streams (the token itself may only send reports).
        let writer = Access(id: sender.id, userName: user, name: sender.name, tokenHash: "",
                            permissions: [Permission(streamId: Permission.allStreams, level: .manage)], created: 0,
                            type: .personal)
        var inputs: [APIService.EventCreateInput] = []
        for output in outputs {
            guard let (tag, json) = event(of: output) else { continue }
            let stream = Self.streamId(ofTag: tag)
            guard await ensureStream(stream, named: tag, for: writer) else { continue }
            var members = json
            members.insert(("streamIds", .array([.string(stream)])), at: 0)
            inputs.append(.init(json: .object(members)))
        }
        guard !inputs.isEmpty else { return }
        for case .failure(let error) in await service.createEvents(inputs, access: writer) {
            logger.warning("A tag's event was not stored for \(user): \(error.message)")
        }
    }

    /// The tag and the event's fields (but its stream) of an output, or `nil` when it is not
    /// stored.
    private func event(of output: TagPipeline.Output) -> (tag: String, json: [(key: String, value: JSONValue)])? {
        switch output {
        case .fix(let fix):
            guard let tag = fix.device else { return nil }
            return (tag, [
                ("type", .string(fix.coordinate == nil ? PositionContent.localType : PositionContent.wgs84Type)),
                ("time", .number(fix.time)),
                ("content", PositionContent.content(of: fix, metresPerUnit: venue.units.metres ?? 1)),
                ("clientData", PositionContent.clientData(of: fix)),
            ])
        case .event(let item):
            guard let tag = item.device else { return nil }
            let kind: String
            let place: String
            switch item.event.kind {
            case .enterLocation(_, let location): (kind, place) = ("enter", location)
            case .exitLocation(_, let location): (kind, place) = ("exit", location)
            default: return nil
            }
            return (tag, [
                ("type", .string("place/" + kind)),
                ("time", .number(item.event.time)),
                ("content", .object([("place", .string(place))])),
                ("clientData", .object([("whereabouts", .object([("device", .string(tag))]))])),
            ])
        }
    }

    /// Makes sure the tags' parent stream and `id` exist for the user; `false` when they cannot
    /// be made (logged).
    private func ensureStream(_ id: String, named name: String, for writer: Access) async -> Bool {
        let user = writer.userName
        if streams[user, default: []].contains(id) { return true }
        for (stream, json) in [
            (Self.tagsStreamId, JSONValue.object([("id", .string(Self.tagsStreamId)), ("name", .string("Tags"))])),
            (id, .object([("id", .string(id)), ("name", .string(String(name.prefix(200)))), ("parentId", .string(Self.tagsStreamId))])),
        ] where !streams[user, default: []].contains(stream) {
            do throws(APIError) {
                _ = try await service.createStream(json, access: writer)
            } catch where error.id == APIError.Kind.itemAlreadyExists.rawValue {
                // Made before (by an earlier run of the server, or by the user).
            } catch {
                logger.warning("The stream \(stream) of \(user) could not be made: \(error.message)")
                return false
            }
            streams[user, default: []].insert(stream)
        }
        return true
    }
}

private extension String {
    /// The string with zeros in front, to `length` characters.
    func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}

extension TagTracking {
    /// The tracking as a service of the server's lifetime: at the server's graceful shutdown the
    /// users' pipelines stop (see ``TagTracking/stop()``).
    struct Lifetime: Service {
        let tracking: TagTracking

        func run() async throws {
            try? await gracefulShutdown()
            await tracking.stop()
        }
    }
}
