import Testing
@testable import Whereabouts

@Suite struct SimulatedVenueFamilyTests {
    @Test func aSeedAlwaysDrawsTheSameVenueAndRecordings() {
        let first = SimulatedVenue(familySeed: 11), again = SimulatedVenue(familySeed: 11)
        #expect(first.venue == again.venue)
        #expect(Array(first.survey) == Array(again.survey))
        #expect(first.visits.map { Array($0) } == again.visits.map { Array($0) })
        #expect(first.summary == again.summary)
        #expect(SimulatedVenue(familySeed: 12).venue != first.venue)
    }

    @Test("members stay within the family's bounds", arguments: 1...25)
    func membersStayWithinBounds(seed: UInt64) {
        let member = SimulatedVenue(familySeed: seed)
        let venue = member.venue
        let floors = Set(venue.floors.map(\.level))
        #expect(floors == [0] || floors == [0, 1])
        for level in floors {
            let places = venue.places.filter { $0.floor == level }
            #expect(!places.isEmpty && places.count <= SimulatedVenue.maximumPlacesPerFloor)
            #expect(venue.beacons.contains { $0.floor == level })
        }
        // The venue file says what an installer would write; the truth is in the radio model.
        #expect(venue.beacons.allSatisfy { $0.txPower == nil && $0.pathLossExponent == nil })
        #expect(venue.defaults.txPower == -59 && venue.defaults.pathLossExponent == 2)
        #expect(member.survey.walk.waypoints.count <= SimulatedVenue.maximumDenseSurveySpots)
        #expect(member.survey.radio.calibrations.count == venue.beacons.count)
        // Three phones, each with its own gain, all within ±10 dB, and its own slope within ±25 %;
        // one building's shadowing field.
        let phones = [member.survey] + member.visits
        #expect(Set(phones.compactMap(\.walk.device)).count == 3)
        #expect(phones.allSatisfy { abs($0.radio.receiverOffset) <= 10 })
        #expect(phones.allSatisfy { abs($0.radio.receiverGain - 1) <= 0.25 })
        #expect(Set(phones.map(\.radio.receiverGain)).count == 3)
        #expect(Set(phones.map(\.radio.shadowingFieldSeed)).count == 1)
        // The second visit starts after the first ends.
        #expect(member.visits.count == 2)
        if member.visits.count == 2 {
            #expect(member.visits[1].walk.start > member.visits[0].walk.start + member.visits[0].walk.duration)
        }
        // Every survey scan knows where it was and in which place.
        #expect(member.survey.allSatisfy { $0.truth?.planarPoint != nil && $0.truth?.place != nil })
    }

    @Test func theFamilySpansSparseAndDenseVenuesAndBothLayouts() {
        let members = (1...25).map { SimulatedVenue(familySeed: $0) }
        let beaconsHeard = members.map { member -> Double in
            let scans = Array(member.visits[0])
            return Double(scans.reduce(0) { $0 + $1.readings.count }) / Double(max(scans.count, 1))
        }
        #expect((beaconsHeard.min() ?? 0) < 2.5)
        #expect((beaconsHeard.max() ?? 0) > 8)
        #expect(members.contains { $0.summary.hasPrefix("rooms") })
        #expect(members.contains { $0.summary.hasPrefix("cells") })
        #expect(members.contains { $0.venue.floors.count == 2 })
        // Surveys both dense (spots 1–1.5 m apart, where the building allows) and sparse (2–3 m).
        let surveySteps = members.map { member -> Double in
            let spots = member.survey.walk.waypoints
            guard spots.count > 1 else { return .infinity }
            return (1..<spots.count).map { spots[$0].point.distance(to: spots[$0 - 1].point) }.min() ?? .infinity
        }
        #expect(surveySteps.contains { $0 <= 1.5 })
        #expect(surveySteps.contains { $0 >= 2 })
    }
}
