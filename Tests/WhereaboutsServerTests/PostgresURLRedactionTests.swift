import Testing
@testable import WhereaboutsServer

/// `PostgresURL.redacted(_:)`, which the server's errors and the command line's messages use.
@Suite("PostgreSQL URL redaction")
struct PostgresURLRedactionTests {
    @Test("redacted hides the password and leaves everything else", arguments: [
        ("postgres://app:secret@db:5432/app", "postgres://app:***@db:5432/app"),
        ("postgresql://app:p@ss@db/app?sslmode=require", "postgresql://app:***@db/app?sslmode=require"),
        ("postgres://app@db/app", "postgres://app@db/app"),
        ("postgres://db/app", "postgres://db/app"),
        ("not a url", "not a url"),
    ])
    func redacted(url: String, expected: String) {
        #expect(PostgresURL.redacted(url) == expected)
    }

    @Test("an unparsable URL's error does not show its password")
    func errorIsRedacted() {
        do {
            _ = try PostgresURL("postgres://app:secret@db:port/app")
            Issue.record("the URL was accepted")
        } catch {
            #expect(!error.description.contains("secret"))
        }
    }
}
