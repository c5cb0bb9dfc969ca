import Testing
@testable import Whereabouts

@Suite("JSON parser and writer")
struct JSONTests {
    @Test func parsesEveryKindOfValue() throws {
        let value = try JSONParser.parse(#" {"a": [1, -2.5, 3e2, true, false, null], "b": {"c": "d\"e\u00e9\ud83d\ude00"}} "#)
        #expect(value["a"] == .array([.number(1), .number(-2.5), .number(300), .bool(true), .bool(false), .null]))
        #expect(value["b"]?["c"] == .string("d\"eé😀"))
    }

    @Test func numbersReadExactly() throws {
        #expect(try JSONParser.parse("1539878121.25") == .number(1539878121.25))
        #expect(try JSONParser.parse("-67") == .number(-67))
        #expect(try JSONParser.parse("0.1") == .number(0.1))
        #expect(try JSONParser.parse("3815.854536") == .number(3815.854536))
        #expect(try JSONParser.parse("12345678901234567890") == .number(Double("12345678901234567890")!))
        #expect(try JSONParser.parse("-0.000001") == .number(-0.000001))
    }

    @Test("malformed JSON is an error with an offset, never a trap", arguments: [
        ("", "expected a value, found end of input"),
        ("{", "expected a member name"),
        (#"{"a" 1}"#, "expected ':'"),
        (#"{"a": 1,}"#, "expected a member name"),
        ("[1 2]", "expected ',' or ']'"),
        ("01", "leading zero"),
        ("1.", "expected a digit after '.'"),
        ("-", "expected a digit"),
        ("1e", "expected a digit in exponent"),
        (#""abc"#, "unterminated string"),
        (#""\x""#, "invalid escape"),
        (#""\ud800""#, "unpaired surrogate"),
        ("tru", "expected a JSON value (an object, an array, a string, a number, true, false or null), found \"tru\""),
        ("[1] 2", "after the JSON value"),
        ("1e999", "out of range"),
    ])
    func malformed(text: String, message: String) {
        #expect {
            try JSONParser.parse(text)
        } throws: { error in
            String(describing: error).contains(message)
        }
    }

    /// Errors name a line and column in a text of several lines, a column in a one-line text (a
    /// recording's line, whose reader names the file's line), and show the text that is wrong.
    @Test func errorsNameTheLineAndColumn() {
        let multiline = "{\n  \"name\": \"hall\",\n  \"floors\": [1 2]\n}\n"
        #expect {
            try JSONParser.parse(multiline)
        } throws: { error in
            String(describing: error) == "expected ',' or ']' in array, found '2' (line 3, column 16)"
        }
        #expect {
            try JSONParser.parse("this is garbage\n")
        } throws: { error in
            String(describing: error).hasSuffix(#"found "this is garbage" (column 1)"#)
        }
    }

    /// A file's JSON error reads `file:line:column: not valid JSON: …`, as a compiler names a
    /// place; at the end of a one-line text, the column is the end of that line.
    @Test func fileErrorsNameFileLineAndColumn() throws {
        #expect {
            try VenueFile.decode(Array("{\n  \"name\": \"hall\",\n  \"floors\": [1 2]\n}\n".utf8), file: "venue.json")
        } throws: { error in
            String(describing: error) == "venue.json:3:16: not valid JSON: expected ',' or ']' in array, found '2'"
        }
        #expect {
            try VenueFile.decode(Array(#"{"name": "x","#.utf8) + [0x0A], file: "short.json")
        } throws: { error in
            String(describing: error).hasPrefix("short.json:1:14: not valid JSON:")
        }
        #expect(String(describing: FormatError(line: 4, column: 2, message: "m")) == "line 4, column 2: m")
    }

    @Test func aRecordingGivenAsAVenueIsNamedSo() throws {
        let recording = #"{"t": 1, "readings": [{"beacon": "a", "rssi": -60}]}"# + "\n" + #"{"t": 2, "readings": []}"# + "\n"
        #expect {
            try VenueFile.decode(Array(recording.utf8), file: "visit.jsonl")
        } throws: { error in
            String(describing: error).contains("visit.jsonl: this looks like a recording")
        }
    }

    @Test func deepNestingIsRejected() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(deep) }
    }

    @Test func invalidUTF8IsRejected() {
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse([0x22, 0xFF, 0xFE, 0x22]) }
        // After ASCII (the strings taken without validation are those with no byte above 0x7F),
        // a lone continuation byte, and a truncated two-byte sequence at the end.
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(Array(#""abc"#.utf8) + [0x80, 0x22]) }
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(Array(#""room "#.utf8) + [0xC3, 0x22]) }
    }

    @Test func stringsKeepTheirCharacters() throws {
        #expect(try JSONParser.parse(#""kitchen-2""#) == .string("kitchen-2"))
        #expect(try JSONParser.parse(#""Zürich, 東京 🛰""#) == .string("Zürich, 東京 🛰"))
        #expect(try JSONParser.parse(#""a\u00fcb \ud83d\udef0""#) == .string("aüb 🛰"))
        #expect(try JSONParser.parse(#""""#) == .string(""))
    }

    @Test func writerRoundTrips() throws {
        let value = JSONValue.object([("t", .number(12.5)), ("n", .number(-67)), ("s", .string("a\"b\\c\n\u{01}")),
                                      ("a", .array([.null, .bool(true), .number(0.1), .number(1e-7)])), ("o", .object([]))])
        let compact = JSONWriter().string(from: value)
        #expect(compact == #"{"t":12.5,"n":-67,"s":"a\"b\\c\n\u0001","a":[null,true,0.1,1e-07],"o":{}}"#)
        #expect(try JSONParser.parse(compact) == value)
        #expect(try JSONParser.parse(JSONWriter(indent: 2).string(from: value)) == value)
    }
}
