import Foundation
import Testing
@testable import WhereaboutsServer

@Suite("Identifiers and tokens")
struct IdentifierTests {
    @Test("an identifier is a c, 8 base-36 digits of the time in milliseconds and 16 random characters")
    func identifierShape() {
        var identifiers = IdentifierGenerator()
        // 1,763,700,000,000 ms is "mi8dfxmo" in base 36.
        let id = identifiers.next(milliseconds: 1_763_700_000_000)
        #expect(id.count == 25)
        #expect(id.hasPrefix("cmi8dfxmo"))
        // Early times are padded with zeros to keep 8 digits (and the order).
        #expect(identifiers.next(milliseconds: 35).hasPrefix("c0000000z"))
        #expect(id.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) })
        #expect(EventValidation.isValidIdentifier(id))
    }

    @Test("identifiers sort by creation time and never repeat")
    func identifiersSortAndDiffer() {
        var identifiers = IdentifierGenerator()
        let earlier = (0..<500).map { _ in identifiers.next(milliseconds: 1_763_700_000_000) }
        let later = (0..<500).map { _ in identifiers.next(milliseconds: 1_763_700_000_001) }
        #expect(Set(earlier + later).count == 1_000)
        #expect(earlier.max()! < later.min()!)
        // Random parts differ in every position over many draws (no stuck character).
        for offset in 9..<25 {
            let characters = Set(earlier.map { Array($0.utf8)[offset] })
            #expect(characters.count > 20)
        }
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
