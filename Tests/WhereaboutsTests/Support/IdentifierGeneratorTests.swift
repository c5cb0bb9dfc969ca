import Foundation
import Testing
@testable import Whereabouts

@Suite("Identifiers")
struct IdentifierGeneratorTests {
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
        // Seconds as a client gives them: 1,700,000,000.5 s is "loyw3vg4" (ms, base 36); out of range clamps.
        #expect(identifiers.next(createdAt: 1_700_000_000.5).hasPrefix("cloyw3vg4"))
        #expect(identifiers.next(createdAt: -5).hasPrefix("c00000000"))
        #expect(identifiers.next(createdAt: .nan).hasPrefix("c00000000"))
    }

    @Test("identifiers sort by creation time and never repeat")
    func identifiersSortAndDiffer() throws {
        var identifiers = IdentifierGenerator()
        let earlier = (0..<500).map { _ in identifiers.next(milliseconds: 1_763_700_000_000) }
        let later = (0..<500).map { _ in identifiers.next(milliseconds: 1_763_700_000_001) }
        #expect(Set(earlier + later).count == 1_000)
        #expect(try #require(earlier.max()) < (try #require(later.min())))
        // Random parts differ in every position over many draws (no stuck character).
        for offset in 9..<25 {
            let characters = Set(earlier.map { Array($0.utf8)[offset] })
            #expect(characters.count > 20)
        }
    }
}
