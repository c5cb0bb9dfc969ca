@testable import WhereaboutsServer

/// A store that keeps everything in memory, for tests of the layers above storage (the live
/// feed, the map page) until they run against the real stores. It follows the protocol's
/// contract (per-user scoping, idempotent creates) but makes no attempt at durability.
actor InMemoryEventStore: EventStore {
    private var usersByName: [String: User] = [:]
    private var accessesByHash: [String: Access] = [:]
    private var streamsByUser: [String: [EventStream]] = [:]
    private var eventsByUser: [String: [String: Event]] = [:]
    private var attachmentBytes: [String: [UInt8]] = [:]

    func migrate() async throws {}
    func close() async throws {}

    func addUser(_ user: User, streams: [EventStream]) async throws {
        guard usersByName[user.name] == nil else { throw StoreError.alreadyExists("user", id: user.name) }
        usersByName[user.name] = user
        streamsByUser[user.name] = streams
        eventsByUser[user.name] = [:]
    }

    func user(named name: String) async throws -> User? { usersByName[name] }

    func users() async throws -> [User] { usersByName.values.sorted { $0.name < $1.name } }

    func addAccess(_ access: Access) async throws { accessesByHash[access.tokenHash] = access }

    func access(tokenHash: String) async throws -> Access? { accessesByHash[tokenHash] }

    func streams(of userName: String) async throws -> [EventStream] { streamsByUser[userName] ?? [] }

    func addStream(_ stream: EventStream, for userName: String) async throws {
        guard streamsByUser[userName]?.contains(where: { $0.id == stream.id }) != true else {
            throw StoreError.alreadyExists("stream", id: stream.id)
        }
        streamsByUser[userName, default: []].append(stream)
    }

    func replaceStream(_ stream: EventStream, for userName: String) async throws {
        guard let index = streamsByUser[userName]?.firstIndex(where: { $0.id == stream.id }) else {
            throw StoreError.notFound("stream", id: stream.id)
        }
        streamsByUser[userName]?[index] = stream
    }

    func addEvents(_ writes: [EventWrite], for userName: String) async throws -> [EventCreation] {
        var results: [EventCreation] = []
        for write in writes {
            if let existing = eventsByUser[userName]?[write.event.id] {
                results.append(.existing(existing))
                continue
            }
            for upload in write.uploads {
                attachmentBytes["\(userName)/\(write.event.id)/\(upload.attachment.id)"] = upload.data
            }
            eventsByUser[userName, default: [:]][write.event.id] = write.event
            results.append(.created(write.event))
        }
        return results
    }

    func event(id: String, for userName: String) async throws -> Event? { eventsByUser[userName]?[id] }

    func replaceEvent(_ event: Event, for userName: String) async throws {
        guard eventsByUser[userName]?[event.id] != nil else { throw StoreError.notFound("event", id: event.id) }
        eventsByUser[userName]?[event.id] = event
    }

    func removeEvent(id: String, for userName: String) async throws -> Bool {
        eventsByUser[userName]?.removeValue(forKey: id) != nil
    }

    func events(matching query: EventQuery, for userName: String) async throws -> [Event] {
        let matching = (eventsByUser[userName] ?? [:]).values.filter(query.matches).sorted {
            ($0.time, $0.id) < ($1.time, $1.id)
        }
        let ordered = query.sortAscending ? matching : matching.reversed()
        let skipped = ordered.dropFirst(query.skip)
        return Array(query.limit.map { skipped.prefix($0) } ?? skipped)
    }

    func attachmentData(eventId: String, attachmentId: String, for userName: String) async throws -> [UInt8]? {
        attachmentBytes["\(userName)/\(eventId)/\(attachmentId)"]
    }
}
