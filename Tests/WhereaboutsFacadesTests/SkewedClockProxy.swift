import AsyncHTTPClient
import Foundation
import Hummingbird
import NIOCore
import Whereabouts
import WhereaboutsServerTesting

/// A server whose clock is `skew` seconds off: a proxy in front of a real one that passes every
/// request through and moves the `meta.serverTime` of each JSON answer by `skew`, so that a
/// client measures that offset and must date its events by it.
struct SkewedClockProxy {
    let target: String
    let skew: Double

    /// Runs the proxy on a free loopback port while `body` runs with its URL.
    func run(_ body: @Sendable (String) async throws -> Void) async throws {
        let target = target, skew = skew
        let router = Router()
        router.on("**", method: .get) { request, _ in try await Self.forward(request, to: target, skew: skew) }
        router.on("**", method: .post) { request, _ in try await Self.forward(request, to: target, skew: skew) }
        router.on("**", method: .put) { request, _ in try await Self.forward(request, to: target, skew: skew) }
        router.on("/", method: .post) { request, _ in try await Self.forward(request, to: target, skew: skew) }
        try await withLoopbackServer(router) { port in try await body("http://127.0.0.1:\(port)") }
    }

    /// The request sent on to the target as it came; the answer back with its server time moved.
    private static func forward(_ request: Request, to target: String, skew: Double) async throws -> Response {
        var outgoing = HTTPClientRequest(url: target + request.uri.description)
        outgoing.method = .init(rawValue: request.method.rawValue)
        for field in request.headers { outgoing.headers.add(name: field.name.rawName, value: field.value) }
        outgoing.body = .bytes(try await request.body.collect(upTo: 16 << 20))
        let answer = try await HTTPClient.shared.execute(outgoing, timeout: .seconds(30))
        var body = try await answer.body.collect(upTo: 16 << 20)
        if case .object(var members)? = try? JSONParser.parse(body.readableBytesView),
           let index = members.firstIndex(where: { $0.key == "meta" }), case .object(var meta) = members[index].value,
           let time = meta.firstIndex(where: { $0.key == "serverTime" }), case .number(let serverTime) = meta[time].value {
            meta[time].value = .number(serverTime + skew)
            members[index].value = .object(meta)
            body = ByteBuffer(bytes: JSONWriter().bytes(from: .object(members)))
        }
        var response = Response(status: .init(code: Int(answer.status.code)), body: .init(byteBuffer: body))
        if let type = answer.headers.first(name: "content-type") { response.headers[.contentType] = type }
        return response
    }
}
