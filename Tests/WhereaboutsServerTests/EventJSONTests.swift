import Testing
import Whereabouts
@testable import WhereaboutsServer

@Suite("Event JSON written directly")
struct EventJSONTests {
    static let events: [Event] = [
        Event(id: "c1", streamIds: ["position"], time: 1_763_700_000, type: "position/wgs84",
              content: .object([("latitude", .number(46.5)), ("longitude", .number(6.6))]),
              created: 1_763_700_000.25, createdBy: "a1", modified: 1_763_700_001, modifiedBy: "a1"),
        Event(id: "c2", streamIds: ["notes", "diary"], time: 10, duration: nil, type: "note/txt",
              content: .string("line\n\"quoted\" \\ tab\t\u{1}"), description: "désc", tags: ["a", "b"],
              clientData: .object([("k", .array([.null, .bool(false), .number(-0.5)]))]),
              attachments: [Attachment(id: "f1", fileName: "p.jpg", type: "image/jpeg", size: 12, integrity: "sha256-x")],
              trashed: true, created: 1, createdBy: "x", modified: 2, modifiedBy: "y"),
        Event(id: "c3", streamIds: [], time: -1.5, duration: 3_600, type: "activity/plain"),
    ]

    @Test("writeJSON gives the same text as writing the event's JSON tree")
    func sameAsTree() {
        for event in Self.events {
            var direct: [UInt8] = []
            event.writeJSON(to: &direct)
            #expect(String(decoding: direct, as: UTF8.self) == JSONWriter().string(from: event.jsonValue))
        }
    }

    @Test("a batch's results written directly equal its JSON tree, failures and other answers included")
    func batchResults() throws {
        let result = BatchResult(answers: [
            .event(Self.events[0]),
            .failure(APIError(.invalidParameters, "`type` is required.")),
            .result(APIResult([("events", .array([Self.events[1].jsonValue]))])),
            .event(Self.events[2]),
        ])
        var direct: [UInt8] = [UInt8(ascii: "{")]
        result.writeMembers(to: &direct)
        direct.append(UInt8(ascii: "}"))
        let parsed = try JSONParser.parse(String(decoding: direct, as: UTF8.self))
        #expect(parsed == .object([("results", result.jsonValue)]))
    }

    @Test("numbers: integral values without a fraction, others in shortest round-trip form")
    func numbers() {
        let values: [(Double, String)] = [
            (0, "0"), (-67, "-67"), (999_999_999_999_999, "999999999999999"), (1e15, "1000000000000000.0"), (1e300, "1e+300"),
            (46.5, "46.5"), (-0.1, "-0.1"), (.infinity, "null"), (.nan, "null"),
        ]
        for (value, text) in values {
            var out: [UInt8] = []
            JSONWriter.appendNumber(value, to: &out)
            #expect(String(decoding: out, as: UTF8.self) == text, "\(value)")
        }
    }
}
