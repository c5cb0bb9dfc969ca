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
/// maps a stream id to its own limit in seconds: a position's limit is the shortest among its
/// streams', else `keep`.
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
            do {
                own = try await store.retention(of: access.userName)
            } catch {
                throw APIError.storeFailure(error)
            }
            // Per-stream limits: filled from the store once it keeps them.
            let streams: [String: Double] = [:]
            return APIResponse.json([("retention", Self.retention(own: own, defaultKeep: defaultKeep, streams: streams))])
        }
    }

    /// The `retention` member: the user's own retention (`own`, `.infinity` for ever) when they
    /// have one, else `defaultKeep`, else for ever; with the per-stream limits.
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
        let limits = streams.filter { $0.value.isFinite }.sorted { $0.key < $1.key }
        return .object([
            ("keep", keep.flatMap { $0.isFinite ? .number($0) : nil } ?? .null),
            ("from", .string(from)),
            ("streams", .object(limits.map { (key: $0.key, value: JSONValue.number($0.value)) })),
        ])
    }
}
