import Hummingbird
import Whereabouts

/// `GET /service/info` (also at `/{username}/service/info`): what Pryv's clients read first to
/// find a user's API endpoint (`new pryv.Service(url).info()`, then
/// `service.apiEndpointFor(username, token)`). No token is needed.
///
/// `api` is `{base}/{username}/`, Pryv's DNS-less form, with `base` the server's public URL
/// (``ServerConfiguration/publicURL``) or, without one, the scheme this server serves and the
/// request's `Host`. `register` and `access` are given because Pryv's clients require them;
/// this server has neither registration nor access requests (tokens come from
/// `whereabouts users`), so both answer 404.
struct ServiceInfoRoutes: ServerRoutes {
    /// The URL clients reach the server at, without a trailing slash, if the operator gave one.
    let publicURL: String?
    /// Whether the server serves HTTPS itself.
    let servesTLS: Bool

    /// The path of the route.
    static let path = "/service/info"

    func addRoutes(to router: Router<ServerRequestContext>) {
        router.get(RouterPath(Self.path)) { request, _ in
            APIResponse.json(Self.members(base: base(of: request)))
        }
    }

    /// The server's base URL as a client of `request` reaches it.
    private func base(of request: Request) -> String {
        if let publicURL { return publicURL }
        let host = request.head.authority ?? "127.0.0.1"
        // A host a client sent is echoed back: keep it to the characters a host and port have.
        let safe = host.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || ".-:[]".unicodeScalars.contains($0)) }
        return (servesTLS ? "https://" : "http://") + (safe && !host.isEmpty && host.count <= 255 ? host : "127.0.0.1")
    }

    /// The answer's members for a server at `base`.
    static func members(base: String) -> [(key: String, value: JSONValue)] {
        [
            ("name", .string("Whereabouts")),
            ("api", .string(base + "/{username}/")),
            ("access", .string(base + "/access/")),
            ("register", .string(base + "/reg/")),
            ("home", .string(base + "/map")),
            ("support", .string(base + "/openapi.json")),
            ("terms", .string("")),
            ("eventTypes", .string("https://pryv.github.io/event-types/flat.json")),
            ("serial", .string("whereabouts-\(WhereaboutsInfo.version)")),
            ("version", .string(APIResponse.apiVersion)),
            // No high-frequency series: Pryv's clients skip them.
            ("features", .object([("noHF", .bool(true))])),
        ]
    }
}
