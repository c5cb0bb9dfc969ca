import AsyncHTTPClient
import Foundation
import HummingbirdTLS
import Logging
import ServiceLifecycle
import Testing
import WhereaboutsServerTesting
import Whereabouts
@testable import WhereaboutsServer

/// `serve --tls-cert --tls-key`: the server speaks HTTPS, and nothing else, on its port.
@Suite("TLS")
struct TLSTests {
    /// A self-signed certificate for 127.0.0.1 (P-256, valid for a hundred years), made for
    /// these tests with `openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes
    /// -days 36500 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1,DNS:localhost`.
    static let certificate = """
-----BEGIN CERTIFICATE-----
MIIBmzCCAUGgAwIBAgIUZrC/xYkcC+2CWZCxWpeu6WyBBdowCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJMTI3LjAuMC4xMCAXDTI2MTEyNjIzNDA1M1oYDzIxMjYxMTAy
MjM0MDUzWjAUMRIwEAYDVQQDDAkxMjcuMC4wLjEwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAAQiQzHok9m2TeCGLgme6oJ4zpYFYmZ83eysyyqXf/FfNft06U3bH2ia
d/siCKe3XOPkfbD1ARSELic9vPb/JpPOo28wbTAdBgNVHQ4EFgQUp7gsfcuMfJcc
AQM0EU57kreoGQwwHwYDVR0jBBgwFoAUp7gsfcuMfJccAQM0EU57kreoGQwwDwYD
VR0TAQH/BAUwAwEB/zAaBgNVHREEEzARhwR/AAABgglsb2NhbGhvc3QwCgYIKoZI
zj0EAwIDSAAwRQIgZIv8hSrYdhJN2d+nttJasq3xzTocDoe6uN/VTfXk/ZgCIQDB
xjiB1IpcMU8DAwbTs3F9QtFby5BT9+ZR84aiZO9JRw==
-----END CERTIFICATE-----
"""
    static let key = """
-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgSwi1ECKla29adE0d
ma2vtJ39WqNMWcrqVXgWMmrjDPShRANCAAQiQzHok9m2TeCGLgme6oJ4zpYFYmZ8
3eysyyqXf/FfNft06U3bH2iad/siCKe3XOPkfbD1ARSELic9vPb/JpPO
-----END PRIVATE KEY-----
"""

    @Test func theServerAnswersHTTPSAndRefusesPlainHTTP() async throws {
        let directory = NSTemporaryDirectory() + "whereabouts-tls-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let certPath = directory + "/cert.pem", keyPath = directory + "/key.pem"
        try Data(Self.certificate.utf8).write(to: URL(fileURLWithPath: certPath))
        try Data(Self.key.utf8).write(to: URL(fileURLWithPath: keyPath))

        let store = try SQLiteEventStore(directory: directory + "/data")
        try await store.migrate()
        let (_, token) = try await UserAdministration(store: store).addUser(named: "tess")
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, rateLimit: nil)
        configuration.tls = .init(certificateChain: certPath, privateKey: keyPath)
        var logger = Logger(label: "whereabouts.tests.tls")
        logger.logLevel = .critical
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = try makeServerApplication(configuration: configuration, store: store, logger: logger) { continuation.yield($0) }
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        let running = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())

        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .none
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: tls))
        do {
            var request = HTTPClientRequest(url: "https://127.0.0.1:\(port)/events")
            request.headers.add(name: "Authorization", value: token)
            let secure = try await client.execute(request, timeout: TestDeadline.answerTime)
            #expect(secure.status.code == 200)
            // Plain HTTP to the same port gets no HTTP answer: the server reads it as a broken TLS
            // record and closes the connection (a TLS alert at most), and goes on serving TLS.
            let plain = try RawHTTPConnection(port: port)
            #expect(plain.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
            let answer = await plain.receive(for: 10)
            #expect(answer.closed, "the server kept a plain-HTTP connection open on its TLS port")
            #expect(!answer.text.hasPrefix("HTTP/"), "plain HTTP got an HTTP answer: \(answer.text.prefix(80))")
            let again = try await client.execute(request, timeout: TestDeadline.answerTime)
            #expect(again.status.code == 200)
        } catch {
            Issue.record("\(error)")
        }
        try await client.shutdown()
        await group.triggerGracefulShutdown()
        _ = try? await running.value
        try await store.close()
    }

    @Test func anUnreadableCertificateIsASetupError() async throws {
        let harness = StoreHarness(.sqlite)
        try await harness.run { store in
            var configuration = ServerConfiguration(port: 0)
            configuration.tls = .init(certificateChain: "/nonexistent/cert.pem", privateKey: "/nonexistent/key.pem")
            #expect(throws: ServerSetupError.self) { _ = try makeServerApplication(configuration: configuration, store: store) }
        }
    }

    @Test func onlyLoopbackCountsAsLoopback() {
        for host in ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"] { #expect(ServerConfiguration.isLoopback(host), "\(host)") }
        for host in ["0.0.0.0", "192.168.1.5", "::", "example.org", "127.0.0", "127.0.0.1.5"] { #expect(!ServerConfiguration.isLoopback(host), "\(host)") }
    }
}
