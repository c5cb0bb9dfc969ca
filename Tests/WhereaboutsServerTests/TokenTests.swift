import Foundation
import Testing
import Whereabouts
@testable import WhereaboutsServer

@Suite("Tokens and the server's identifiers")
struct TokenTests {
    @Test("the server's identifiers are valid event identifiers")
    func identifiersAreValid() {
        var identifiers = IdentifierGenerator()
        for _ in 0..<100 { #expect(EventValidation.isValidIdentifier(identifiers.next())) }
        #expect(EventValidation.isValidIdentifier(AccessToken.generateIdentifier()))
    }

    @Test("tokens are 32 characters from the secure source")
    func tokens() {
        let tokens = (0..<200).map { _ in AccessToken.generate() }
        #expect(Set(tokens).count == 200)
        #expect(tokens.allSatisfy { $0.count == 32 })
    }

    @Test("event types are class/format of lowercase letters, digits and hyphens")
    func eventTypes() {
        for valid in ["position/wgs84", "note/txt", "picture/attached", "a-1/b-2", "x/y"] {
            #expect(EventValidation.isValidType(valid), "\(valid)")
        }
        for invalid in ["position", "/wgs84", "position/", "a/b/c", "Position/wgs84", "a b/c", "", "a//b",
                        String(repeating: "a", count: 99) + "/bc"] {
            #expect(!EventValidation.isValidType(invalid), "\(invalid)")
        }
    }
}
