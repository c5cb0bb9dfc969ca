import Hummingbird
import Whereabouts

/// The OpenAPI 3 document of the server's whole API, served at `GET /openapi.json` (no token
/// needed): every route with its parameters, request bodies (schemas that match
/// ``EventValidation``), the statuses it answers with, Pryv's error shape and the `meta` member.
///
/// The document is kept true by `OpenAPIDocumentTests` (every route of the server is described,
/// every described route answers, the statuses listed are the ones the server gives) and by
/// `Scripts/schemathesis.sh`, which checks the running server against it.
///
/// ``OpenAPIRoutes`` serves it.
enum OpenAPIDocument {
    /// The path the document is served at.
    static let path = "/openapi.json"

    /// The document, parsed once from its source (a test checks the source is valid JSON).
    static let json: JSONValue = (try? JSONParser.parse(source)) ?? .object([])

    /// The document as served: compact JSON.
    static let body = JSONWriter().string(from: json)

    /// The operations the document describes, as `METHOD /path` with Hummingbird's path
    /// spelling (`GET /events/{id}`), sorted.
    static var operations: [String] {
        guard case .object(let paths)? = json["paths"] else { return [] }
        let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options"]
        return paths.flatMap { path, item -> [String] in
            guard case .object(let members) = item else { return [] }
            return members.map(\.key).filter(methods.contains).map { "\($0.uppercased()) \(path)" }
        }.sorted()
    }

    /// The routes `router` has that the document does not describe, as `METHOD /path`.
    static func undocumentedRoutes(of router: Router<ServerRequestContext>) -> [String] {
        let documented = Set(operations)
        return router.routes.map { "\($0.method.rawValue) \($0.path)" }.filter { !documented.contains($0) }.sorted()
    }

    /// The document's source: OpenAPI 3.0.3, written by hand next to the routes it describes, in
    /// `Resources/openapi.json` (embedded in the binary when it is built).
    static let source = String(decoding: PackageResources.openapi_json, as: UTF8.self)
}
