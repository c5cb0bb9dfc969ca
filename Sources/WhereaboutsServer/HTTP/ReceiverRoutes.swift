import Hummingbird
import Whereabouts

/// `POST /{username}/receivers/reports`: fixed receivers' reports, sent by gateways
/// (`whereabouts relay`), fused into each tag's positions and places (``TagTracking``).
///
/// The body is a JSON array of reports, each a receiver's scan as a recording line holds it
/// (FORMATS.md §8: `t` on the receiver's clock, `device` the receiver's id in the venue,
/// `readings` the tags it heard); at most ``maximumReports`` a request. The answer says how many
/// were taken and which were refused, and why:
///
/// ```json
/// {"accepted": 41, "refused": [{"index": 3, "message": "…"}], "meta": {…}}
/// ```
///
/// A body that is not an array, too many reports, or reports all refused are a 400; a token
/// without the right to send reports a 403 (``TagTracking/allowsReports(_:)``); a server whose
/// venue lists no receivers a 404.
struct ReceiverRoutes: ServerRoutes {
    /// The tracking, when the server's venue lists receivers.
    let tracking: TagTracking?
    let limits: ServerConfiguration.BodyLimits

    /// The route's path, under the user's.
    static let path = "/receivers/reports"
    /// Reports one request may hold.
    static let maximumReports = 1_000
    /// Refusals the answer lists (the count says how many there were).
    static let maximumRefusalsListed = 20

    func addRoutes(to router: Router<ServerRequestContext>) {
        router.post(RouterPath(Self.path)) { request, context in
            let access = try context.requireAccess()
            guard let tracking else {
                throw APIError(.unknownResource, "This server follows no fixed receivers: start it with `whereabouts serve --venue V`, "
                               + "whose venue lists \"receivers\" (FORMATS.md §1).")
            }
            guard TagTracking.allowsReports(access) else {
                throw APIError(.forbidden, "This token may not send receivers' reports: it needs `contribute` on the stream "
                               + "\"\(TagTracking.reportsPermissionStreamId)\" (`whereabouts users token NAME --stream "
                               + "\(TagTracking.reportsPermissionStreamId) --level contribute`).")
            }
            let body = try await APIRoutes.readJSON(request, upTo: limits.json)
            guard case .array(let items) = body else {
                throw APIError(.invalidRequestStructure, "The body must be a JSON array of reports (FORMATS.md §8), found \(body.kindDescription).")
            }
            guard items.count <= Self.maximumReports else {
                throw APIError(.invalidParameters, "\(items.count) reports in one request; send at most \(Self.maximumReports).")
            }
            var reports: [Scan] = []
            var positions: [Int] = []
            var refused: [(index: Int, message: String)] = []
            for (index, item) in items.enumerated() {
                do {
                    reports.append(try ScanCoding.decode(item).scan)
                    positions.append(index)
                } catch {
                    refused.append((index, "\(error)"))
                }
            }
            let outcome = await tracking.take(reports, from: access)
            refused += outcome.refused.map { (positions[$0.index], $0.message) }
            refused.sort { $0.index < $1.index }
            let listed = refused.prefix(Self.maximumRefusalsListed).map { refusal in
                JSONValue.object([("index", .number(Double(refusal.index))), ("message", .string(refusal.message))])
            }
            if outcome.accepted == 0, let first = refused.first {
                throw APIError(.invalidParameters, "No report was taken; report \(first.index): \(first.message)",
                               data: .object([("refused", .array(listed)), ("refusedCount", .number(Double(refused.count)))]))
            }
            return APIResponse.json([
                ("accepted", .number(Double(outcome.accepted))),
                ("refused", .array(listed)),
                ("refusedCount", .number(Double(refused.count))),
            ])
        }
    }
}
