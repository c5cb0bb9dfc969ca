import Foundation
import HummingbirdWSClient
import Logging
import Testing
import Whereabouts
@testable import WhereaboutsServer

/// Tokens end: a revoked token stops working within a second and its `/live` sockets close; an
/// expired one stops at its expiry. On every store backend.
@Suite("Token revocation and expiry", .serialized)
struct TokenLifetimeTests {
    @Test("The store keeps expiries and removes accesses by token and by label", arguments: StoreKind.tested)
    func storeKeepsExpiriesAndRemovesAccesses(kind: StoreKind) async throws {
        let harness = StoreHarness(kind)
        try await harness.run { store in
            let jo = try await harness.addUser("jo", to: store)
            let grants = [Permission(streamId: Permission.allStreams, level: .read)]
            let phone = Access(id: "p1", userName: jo, name: "phone", tokenHash: AccessToken.hash("phone-token-1"),
                               permissions: grants, created: 10, expires: 2_000_000_000)
            let phone2 = Access(id: "p2", userName: jo, name: "phone", tokenHash: AccessToken.hash("phone-token-2"),
                                permissions: grants, created: 11)
            let gateway = Access(id: "g1", userName: jo, name: "gateway", tokenHash: AccessToken.hash("gateway-token"),
                                 permissions: grants, created: 12)
            for access in [phone, phone2, gateway] { try await store.addAccess(access) }
            #expect(try await store.access(tokenHash: phone.tokenHash)?.expires == 2_000_000_000)
            #expect(try await store.access(tokenHash: phone2.tokenHash)?.expires == nil)
            let listed = try await store.accesses(of: jo).map(\.id)
            #expect(Array(listed.suffix(3)) == ["p1", "p2", "g1"])

            #expect(try await store.removeAccess(tokenHash: gateway.tokenHash))
            #expect(try await store.removeAccess(tokenHash: gateway.tokenHash) == false)
            #expect(try await store.access(tokenHash: gateway.tokenHash) == nil)
            #expect(try await store.removeAccesses(of: jo, named: "phone") == 2)
            #expect(try await store.removeAccesses(of: jo, named: "phone") == 0)
            #expect(try await store.access(tokenHash: phone.tokenHash) == nil)
        }
    }

    @Test("A revoked token is refused within a second; an expired one at once", arguments: StoreKind.tested)
    func revokedAndExpiredTokensAreRefused(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let (ann, token) = try await server.addUser("ann")
            let administration = UserAdministration(store: server.store)
            let phone = try await administration.issueToken(for: ann, name: "phone",
                                                            permissions: [Permission(streamId: "position", level: .read)],
                                                            expires: Date().timeIntervalSince1970 + 3_600)
            #expect(try await server.request(.GET, "/events", token: phone).status == 200)
            try await administration.revoke(token: phone)
            try await Task.sleep(for: .milliseconds(1_200))
            let revoked = try await server.request(.GET, "/events", token: phone)
            #expect(revoked.status == 401)
            await #expect(throws: UserAdministration.Failure.unknownToken) { try await administration.revoke(token: phone) }

            // An expiry in the past is refused when issuing; an access that has expired since is refused.
            await #expect(throws: UserAdministration.Failure.expiryInThePast) {
                _ = try await administration.issueToken(for: ann, name: "old", permissions: [], expires: 1_000)
            }
            try await server.store.addAccess(Access(id: "expired", userName: ann, name: "old", tokenHash: AccessToken.hash(ann + "-expired-token"),
                                                    permissions: [Permission(streamId: Permission.allStreams, level: .read)],
                                                    created: 0, expires: Date().timeIntervalSince1970 - 1))
            #expect(try await server.request(.GET, "/events", token: ann + "-expired-token").status == 401)
            // The personal token still works.
            #expect(try await server.request(.GET, "/events", token: token).status == 200)
        }
    }

    @Test("Revoking a token closes the /live sockets it opened")
    func revocationClosesLiveSockets() async throws {
        try await MapTestServer.run { server in
            var logger = Logger(label: "whereabouts.tests.live")
            logger.logLevel = .error
            let started = ContinuousClock.now
            let closed = try await WebSocketClient.connect(url: "\(server.webSocketURL)/live?auth=\(MapTestServer.aliceToken)",
                                                           logger: logger) { inbound, outbound, _ in
                var messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
                guard case .text? = try await messages.next() else { return }   // ready
                _ = try await server.store.removeAccess(tokenHash: AccessToken.hash(MapTestServer.aliceToken))
                // Until the server closes (within a second or two); after 15 s (a very busy machine)
                // the client closes, normally, and the test fails.
                let timeout = Task {
                    try await Task.sleep(for: .seconds(15))
                    try await outbound.close(.normalClosure, reason: "the server kept the socket open")
                }
                while try await messages.next() != nil {}
                timeout.cancel()
            }
            #expect(closed?.closeCode == .policyViolation)
            #expect(ContinuousClock.now - started < .seconds(15))
        }
    }
}

/// `/live` takes sockets only from this server's own pages, and no more than its caps.
@Suite("Live socket limits")
struct LiveSocketLimitTests {
    @Test("A /live request from another site's page is refused; one from this server's, or from no page, is not")
    func crossSiteSocketsAreRefused() async throws {
        try await TestServer.run(.sqlite) { server in
            let (_, token) = try await server.addUser("olga")
            let port = server.baseURL.split(separator: ":").last.map(String.init) ?? ""
            let foreign = try await server.request(.GET, "/live?auth=\(token)", headers: [("Origin", "https://evil.example")])
            #expect(foreign.status == 403)
            #expect(foreign.json["error"]?["message"]?.stringValue?.contains("evil.example") == true)
            let own = try await server.request(.GET, "/live?auth=\(token)", headers: [("Origin", "http://127.0.0.1:\(port)")])
            #expect(own.status == 426)   // accepted; only the upgrade is missing
            let noPage = try await server.request(.GET, "/live?auth=\(token)")
            #expect(noPage.status == 426)
        }
    }

    @Test func theCapsCountSocketsPerTokenAndInAll() async {
        let connections = LiveConnections(limits: .init(perToken: 2, total: 3))
        let first = await connections.open("a"), second = await connections.open("a")
        #expect(first && second)
        let third = await connections.open("a")
        #expect(!third)                                   // a's cap
        let other = await connections.open("b")
        #expect(other)
        let beyond = await connections.admits("c")
        #expect(!beyond)                                  // the server's cap
        await connections.close("a")
        let again = await connections.open("a")
        #expect(again)
        #expect(await connections.openCount == 3)
        await connections.close("zzz")                     // not open: nothing changes
        #expect(await connections.openCount == 3)
    }
}

@Suite("Failed authentications")
struct FailedAuthenticationTests {
    /// Guessing tokens from one address soon gets 429 without a look-up; a client of the same
    /// address whose token worked recently carries on. (The limit refills at one attempt every
    /// 1,000 s here, so that a slow machine cannot refill it during the test.)
    @Test("An address that tries many unknown tokens is slowed down; a known client beside it is not")
    func guessingIsLimitedPerAddress() async throws {
        var configuration = ServerConfiguration()
        configuration.failedAuthentications = .init(requestsPerSecond: 0.001, burst: 20)
        try await TestServer.run(.sqlite, configuration: configuration) { server in
            let (_, good) = try await server.addUser("gus")
            #expect(try await server.request(.GET, "/events", token: good).status == 200)
            var statuses: [Int] = []
            for attempt in 0..<40 {
                statuses.append(try await server.request(.GET, "/events", token: "guess-\(attempt)-xxxxxxxxxxxxxxxx").status)
            }
            #expect(statuses.prefix(20).allSatisfy { $0 == 401 }, "\(statuses)")
            #expect(statuses.suffix(10).allSatisfy { $0 == 429 }, "\(statuses)")
            let limited = try await server.request(.GET, "/events", token: "guess-final-xxxxxxxxxxxxxxxx")
            #expect(limited.status == 429 && limited.headers.first(name: "Retry-After") != nil)
            // The client that authenticated before is not locked out with the guesser.
            #expect(try await server.request(.GET, "/events", token: good).status == 200)
        }
    }
}
