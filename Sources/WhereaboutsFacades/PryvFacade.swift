import Foundation
import Whereabouts
import WhereaboutsTracking

/// Pryv's position client — `PPrYvApiClient` (start, synchronize time, send, update, note,
/// picture, get events), `PositionEvent` and `sendAllPendingEventsToPrYvApi` — backed by the
/// tracking library's `TrackingRun`: positions pass the seed's acceptance rules (`FixAcceptor`),
/// every event is dated on the server's clock, the durable `Outbox` keeps what could not be sent
/// and the run's `OutboxSender` delivers it. The seed's client spoke Pryv's older channels and
/// folders API; here its channel is the default stream and a folder is a stream.
///
/// The namespace of the facade: its types are named as Pryv's position client named them, under
/// `PryvFacade.`, so that `import WhereaboutsFacades` adds no generic name to an app (declare a
/// `typealias` for the names you use unqualified).
public enum PryvFacade {
    /// An event of Pryv's position client: a position (or none, for a note or a picture), an
    /// optional message and attachment, in a folder (a stream).
    ///
    /// ```swift
    /// let here = PositionEvent(location: fix, message: "At the front desk")
    /// let view = PositionEvent(location: nil, message: "The view from hall 3", attachment: pictureURL, stream: "pictures")
    /// ```
    public struct PositionEvent: Hashable, Sendable {
        /// The event's id, made by the client (so that sending it twice stores it once).
        public var eventId: String
        /// The position, if the event has one.
        public var location: Fix?
        /// A message: a position's description, a note's text or a picture's description.
        public var message: String?
        /// A file to send with a picture event.
        public var attachment: URL?
        /// The folder (stream) the event goes to; `nil` for the client's channel.
        public var folderId: String?
        /// When, seconds since 1970: the position's time, else the creation time, on this device's
        /// clock (the client shifts it to the server's when it sends the event). An event read back
        /// from the server carries the server's time.
        public var time: Double
        /// How long the device stayed, seconds (``PryvAPIClient/update(_:)`` sends it).
        public var duration: Double

        /// Creates an event (Pryv's `createPositionEventInLocation:withMessage:attachment:folder:`).
        public init(location: Fix?, message: String? = nil, attachment: URL? = nil, stream: String? = nil, eventId: String? = nil,
                    time: Double? = nil) {
            let when = time ?? location?.time ?? Date().timeIntervalSince1970
            var identifiers = EventIdentifiers.random
            self.eventId = eventId ?? identifiers.next(now: when)
            self.location = location
            self.message = message
            self.attachment = attachment
            folderId = stream
            self.time = when
            duration = 0
        }

        /// Creates the event of a GPS-style position: latitude, longitude and horizontal accuracy
        /// (metres), as CoreLocation's `CLLocation` gave them.
        public init(latitude: Double, longitude: Double, horizontalAccuracy: Double, time: Double, message: String? = nil,
                    attachment: URL? = nil, stream: String? = nil) {
            let fix = Fix(time: time, point: SpatialPoint(x: 0, y: 0, z: 0), accuracy: horizontalAccuracy,
                          coordinate: GeoCoordinate(latitude: latitude, longitude: longitude), method: "gps")
            self.init(location: fix, message: message, attachment: attachment, stream: stream)
        }

        /// The event the server holds: its position when it is one (`position/wgs84` or
        /// `position/local`), its text or description as the message.
        public init(_ event: TrackedEvent) {
            var location: Fix?
            if case .object(let members)? = event.content {
                func number(_ key: String) -> Double? {
                    if case .number(let value)? = members.first(where: { $0.key == key })?.value { value } else { nil }
                }
                if event.type == PositionContent.wgs84Type, let latitude = number("latitude"), let longitude = number("longitude") {
                    location = Fix(time: event.time, point: SpatialPoint(x: 0, y: 0, z: 0), accuracy: number("horizontalAccuracy") ?? 0,
                                   coordinate: GeoCoordinate(latitude: latitude, longitude: longitude), method: "server")
                } else if event.type == PositionContent.localType, let x = number("x"), let y = number("y") {
                    location = Fix(time: event.time, point: SpatialPoint(x: x, y: y, z: 0), floor: number("floor").map { Int($0) },
                                   accuracy: number("accuracy") ?? 0, method: "server")
                }
            }
            var message = event.description
            if case .string(let text)? = event.content { message = text }
            self.init(location: location, message: message, stream: event.streamIds.first, eventId: event.id, time: event.time)
            duration = event.duration
        }
    }

    /// What the Pryv client's calls can refuse.
    public enum PryvClientError: Error, Sendable, CustomStringConvertible {
        /// A call came before ``PryvAPIClient/startClient(userId:oAuthToken:channelId:server:outboxPath:)``.
        case notStarted
        /// The token belongs to another user than the one given.
        case userMismatch(expected: String, actual: String)
        /// The event was queued but not delivered yet: it waits in the outbox for
        /// ``PryvAPIClient/sendAllPendingEvents()``.
        case pending(eventId: String, cause: TrackingError)
        /// The server refused the event for good.
        case refused(eventId: String, message: String)
        /// The event has nothing to send as this kind (a position without a location, a picture without a file).
        case missing(String)
        /// The acceptance rules ignored the position (at 0/0, too inaccurate, too soon after the
        /// last event, or not later than it): nothing was queued.
        case ignored(eventId: String, reason: AcceptanceDecision.IgnoreReason)
        /// The client or the outbox failed.
        case tracking(any Error)

        /// What went wrong and what to do.
        public var description: String {
            switch self {
            case .notStarted: "the client is not started: call startClient first"
            case .userMismatch(let expected, let actual): "the token belongs to \(actual), not to \(expected)"
            case .pending(let id, let cause): "event \(id) is queued, not yet delivered (\(cause)); sendAllPendingEvents() sends it later"
            case .refused(let id, let message): "the server refused event \(id): \(message)"
            case .missing(let what): "the event has no \(what)"
            case .ignored(let id, let reason): "event \(id) was not sent: \(reason)"
            case .tracking(let error): String(describing: error)
            }
        }
    }

    /// Pryv's `PPrYvPositionEventSender`: sends one event through a ``PryvAPIClient`` (the shared
    /// one unless told), as the kind it is — a position when it has a location, a picture when it
    /// has an attachment, a note otherwise — and sends what waits after a synchronisation.
    ///
    /// ```swift
    /// let event = PositionEvent(latitude: 41.3551, longitude: 2.1322, horizontalAccuracy: 8, time: now)
    /// PositionEventSender(positionEvent: event).sendToPrYvApi {
    ///     // the event was sent, or it waits in the outbox, or it was ignored
    /// }
    /// try await client.synchronizeTime()
    /// PositionEventSender.sendAllPendingEventsToPrYvApi()
    /// ```
    public struct PositionEventSender: Sendable {
        /// The event to send.
        public let positionEvent: PositionEvent
        /// The client that sends it.
        public let client: PryvAPIClient

        /// A sender of `positionEvent` (Pryv's `initWithPositionEvent:`) through `client`.
        public init(positionEvent: PositionEvent, client: PryvAPIClient = .shared) {
            self.positionEvent = positionEvent
            self.client = client
        }

        /// Sends the event as the kind it is; returns its id (or, for a position that extends the
        /// last event, that event's), and throws as the client's calls do.
        @discardableResult
        public func send() async throws -> String {
            if positionEvent.location != nil { return try await client.send(positionEvent) }
            if positionEvent.attachment != nil { return try await client.sendPicture(positionEvent) }
            return try await client.sendNote(positionEvent)
        }

        /// Sends the event, then calls `completion` whatever became of it (Pryv's
        /// `sendToPrYvApiCompletion:`).
        public func sendToPrYvApi(completion: @escaping @Sendable () -> Void) {
            Task {
                _ = try? await send()
                completion()
            }
        }

        /// Sends the event, then calls `completionHandler` with its id and the error, if any.
        public func sendToPrYvApi(completionHandler: @escaping @Sendable (String?, (any Error)?) -> Void) {
            Task {
                do { completionHandler(try await send(), nil) } catch { completionHandler(positionEvent.eventId, error) }
            }
        }

        /// Sends every event that waits in `client`'s outbox; returns how many the server took
        /// (call it right after ``PryvAPIClient/synchronizeTime()``, as Pryv asked).
        @discardableResult
        public static func sendAllPendingEvents(client: PryvAPIClient = .shared) async throws -> Int {
            try await client.sendAllPendingEvents()
        }

        /// ``sendAllPendingEvents(client:)`` without waiting (Pryv's `sendAllPendingEventsToPrYvApi`);
        /// what cannot be sent still waits.
        public static func sendAllPendingEventsToPrYvApi(client: PryvAPIClient = .shared) {
            Task { _ = try? await client.sendAllPendingEvents() }
        }
    }

    /// Pryv's position client (`PPrYvApiClient`): one user's connection to a Whereabouts (or Pryv)
    /// server, with a durable outbox, so that events that cannot be sent now are sent later.
    ///
    /// A position goes through the seed's acceptance rules (WhereaboutsTracking's
    /// `AcceptancePolicy`) first: a fix at 0/0, or less accurate than the policy's limit, is
    /// ignored; a fix within its accuracy plus the minimum distance of the last event extends that
    /// event's duration; a new event needs the minimum interval since the last one began. Every event's time is moved from this device's
    /// clock to the server's, by the offset measured at start and at each ``synchronizeTime()``.
    ///
    /// Every send writes the event to the outbox first, then delivers what waits; when the server
    /// cannot be reached the call throws ``PryvClientError/pending(eventId:cause:)`` and the event
    /// stays queued until ``sendAllPendingEvents()`` (call it after each ``synchronizeTime()``, as
    /// the seed asked). Each `async` call has a completion-handler form beside it.
    ///
    /// ```swift
    /// let client = PryvAPIClient.shared
    /// let serverTime = try await client.startClient(userId: "alice", oAuthToken: token, channelId: "position",
    ///                                               server: "http://127.0.0.1:8080", outboxPath: "outbox.sqlite")
    /// let id = try await client.send(PositionEvent(location: fix))
    /// let today = try await client.getEvents(from: nil, to: nil, stream: nil)   // the last 24 hours
    /// ```
    public actor PryvAPIClient {
        /// The client apps share (Pryv's `sharedClient`).
        public static let shared = PryvAPIClient()

        private struct Connection {
            /// The run: the acceptance rules, the outbox and its delivery.
            var run: TrackingRun
            /// The server's client, for its clock and for reading events back.
            var client: TrackingClient
            var channelId: String
        }

        private var connection: Connection?
        /// The server's time at the last start or synchronisation, seconds since 1970.
        public private(set) var serverTime: Double?
        /// The rules positions pass before they are sent (the seed's: 0/0 ignored, at most 100 m
        /// of accuracy, 5 m of minimum distance, no minimum interval).
        public nonisolated let policy: AcceptancePolicy

        /// Creates a client that applies `policy` to positions; nothing happens until
        /// ``startClient(userId:oAuthToken:channelId:server:outboxPath:)``.
        ///
        /// ```swift
        /// let client = PryvAPIClient(policy: AcceptancePolicy(maximumAccuracy: 30, minimumInterval: 60))
        /// ```
        public init(policy: AcceptancePolicy = AcceptancePolicy()) {
            self.policy = policy
        }

        // MARK: Start and time

        /// Connects to `server` as `userId` with `oAuthToken`, writing to `channelId` (a stream, made
        /// when missing) and queueing in the outbox at `outboxPath`; returns the server's time. The
        /// acceptance rules' state (each device's last event) is kept in the outbox: a client started
        /// again on it carries on where it stopped.
        @discardableResult
        public func startClient(userId: String, oAuthToken: String, channelId: String, server: String,
                                outboxPath: String) async throws -> Double {
            let client = try TrackingClient(server: server, token: oAuthToken, defaultStream: channelId)
            let outbox = try Outbox(path: outboxPath)
            let time = try await client.start()
            if let name = await client.userName, name != userId { throw PryvClientError.userMismatch(expected: userId, actual: name) }
            let run = try await TrackingRun(outbox: outbox, client: client,
                                            acceptor: FixAcceptor(policy: policy, streamIds: [channelId]),
                                            source: .named("pryv:\(userId):\(channelId)"), timeBase: .live(refresh: .seconds(60))) {
                try await client.ensureStream(channelId)
            }
            connection = Connection(run: run, client: client, channelId: channelId)
            serverTime = time
            return time
        }

        /// Measures the server's clock again; returns the server's time. The events sent from now
        /// on are dated by the new measure.
        @discardableResult
        public func synchronizeTime() async throws -> Double {
            let connection = try started()
            let time = try await connection.client.synchronizeTime()
            await connection.run.refreshTimeShift()
            serverTime = time
            return time
        }

        // MARK: Sending

        /// Sends a position event (Pryv's `sendEvent:`) through the acceptance rules; returns the id
        /// of the event that holds the position: the event's own when it begins one, the last
        /// event's when it extends that one's duration. Throws
        /// ``PryvClientError/ignored(eventId:reason:)`` when the rules ignore it.
        ///
        /// ```swift
        /// let first = try await client.send(PositionEvent(latitude: 41.3551, longitude: 2.1322, horizontalAccuracy: 8, time: t))
        /// // 3 m further, 20 s later: within 8 + 5 m, so the first event now lasts 20 s.
        /// let same = try await client.send(PositionEvent(latitude: 41.35513, longitude: 2.1322, horizontalAccuracy: 8, time: t + 20))
        /// assert(same == first)
        /// ```
        @discardableResult
        public func send(_ event: PositionEvent) async throws -> String {
            let connection = try started()
            guard var fix = event.location else { throw PryvClientError.missing("location") }
            fix.time = event.time
            let details = Tracker.EventDetails(id: event.eventId, streamIds: [event.folderId ?? connection.channelId],
                                               description: event.message, attachment: event.attachment)
            let decision: AcceptanceDecision
            do {
                decision = try await connection.run.record(fix, details: details)
            } catch {
                throw PryvClientError.tracking(error)
            }
            switch decision {
            case .accepted(let accepted):
                return try await deliver(eventId: accepted.id)
            case .extended(let id, _):
                return try await deliver(eventId: id)
            case .ignored(let reason):
                throw PryvClientError.ignored(eventId: event.eventId, reason: reason)
            }
        }

        /// Sends a position event's new duration (Pryv's `updateEvent:`); returns its id.
        @discardableResult
        public func update(_ event: PositionEvent) async throws -> String {
            try await queueAndDeliver(.updateDuration(eventId: event.eventId, duration: event.duration), eventId: event.eventId)
        }

        /// Sends the event's message as a `note/txt` event (Pryv's `sendNoteEvent:`); returns its id.
        @discardableResult
        public func sendNote(_ event: PositionEvent) async throws -> String {
            let connection = try started()
            guard let text = event.message else { throw PryvClientError.missing("message") }
            let note = TrackedEvent(id: event.eventId, streamIds: [event.folderId ?? connection.channelId],
                                    time: await connection.client.serverTime(forLocal: event.time), type: "note/txt", content: .string(text))
            return try await queueAndDeliver(.create(note), eventId: event.eventId)
        }

        /// Sends the event's attachment as a `picture/attached` event, its message as the
        /// description (Pryv's `sendPictureEvent:`); returns its id.
        @discardableResult
        public func sendPicture(_ event: PositionEvent) async throws -> String {
            let connection = try started()
            guard let file = event.attachment else { throw PryvClientError.missing("attachment") }
            let picture = TrackedEvent(id: event.eventId, streamIds: [event.folderId ?? connection.channelId],
                                       time: await connection.client.serverTime(forLocal: event.time), type: "picture/attached",
                                       description: event.message)
            return try await queueAndDeliver(.create(picture, attachment: file), eventId: event.eventId)
        }

        /// Sends every event that waits in the outbox (Pryv's `sendAllPendingEventsToPrYvApi`);
        /// returns how many the server took.
        @discardableResult
        public func sendAllPendingEvents() async throws -> Int {
            try await started().run.deliverPending()
        }

        /// How many events and updates wait in the outbox.
        public func pendingEventCount() async throws -> Int {
            try await started().run.outboxStatus().pending
        }

        // MARK: Reading

        /// The events from `startDate` to `endDate` in the folder (stream) `folderId`, oldest first
        /// (Pryv's `getEventsFromStartDate:toEndDate:inFolderId:`): `nil` and `nil` give the last
        /// 24 hours; a `nil` folder gives every folder.
        public func getEvents(from startDate: Date?, to endDate: Date?, stream folderId: String?) async throws -> [PositionEvent] {
            let events = try await started().client.events(from: startDate?.timeIntervalSince1970, to: endDate?.timeIntervalSince1970,
                                                           streamId: folderId)
            return events.map(PositionEvent.init)
        }

        // MARK: Completion handlers

        /// ``startClient(userId:oAuthToken:channelId:server:outboxPath:)`` with Pryv's handlers.
        public nonisolated func startClient(userId: String, oAuthToken: String, channelId: String, server: String, outboxPath: String,
                                            successHandler: @escaping @Sendable (Double) -> Void,
                                            errorHandler: @escaping @Sendable (any Error) -> Void) {
            Task {
                do { successHandler(try await startClient(userId: userId, oAuthToken: oAuthToken, channelId: channelId,
                                                          server: server, outboxPath: outboxPath)) } catch { errorHandler(error) }
            }
        }

        /// ``synchronizeTime()`` with Pryv's handlers.
        public nonisolated func synchronizeTime(successHandler: @escaping @Sendable (Double) -> Void,
                                                errorHandler: @escaping @Sendable (any Error) -> Void) {
            Task {
                do { successHandler(try await synchronizeTime()) } catch { errorHandler(error) }
            }
        }

        /// ``send(_:)`` with Pryv's completion handler: the event's id, and the error if it was not delivered.
        public nonisolated func sendEvent(_ event: PositionEvent, completionHandler: @escaping @Sendable (String?, (any Error)?) -> Void) {
            Task { await Self.complete(event.eventId, completionHandler) { try await self.send(event) } }
        }

        /// ``update(_:)`` with Pryv's completion handler.
        public nonisolated func updateEvent(_ event: PositionEvent, completionHandler: @escaping @Sendable (String?, (any Error)?) -> Void) {
            Task { await Self.complete(event.eventId, completionHandler) { try await self.update(event) } }
        }

        /// ``sendNote(_:)`` with Pryv's completion handler.
        public nonisolated func sendNoteEvent(_ event: PositionEvent, completionHandler: @escaping @Sendable (String?, (any Error)?) -> Void) {
            Task { await Self.complete(event.eventId, completionHandler) { try await self.sendNote(event) } }
        }

        /// ``sendPicture(_:)`` with Pryv's completion handler.
        public nonisolated func sendPictureEvent(_ event: PositionEvent, completionHandler: @escaping @Sendable (String?, (any Error)?) -> Void) {
            Task { await Self.complete(event.eventId, completionHandler) { try await self.sendPicture(event) } }
        }

        /// ``getEvents(from:to:stream:)`` with Pryv's handlers.
        public nonisolated func getEvents(from startDate: Date?, to endDate: Date?, inFolderId folderId: String?,
                                          successHandler: @escaping @Sendable ([PositionEvent]) -> Void,
                                          errorHandler: @escaping @Sendable (any Error) -> Void) {
            Task {
                do { successHandler(try await getEvents(from: startDate, to: endDate, stream: folderId)) } catch { errorHandler(error) }
            }
        }

        // MARK: Internals

        private func started() throws -> Connection {
            guard let connection else { throw PryvClientError.notStarted }
            return connection
        }

        /// Writes a change to the outbox, then delivers what waits: the id when the server took it,
        /// ``PryvClientError/pending(eventId:cause:)`` when it could not be reached (the change stays
        /// queued), ``PryvClientError/refused(eventId:message:)`` when it refused the change.
        private func queueAndDeliver(_ change: OutboxChange, eventId: String) async throws -> String {
            try await started().run.queue(change)
            return try await deliver(eventId: eventId)
        }

        /// Delivers what waits: the id when the server took the event,
        /// ``PryvClientError/pending(eventId:cause:)`` when it could not be reached,
        /// ``PryvClientError/refused(eventId:message:)`` when it refused it.
        private func deliver(eventId: String) async throws -> String {
            let connection = try started()
            do {
                try await connection.run.deliverPending()
            } catch let error as TrackingError {
                throw PryvClientError.pending(eventId: eventId, cause: error)
            }
            if let failure = try await connection.run.refusal(of: eventId) {
                throw PryvClientError.refused(eventId: eventId, message: "\(failure.errorId): \(failure.message)")
            }
            return eventId
        }

        private static func complete(_ eventId: String, _ handler: @Sendable (String?, (any Error)?) -> Void,
                                     _ body: () async throws -> String) async {
            do { handler(try await body(), nil) } catch { handler(eventId, error) }
        }
    }
}
