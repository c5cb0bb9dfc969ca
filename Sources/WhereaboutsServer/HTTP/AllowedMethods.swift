import Hummingbird

/// Which methods each route of the API accepts, for answering a request whose path exists but
/// whose method does not with `405 Method Not Allowed` and an `Allow` header (RFC 9110 §15.5.6),
/// rather than a 404 that suggests the path is wrong.
///
/// The table comes from `/openapi.json` (``OpenAPIDocument/operations``), which a test keeps
/// equal to the router's routes.
///
/// ```swift
/// AllowedMethods.documented.methods(forPath: "/events/abc")  // ["DELETE", "GET", "HEAD", "PUT"]
/// ```
struct AllowedMethods: Sendable {
    private var routes: [(components: [Substring], methods: Set<String>)] = []

    /// The table of the routes in `/openapi.json`.
    static let documented = AllowedMethods(operations: OpenAPIDocument.operations)

    /// A table from `METHOD /path` lines, path parameters spelled `{name}`.
    init(operations: [String]) {
        var byPath: [String: Set<String>] = [:]
        for operation in operations {
            let parts = operation.split(separator: " ", maxSplits: 1)
            guard parts.count == 2 else { continue }
            byPath[String(parts[1]), default: []].insert(String(parts[0]))
        }
        routes = byPath.map { path, methods in (Self.components(path), methods) }
    }

    /// The methods some route accepts at `path`, sorted (`HEAD` wherever `GET` is); empty when
    /// no route has that path.
    func methods(forPath path: String) -> [String] {
        let requested = Self.components(path)
        var methods: Set<String> = []
        for route in routes where Self.matches(route.components, requested) {
            methods.formUnion(route.methods)
        }
        if methods.contains("GET") { methods.insert("HEAD") }  // see HeadRequestResponder
        return methods.sorted()
    }

    private static func components(_ path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: true)
    }

    private static func matches(_ template: [Substring], _ path: [Substring]) -> Bool {
        guard template.count == path.count else { return false }
        return zip(template, path).allSatisfy { pattern, component in
            (pattern.hasPrefix("{") && pattern.hasSuffix("}")) || pattern == component
        }
    }
}
