import ArgumentParser
import Foundation
import Testing

/// ``InProcessCommand`` answers as the built tool does, so that the tests of help, usage and
/// validation run in process can stand for launching it.
@Suite("in-process command lines")
struct InProcessCommandTests {
    @Test("the in-process answer is the launched tool's, byte for byte", arguments: [
        ["eval", "--help"],
        ["users", "token", "--help"],
        ["help", "locate"],
        ["--version"],
        ["locate", "--venue", "Examples/venue.json", "--algo", "knn"],
        ["locate", "--venu", "Examples/venue.json", "--recording", "x"],
        ["simulate", "--preset", "example", "--packet-loss", "2"],
        ["tags", "add", "ben-phone", "--irk", "ec02", "--file", "/nonexistent/tags.json"],
    ])
    func sameAsTheTool(arguments: [String]) async throws {
        let launched = try await CommandRunner.run(arguments, environment: ["COLUMNS": String(InProcessCommand.columns)])
        let parsed = InProcessCommand.parse(arguments)
        #expect(parsed.status == launched.status)
        #expect(parsed.standardOutput == launched.standardOutput)
        #expect(parsed.standardError == launched.standardError)
    }

    @Test func aCommandLineThatValidatesGivesTheCommand() async throws {
        let parsed = InProcessCommand.parse(["locate", "--venue", "venue.json", "--recording", "walk.jsonl", "--lag", "1"])
        #expect(parsed.status == 0 && parsed.standardOutput.isEmpty && parsed.standardError.isEmpty)
        let command = try #require(parsed.command)
        #expect(type(of: command).configuration.commandName == "locate")
    }
}
