// The framework's own ceiling on this machine: a bare Hummingbird server whose routes do what
// every request of `whereabouts serve` must do at the least — read the request and its body,
// answer with a small JSON body — and nothing else (no parsing, no authentication, no store).
// Scripts/ingest-benchmark.sh measures it beside the real server, on the same core, so that
// each of the server's figures can be read as a share of what the framework allows.
//
//     swift run -c release --package-path Benchmarks HummingbirdCeiling 18090
import Hummingbird

let port = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 18090
let created = ByteBuffer(string: #"{"event":{"id":"c0000000000000000000000000"},"meta":{"apiVersion":"1.0"}}"#)
let empty = ByteBuffer(string: "[]")

let router = Router()
// POST /events and POST /pub: the body read whole (as the server reads a JSON body), a constant answer.
router.post("events") { request, _ -> Response in
    _ = try await request.body.collect(upTo: 1 << 20)
    return Response(status: .created, headers: [.contentType: "application/json"], body: .init(byteBuffer: created))
}
router.post("pub") { request, _ -> Response in
    _ = try await request.body.collect(upTo: 1 << 20)
    return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: empty))
}
router.get("health") { _, _ -> Response in
    Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: empty))
}

let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
try await app.runService()
