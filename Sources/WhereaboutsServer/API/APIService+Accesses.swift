import Foundation
import Whereabouts

extension APIService {
    // MARK: access-info

    /// `access-info`: the access making the request, as Pryv describes it (`id`, `token`,
    /// `type`, `name`, `permissions`, `created`, `createdBy`, `modified`, `modifiedBy`,
    /// `expires` when it has one) and `user: {username}`. `token` is the one the request
    /// presented.
    public func accessInfo(_ access: Access, presentedToken: String?) -> APIResult {
        var members = Self.members(of: access, token: presentedToken ?? access.token)
        members.append(("user", .object([("username", .string(access.userName))])))
        return APIResult(members)
    }

    /// An access's members as Pryv's API shows them; `token` when it is known.
    static func members(of access: Access, token: String?) -> [(key: String, value: JSONValue)] {
        var members: [(key: String, value: JSONValue)] = [("id", .string(access.id))]
        if let token { members.append(("token", .string(token))) }
        members += [
            ("type", .string(access.type.rawValue)),
            ("name", .string(access.name)),
            ("permissions", .array(access.permissions.map {
                .object([("streamId", .string($0.streamId)), ("level", .string($0.level.rawValue))])
            })),
            ("created", .number(access.created)),
            ("createdBy", .string(access.createdBy)),
            ("modified", .number(access.modified)),
            ("modifiedBy", .string(access.modifiedBy)),
        ]
        if let expires = access.expires { members.append(("expires", .number(expires))) }
        return members
    }

    // MARK: accesses.get

    /// `accesses.get`: a personal token lists every access of its user, an app token the ones it
    /// created; a shared token may list none (403). Expired accesses only with `includeExpired`.
    /// An access created through the API shows its token; one the command line issued does not
    /// (only its hash is kept).
    public func accesses(_ parameters: APIParameters, access: Access) async throws(APIError) -> APIResult {
        guard access.type != .shared else {
            throw APIError(.forbidden, "A shared access cannot list accesses; use a personal or an app token.")
        }
        let includeExpired = try parameters.bool("includeExpired") ?? false
        let now = Self.now()
        let listed = try await userAccesses(access.userName).filter { candidate in
            (access.type == .personal || candidate.createdBy == access.id) && (includeExpired || !candidate.hasExpired(at: now))
        }
        return APIResult([("accesses", .array(listed.map { .object(Self.members(of: $0, token: $0.token)) }))])
    }

    // MARK: accesses.create

    /// The most accesses one user may have, and the most permissions one access may hold.
    static let maximumAccessesPerUser = 1_000
    static let maximumPermissionsPerAccess = 100

    /// `accesses.create`: `{name, type?, permissions, expireAfter?, token?}`. The type is
    /// `shared` unless given; `personal` ones come only from `whereabouts users add`. A personal
    /// token creates app and shared accesses; an app token creates shared ones, each permission
    /// at most the level it has itself on that stream; a shared token creates none. Answers
    /// `201 {"access"}` with the token, which `accesses.get` shows again later.
    public func createAccess(_ params: JSONValue, access: Access) async throws(APIError) -> APIResult {
        guard case .object(let members) = params else {
            throw APIError(.invalidRequestStructure, "The access must be a JSON object, found \(params.kindDescription).")
        }
        let known: Set<String> = ["name", "type", "permissions", "expireAfter", "token", "deviceName", "clientData"]
        if let unknown = members.first(where: { !known.contains($0.key) }) {
            throw APIError(.invalidParameters, "Unknown field `\(unknown.key)` in the access; it may hold \(known.sorted().joined(separator: ", ")).")
        }
        let parameters = try APIParameters(json: params)
        guard let name = try parameters.string("name"), (1...200).contains(name.count) else {
            throw APIError(.invalidParameters, "`name` is required: 1 to 200 characters.")
        }
        let typeName = try parameters.string("type") ?? AccessType.shared.rawValue
        guard let type = AccessType(rawValue: typeName) else {
            throw APIError(.invalidParameters, "`type` must be app or shared, found \"\(typeName)\".")
        }
        guard type != .personal else {
            throw APIError(.forbidden, "Personal accesses come only from `whereabouts users add`; create an app or a shared one.")
        }
        switch (access.type, type) {
        case (.personal, _), (.app, .shared): break
        default:
            throw APIError(.forbidden, "A\(access.type == .app ? "n app" : " shared") access cannot create \(type.rawValue) accesses.")
        }
        let tree = try await loadTree(access.userName)
        let permissions = try Self.permissions(params["permissions"], in: tree, grantedBy: access)
        let expires = try Self.expiry(parameters)
        let token: String
        if let chosen = try parameters.string("token") {
            guard (20...100).contains(chosen.utf8.count),
                  chosen.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D })
            else {
                throw APIError(.invalidParameters, "`token`, when given, must be 20 to 100 lowercase letters, digits and '-'.")
            }
            token = chosen
        } else {
            token = AccessToken.generate()
        }
        let existing = try await userAccesses(access.userName)
        guard existing.count < Self.maximumAccessesPerUser else {
            throw APIError(.tooLarge, "User \"\(access.userName)\" has \(existing.count) accesses, as many as one may have; delete some first.")
        }
        let now = Self.now()
        if existing.contains(where: { $0.type == type && $0.name == name && !$0.hasExpired(at: now) }) {
            throw APIError(.itemAlreadyExists, "An \(type.rawValue) access named \"\(name)\" already exists.")
        }
        let created = Access(
            id: AccessToken.generateIdentifier(), userName: access.userName, name: name, tokenHash: AccessToken.hash(token),
            permissions: permissions, created: now, expires: expires, type: type, createdBy: access.id,
            modified: now, modifiedBy: access.id, token: token)
        do {
            try await store.addAccess(created)
        } catch StoreError.alreadyExists {
            throw APIError(.itemAlreadyExists, "An access with this token already exists; choose another token, or let the server make one.")
        } catch {
            throw .storeFailure(error)
        }
        return APIResult([("access", .object(Self.members(of: created, token: token)))], status: .created)
    }

    // MARK: accesses.update

    /// `accesses.update`: `{id, update: {name?, permissions?, expireAfter?}}` for an access the
    /// token may manage (a personal token: any but a personal one; an app token: those it
    /// created), with the same rules on permissions as a creation.
    public func updateAccess(id: String, update: JSONValue, access: Access) async throws(APIError) -> APIResult {
        guard case .object(let members) = update else {
            throw APIError(.invalidRequestStructure, "The update must be a JSON object, found \(update.kindDescription).")
        }
        let known: Set<String> = ["name", "permissions", "expireAfter"]
        if let unknown = members.first(where: { !known.contains($0.key) }) {
            throw APIError(.invalidParameters, "`\(unknown.key)` cannot be updated; an access's update may hold name, permissions, expireAfter.")
        }
        var target = try managedAccess(id: id, by: access, among: try await userAccesses(access.userName))
        guard target.type != .personal else {
            throw APIError(.forbidden, "A personal access cannot be changed through the API; use `whereabouts users`.")
        }
        let parameters = try APIParameters(json: update)
        if let name = try parameters.string("name") {
            guard (1...200).contains(name.count) else { throw APIError(.invalidParameters, "`name` must have 1 to 200 characters.") }
            target.name = name
        }
        if update["permissions"] != nil {
            target.permissions = try Self.permissions(update["permissions"], in: try await loadTree(access.userName), grantedBy: access)
        }
        if let expires = try Self.expiry(parameters) { target.expires = expires }
        target.modified = Self.now()
        target.modifiedBy = access.id
        do {
            try await store.replaceAccess(target)
        } catch {
            throw .storeFailure(error)
        }
        return APIResult([("access", .object(Self.members(of: target, token: target.token)))])
    }

    // MARK: accesses.delete

    /// `accesses.delete`: `{id}`. A personal token deletes any access, an app token the ones it
    /// created, any token itself (a revocation). The accesses the deleted one created go with
    /// it (`relatedDeletions`). Its token stops working within a second on every server.
    public func deleteAccess(id: String, access: Access) async throws(APIError) -> APIResult {
        let all = try await userAccesses(access.userName)
        let target = try managedAccess(id: id, by: access, among: all, allowingItself: true)
        let related = all.filter { $0.createdBy == target.id && $0.id != target.id }
        do {
            _ = try await store.removeAccess(tokenHash: target.tokenHash)
            for other in related { _ = try await store.removeAccess(tokenHash: other.tokenHash) }
        } catch {
            throw .storeFailure(error)
        }
        await accessesDidEnd([target.tokenHash] + related.map(\.tokenHash))
        var members: [(key: String, value: JSONValue)] = [("accessDeletion", .object([("id", .string(target.id))]))]
        if !related.isEmpty {
            members.append(("relatedDeletions", .array(related.map { .object([("id", .string($0.id))]) })))
        }
        return APIResult(members)
    }

    /// Every access of the user's, a store failure reported as an API error.
    private func userAccesses(_ userName: String) async throws(APIError) -> [Access] {
        do {
            return try await store.accesses(of: userName)
        } catch {
            throw .storeFailure(error)
        }
    }

    /// The access `id` among the user's `accesses`, if `access` may change or delete it (404
    /// otherwise, or 403 when it exists but is not the token's to manage).
    private func managedAccess(
        id: String, by access: Access, among accesses: [Access], allowingItself: Bool = false
    ) throws(APIError) -> Access {
        guard let found = accesses.first(where: { $0.id == id }) else { throw APIError(.unknownResource, "No access with id \"\(id)\".") }
        if allowingItself, found.id == access.id { return found }
        switch access.type {
        case .personal: return found
        case .app where found.createdBy == access.id: return found
        default: throw APIError(.forbidden, "This token cannot change or delete access \"\(id)\": it did not create it.")
        }
    }

    /// Permissions from a request (`[{streamId, level}]`), each on an existing stream (or `*`),
    /// at a level `grantor` has there itself unless it is personal.
    private static func permissions(
        _ value: JSONValue?, in tree: StreamTree, grantedBy grantor: Access
    ) throws(APIError) -> [Permission] {
        guard case .array(let items)? = value, !items.isEmpty else {
            throw APIError(.invalidParameters, "`permissions` is required: an array of {streamId, level}, level read, contribute or manage.")
        }
        guard items.count <= maximumPermissionsPerAccess else {
            throw APIError(.invalidParameters, "An access holds at most \(maximumPermissionsPerAccess) permissions; this one has \(items.count).")
        }
        var permissions: [Permission] = []
        for item in items {
            guard case .string(let streamId)? = item["streamId"] else {
                throw APIError(.invalidParameters, "Each permission needs a `streamId` (a stream's id, or \"*\" for all).")
            }
            guard case .string(let levelName)? = item["level"], let level = AccessLevel(rawValue: levelName) else {
                var found = ""
                if case .string(let other)? = item["level"] { found = ", found \"\(other)\"" }
                throw APIError(.invalidParameters, "The permission on \"\(streamId)\" needs a `level` of read, contribute or manage\(found).")
            }
            if streamId != Permission.allStreams, tree.streams[streamId] == nil {
                throw APIError(.unknownReferencedResource, "Unknown stream \"\(streamId)\" in `permissions`.")
            }
            if grantor.type != .personal {
                let granted = streamId == Permission.allStreams
                    ? grantor.allowsEverywhere(level) : grantor.allows(level, on: streamId, in: tree)
                guard granted else {
                    throw APIError(.forbidden, "This token cannot grant \(level.rawValue) on \"\(streamId)\": it does not have it itself.")
                }
            }
            permissions.append(Permission(streamId: streamId, level: level))
        }
        return permissions
    }

    /// `expireAfter` (seconds from now, at least 0) as an expiry time.
    private static func expiry(_ parameters: APIParameters) throws(APIError) -> Double? {
        guard let after = try parameters.number("expireAfter", in: -1e12...1e12) else { return nil }
        guard after >= 0 else { throw APIError(.invalidParameters, "`expireAfter` cannot be negative.") }
        return now() + after
    }
}
