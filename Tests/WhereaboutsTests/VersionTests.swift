import Testing
@testable import Whereabouts
@Test func version() { #expect(!WhereaboutsInfo.version.isEmpty) }
