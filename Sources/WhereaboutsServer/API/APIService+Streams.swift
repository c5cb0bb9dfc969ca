import Whereabouts

extension APIService {
    /// `streams.get`: the streams the access may read, as a tree. A token limited to some
    /// streams sees those streams as roots. Trashed streams only with `state=all`.
    public func streamsTree(_ parameters: APIParameters, access: Access) async throws(APIError) -> APIResult {
        let includeTrashed: Bool
        switch try parameters.string("state") {
        case nil, "default": includeTrashed = false
        case "all": includeTrashed = true
        default: throw APIError(.invalidParameters, "`state` must be default or all.")
        }
        let tree = try await loadTree(access.userName)
        var roots: [String]
        if let parent = try parameters.string("parentId") {
            guard tree.streams[parent] != nil, access.allows(.read, on: parent, in: tree) else {
                throw APIError(.unknownReferencedResource, "Unknown stream \"\(parent)\" in `parentId`.")
            }
            roots = tree.childIds(of: parent)
        } else if access.allowsEverywhere(.read) {
            roots = tree.rootIds
        } else {
            let granted = access.permissions.map(\.streamId).filter { tree.streams[$0] != nil }
            // A granted stream inside another granted stream shows up inside it, not as a root.
            roots = granted.filter { id in !tree.lineage(of: id).dropFirst().contains(where: granted.contains) }
            var seen: Set<String> = []
            roots = roots.filter { seen.insert($0).inserted }
        }
        return APIResult([("streams", .array(roots.compactMap { Self.render($0, tree: tree, includeTrashed: includeTrashed) }))])
    }

    /// A stream and its descendants as nested JSON, built with a stack of its own rather than by
    /// recursion (so that no tree can exhaust the call stack), each stream once, at most
    /// ``StreamTree/maximumDepth`` levels.
    static func render(_ root: String, tree: StreamTree, includeTrashed: Bool) -> JSONValue? {
        func visible(_ id: String) -> EventStream? {
            guard let stream = tree.streams[id], includeTrashed || !stream.trashed else { return nil }
            return stream
        }
        guard let top = visible(root) else { return nil }
        var seen: Set<String> = [root]
        // Each level: the stream, its children's ids, the next child to visit, its rendered children.
        var stack: [(stream: EventStream, children: [String], next: Int, rendered: [JSONValue])] =
            [(top, tree.childIds(of: root), 0, [])]
        while var level = stack.popLast() {
            if level.next < level.children.count {
                let childId = level.children[level.next]
                level.next += 1
                stack.append(level)
                if stack.count < StreamTree.maximumDepth, seen.insert(childId).inserted, let child = visible(childId) {
                    stack.append((child, tree.childIds(of: childId), 0, []))
                }
                continue
            }
            let value = level.stream.jsonValue(children: level.rendered)
            guard !stack.isEmpty else { return value }
            stack[stack.count - 1].rendered.append(value)
        }
        return nil
    }

    /// `streams.create`: `{id?, name, parentId?, clientData?}`. The access must manage the
    /// parent (or every stream, for a root). Names are unique among siblings.
    public func createStream(_ value: JSONValue, access: Access) async throws(APIError) -> APIResult {
        guard case .object(let members) = value else {
            throw APIError(.invalidRequestStructure, "The stream must be a JSON object, found \(value.kindDescription).")
        }
        let allowed: Set<String> = ["id", "name", "parentId", "clientData"]
        if let unknown = members.first(where: { !allowed.contains($0.key) }) {
            throw APIError(.invalidParameters, "Unknown field `\(unknown.key)` when creating a stream; allowed: clientData, id, name, parentId.")
        }
        guard case .string(let name)? = value["name"], !name.isEmpty, name.unicodeScalars.count <= 200 else {
            throw APIError(.invalidParameters, "`name` is required: a string of 1 to 200 characters.")
        }
        var parentId: String?
        switch value["parentId"] {
        case nil, .null?: parentId = nil
        case .string(let id)?: parentId = id
        default: throw APIError(.invalidParameters, "`parentId` must be a stream id or null.")
        }
        let clientData = try Self.clientData(value["clientData"])
        let tree = try await loadTree(access.userName, refreshingIfMissing: parentId.map { [$0] } ?? [])
        if let parentId {
            guard tree.streams[parentId] != nil else {
                throw APIError(.unknownReferencedResource, "Unknown parent stream \"\(parentId)\".")
            }
            guard access.allows(.manage, on: parentId, in: tree) else {
                throw APIError(.forbidden, "This token cannot manage stream \"\(parentId)\".")
            }
            guard tree.lineage(of: parentId).count < StreamTree.maximumDepth else {
                throw APIError(.invalidParameters, "Streams nest at most \(StreamTree.maximumDepth) deep; \"\(parentId)\" is at the deepest level.")
            }
        } else if !access.allowsEverywhere(.manage) {
            throw APIError(.forbidden, "Only a token that manages every stream can create a root stream.")
        }
        let id: String
        switch value["id"] {
        case nil:
            id = Self.slug(name) ?? AccessToken.generateIdentifier()
        case .string(let given)? where EventValidation.isValidIdentifier(given):
            id = given
        default:
            throw APIError(.invalidParameters, "`id` must be 1 to 100 letters, digits, `-`, `_` or `.`.")
        }
        if tree.streams[id] != nil { throw APIError(.itemAlreadyExists, "A stream with id \"\(id)\" already exists.") }
        try checkSiblingName(name, parentId: parentId, except: nil, tree: tree)
        let now = Self.now()
        let stream = EventStream(id: id, name: name, parentId: parentId, clientData: clientData,
                                 created: now, createdBy: access.id, modified: now, modifiedBy: access.id)
        do {
            try await store.addStream(stream, for: access.userName)
        } catch {
            throw .storeFailure(error)
        }
        await streams.invalidate(access.userName)
        return APIResult([("stream", stream.jsonValue(children: []))], status: .created)
    }

    /// `streams.update`: changes `name`, `parentId`, `clientData` or `trashed`. The access must
    /// manage the stream (and the new parent); a stream cannot move inside itself.
    public func updateStream(id: String, update value: JSONValue, access: Access) async throws(APIError) -> APIResult {
        guard case .object(let members) = value else {
            throw APIError(.invalidRequestStructure, "The update must be a JSON object, found \(value.kindDescription).")
        }
        let allowed: Set<String> = ["name", "parentId", "clientData", "trashed"]
        if let unknown = members.first(where: { !allowed.contains($0.key) }) {
            throw APIError(.invalidParameters, "Unknown field `\(unknown.key)` when updating a stream; allowed: clientData, name, parentId, trashed.")
        }
        var tree = try await loadTree(access.userName, refreshingIfMissing: [id])
        guard var stream = tree.streams[id], access.allows(.read, on: id, in: tree) else {
            throw APIError(.unknownResource, "No stream with id \"\(id)\".")
        }
        guard access.allows(.manage, on: id, in: tree) else {
            throw APIError(.forbidden, "This token cannot manage stream \"\(id)\".")
        }
        if let nameValue = value["name"] {
            guard case .string(let name) = nameValue, !name.isEmpty, name.unicodeScalars.count <= 200 else {
                throw APIError(.invalidParameters, "`name` must be a string of 1 to 200 characters.")
            }
            stream.name = name
        }
        if let parentValue = value["parentId"] {
            switch parentValue {
            case .null:
                guard access.allowsEverywhere(.manage) else {
                    throw APIError(.forbidden, "Only a token that manages every stream can make a root stream.")
                }
                stream.parentId = nil
            case .string(let parent):
                tree = try await loadTree(access.userName, refreshingIfMissing: [parent])
                guard tree.streams[parent] != nil else {
                    throw APIError(.unknownReferencedResource, "Unknown parent stream \"\(parent)\".")
                }
                guard !tree.subtree(of: id).contains(parent) else {
                    throw APIError(.invalidParameters, "A stream cannot move inside itself or its descendants.")
                }
                guard access.allows(.manage, on: parent, in: tree) else {
                    throw APIError(.forbidden, "This token cannot manage stream \"\(parent)\".")
                }
                guard tree.lineage(of: parent).count + tree.height(of: id) <= StreamTree.maximumDepth else {
                    throw APIError(.invalidParameters, "Streams nest at most \(StreamTree.maximumDepth) deep; under \"\(parent)\" this stream's subtree would go deeper.")
                }
                stream.parentId = parent
            default:
                throw APIError(.invalidParameters, "`parentId` must be a stream id or null.")
            }
        }
        if let clientData = value["clientData"] { stream.clientData = try Self.clientData(clientData) }
        if let trashedValue = value["trashed"] {
            guard case .bool(let trashed) = trashedValue else { throw APIError(.invalidParameters, "`trashed` must be true or false.") }
            stream.trashed = trashed
        }
        try checkSiblingName(stream.name, parentId: stream.parentId, except: id, tree: tree)
        return try await storeChange(stream, madeBy: access)
    }

    /// Stamps `stream` as changed now by `access`, stores it and answers `{"stream"}`.
    private func storeChange(_ stream: EventStream, madeBy access: Access) async throws(APIError) -> APIResult {
        var stream = stream
        stream.modified = Self.now()
        stream.modifiedBy = access.id
        do {
            try await store.replaceStream(stream, for: access.userName)
        } catch {
            throw .storeFailure(error)
        }
        await streams.invalidate(access.userName)
        return APIResult([("stream", stream.jsonValue(children: []))])
    }

    /// `streams.delete`, as Pryv: the first call moves the stream to the trash (`{"stream"}`,
    /// its descendants hidden with it); a second deletes it and its descendants for good
    /// (`{"streamDeletion": {id}, "updatedEvents": [{id, action}]}`). The events in them that are
    /// not in the trash need `mergeEventsWithParent`: `true` moves them to the parent stream
    /// (`mergedToParent`; refused for a root stream), `false` takes the deleted streams out of
    /// them, deleting those left in no stream (`deleted`; `updatedStreamIds` for the others).
    /// Trashed events are left as they are, as Pryv leaves them. At most
    /// ``ServerConfiguration/AnswerLimits/eventsHeldWhole`` events are moved at once (413 beyond: move them first).
    public func deleteStream(id: String, access: Access, mergeEventsWithParent merge: Bool?) async throws(APIError) -> APIResult {
        let tree = try await loadTree(access.userName, refreshingIfMissing: [id])
        guard var stream = tree.streams[id], access.allows(.read, on: id, in: tree) else {
            throw APIError(.unknownResource, "No stream with id \"\(id)\".")
        }
        guard access.allows(.manage, on: id, in: tree) else {
            throw APIError(.forbidden, "This token cannot manage stream \"\(id)\".")
        }
        guard stream.trashed else {
            stream.trashed = true
            return try await storeChange(stream, madeBy: access)
        }
        let now = Self.now()
        if merge == true, stream.parentId == nil {
            throw APIError(id: "invalid-operation", message: """
                Stream "\(id)" is a root stream: there is no parent to merge its events into; give mergeEventsWithParent=false.
                """, status: .badRequest)
        }
        let deleted = tree.subtree(of: id)
        var query = EventQuery()
        query.streamIds = deleted
        query.state = .default
        query.sortAscending = true
        query.limit = limits.eventsHeldWhole + 1
        let events: [Event]
        do {
            events = try await store.events(matching: query, for: access.userName)
        } catch {
            throw .storeFailure(error)
        }
        guard events.count <= limits.eventsHeldWhole else {
            throw APIError(.tooLarge, """
                Stream "\(id)" holds more than \(limits.eventsHeldWhole) events; move or delete them first \
                (events.update, events.delete), then delete the stream.
                """)
        }
        if !events.isEmpty, merge == nil {
            throw APIError(.invalidParameters, """
                Stream "\(id)" (or one inside it) holds \(events.count) events: give `mergeEventsWithParent` true to move \
                them to the parent stream, or false to take the deleted streams out of them (deleting those left in no stream).
                """)
        }
        var updated: [JSONValue] = []
        var changed: [Event] = []
        do {
            for var event in events {
                var remaining = event.streamIds.filter { !deleted.contains($0) }
                let action: String
                if merge == true, let parent = stream.parentId {
                    if !remaining.contains(parent) { remaining.append(parent) }
                    action = "mergedToParent"
                } else if remaining.isEmpty {
                    _ = try await store.removeEvent(id: event.id, for: access.userName)
                    updated.append(.object([("id", .string(event.id)), ("action", .string("deleted"))]))
                    continue
                } else {
                    action = "updatedStreamIds"
                }
                event.streamIds = remaining
                event.modified = now
                event.modifiedBy = access.id
                try await store.replaceEvent(event, for: access.userName)
                changed.append(event)
                updated.append(.object([("id", .string(event.id)), ("action", .string(action))]))
            }
            _ = try await store.removeStreams(ids: Array(deleted), for: access.userName)
        } catch {
            throw .storeFailure(error)
        }
        await streams.invalidate(access.userName)
        if !changed.isEmpty { await eventsDidChange(changed, access.userName) }
        if updated.contains(where: { $0["action"] == .string("deleted") }) { await forgetOldDeletions(of: access.userName) }
        var members: [(key: String, value: JSONValue)] = []
        if !updated.isEmpty { members.append(("updatedEvents", .array(updated))) }
        members.append(("streamDeletion", .object([("id", .string(id))])))
        return APIResult(members)
    }

    /// The user's stream tree from the directory, a store failure reported as an API error.
    func loadTree(_ userName: String, refreshingIfMissing ids: [String] = []) async throws(APIError) -> StreamTree {
        do {
            return try await streams.tree(for: userName, refreshingIfMissing: ids)
        } catch {
            throw .storeFailure(error)
        }
    }

    private func checkSiblingName(_ name: String, parentId: String?, except id: String?, tree: StreamTree) throws(APIError) {
        let siblings = parentId.map { tree.childIds(of: $0) } ?? tree.rootIds
        if siblings.contains(where: { $0 != id && tree.streams[$0]?.name == name && tree.streams[$0]?.trashed == false }) {
            throw APIError(.itemAlreadyExists, "A sibling stream is already named \"\(name)\".")
        }
    }

    private static func clientData(_ value: JSONValue?) throws(APIError) -> JSONValue? {
        switch value {
        case nil, .null?: return nil
        case .object?: return value
        default: throw APIError(.invalidParameters, "`clientData` must be an object.")
        }
    }

    /// A stream identifier made from a name: lowercase letters and digits, other runs as `-`.
    static func slug(_ name: String) -> String? {
        var out = ""
        for scalar in name.lowercased().unicodeScalars {
            if ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) {
                out.unicodeScalars.append(scalar)
            } else if !out.isEmpty, out.last != "-" {
                out += "-"
            }
        }
        while out.last == "-" { out.removeLast() }
        return out.isEmpty ? nil : String(out.prefix(100))
    }
}
