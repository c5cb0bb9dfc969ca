import Testing
import Whereabouts
@testable import WhereaboutsServer

/// A streamed answer is ASCII, its other characters escaped, so that a client decoding each
/// chunk alone (Pryv's JavaScript library) never sees one cut in two.
@Suite("Streamed answers in ASCII")
struct StreamedASCIITests {
    @Test func nonASCIITextIsEscapedAndReadsBackTheSame() async throws {
        var text = Array(#"{"content":"é € 😀 ok"}"#.utf8)
        APIResponse.escapeNonASCII(&text)
        #expect(String(decoding: text, as: UTF8.self) == #"{"content":"\u00e9 \u20ac \ud83d\ude00 ok"}"#)
        var ascii = Array(#"{"a":"plain text, longer than eight bytes"}"#.utf8)
        let before = ascii
        APIResponse.escapeNonASCII(&ascii)
        #expect(ascii == before)
        try await TestServer.run(.sqlite) { server in
            let (_, token) = try await server.addUser("uma")
            let note = object(("id", .string("n")), ("streamIds", .array([.string("position")])), ("type", .string("note/txt")),
                              ("content", .string("Zürich → 東京 😀")), ("time", .number(5)))
            _ = try await server.request(.POST, "/events", token: token, json: note)
            let answer = try await server.request(.GET, "/events?fromTime=0&toTime=10", token: token)
            #expect(answer.body.allSatisfy { $0 < 0x80 })
            #expect(answer.json["events"]?.arrayValue?.first?["content"] == .string("Zürich → 東京 😀"))
        }
    }
}
