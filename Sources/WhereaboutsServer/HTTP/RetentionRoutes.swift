import Hummingbird
import Whereabouts

/// `GET /retention`: how long the server keeps the token's user's events, for the map page to
/// say so and to mark the positions the purge (``RetentionPurge``) is about to remove. Any valid
/// token of the user may ask (401 without one).
///
/// ```json
/// {"retention": {"keep": 7776000, "from": "user", "streams": {}}, "meta": {…}}
/// ```
///
/// `keep` is in seconds, `null` for ever; `from` says where it comes from: the user's own
/// retention (`whereabouts users retention`, which may be "for ever" whatever the server's
/// default), else the server's default (`serve --keep`), else `none` (kept for ever). `streams`
/// maps each stream whose limit is not `keep` — its own (`users retention --stream`) or its
/// nearest ancestor's — to that limit in seconds, `null` for ever: a position's limit is the
/// shortest among its streams' (a stream not listed: `keep`), as the purge does.
struct RetentionRoutes: ServerRoutes {
    /// Where each user's own retention is kept.
    let store: any EventStore
    /// Seconds an event is kept when its user has no retention of their own; `nil`: for ever.
    let defaultKeep: Double?

    /// The path of the route.
    static let path = "/retention"

    /// Adds `GET /retention` to `router`.
    func addRoutes(to router: Router<ServerRequestContext>) {
        router.get(RouterPath(Self.path)) { [store, defaultKeep] _, context in
            let access = try context.requireAccess()
            let own: Double?
            let streams: [String: Double]
            do {
                own = try await store.retention(of: access.userName)
                let streamLimits = try await store.streamRetentions(of: access.userName)
                let userKeep = own ?? defaultKeep
                // Each stream whose limit is not the user's: its own or its nearest ancestor's.
                streams = streamLimits.isEmpty ? [:] : RetentionPurge.limits(
                    of: try await store.streams(of: access.userName), own: streamLimits, user: userKeep
                ).filter { $0.value != (userKeep ?? .infinity) }
            } catch {
                throw APIError.storeFailure(error)
            }
            return APIResponse.json([("retention", Self.retention(own: own, defaultKeep: defaultKeep, streams: streams))])
        }
    }

    /// The `retention` member: the user's own retention (`own`, `.infinity` for ever) when they
    /// have one, else `defaultKeep`, else for ever; with the streams' limits that differ from it
    /// (`.infinity`: for ever).
    static func retention(own: Double?, defaultKeep: Double?, streams: [String: Double]) -> JSONValue {
        let keep: Double?
        let from: String
        if let own {
            (keep, from) = (own, "user")
        } else if let defaultKeep {
            (keep, from) = (defaultKeep, "server")
        } else {
            (keep, from) = (nil, "none")
        }
        let limits = streams.sorted { $0.key < $1.key }
        return .object([
            ("keep", keep.flatMap { $0.isFinite ? .number($0) : nil } ?? .null),
            ("from", .string(from)),
            ("streams", .object(limits.map { (key: $0.key, value: $0.value.isFinite ? JSONValue.number($0.value) : .null) })),
        ])
    }
}
