import Foundation
import Hummingbird
import NIOCore
import Testing
@testable import WhereaboutsServer

/// Where a request's token is read from: the Authorization header as Pryv sends it (the bare
/// token), `Bearer`, or `Basic` (OwnTracks: the token as the password, or alone as the user
/// name), schemes in any case and white space around; `?auth=` on `/live` only.
@Suite("The token of a request")
struct RequestTokenTests {
    private func request(path: String = "/events", authorization: String? = nil) -> Request {
        var fields = HTTPFields()
        if let authorization { fields[.authorization] = authorization }
        let head = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1", path: path, headerFields: fields)
        return Request(head: head, body: RequestBody(buffer: ByteBuffer()))
    }

    private func basic(_ credentials: String) -> String {
        "Basic " + Data(credentials.utf8).base64EncodedString()
    }

    @Test("the header's forms", arguments: [
        ("tok3n", "tok3n"),
        ("  tok3n\t", "tok3n"),
        ("Bearer tok3n", "tok3n"),
        ("bEARER   tok3n  ", "tok3n"),
        ("Bearer", "Bearer"),            // no space after the scheme: a bare token, as Pryv's
        ("Bearerish", "Bearerish"),
    ])
    func headerForms(header: String, token: String) {
        #expect(AuthenticationMiddleware.token(in: request(authorization: header)) == token)
    }

    @Test func basicCredentials() {
        #expect(AuthenticationMiddleware.token(in: request(authorization: basic("alice:tok3n"))) == "tok3n")
        #expect(AuthenticationMiddleware.token(in: request(authorization: basic("tok3n:"))) == "tok3n")
        #expect(AuthenticationMiddleware.token(in: request(authorization: basic("alice:pa:ss"))) == "pa:ss")
        #expect(AuthenticationMiddleware.token(in: request(authorization: "BASIC  " + Data("u:t".utf8).base64EncodedString()))
                == "t")
        // Not base64, or empty: no token (rather than the header taken as one).
        #expect(AuthenticationMiddleware.token(in: request(authorization: "Basic ***")) == nil)
        #expect(AuthenticationMiddleware.token(in: request(authorization: basic(":"))) == nil)
    }

    @Test func noHeader() {
        #expect(AuthenticationMiddleware.token(in: request(authorization: "   ")) == nil)
        #expect(AuthenticationMiddleware.token(in: request()) == nil)
        #expect(AuthenticationMiddleware.token(in: request(path: "/events?auth=tok3n")) == nil)
        #expect(AuthenticationMiddleware.token(in: request(path: LiveRoutes.path + "?auth=tok3n")) == "tok3n")
    }
}
