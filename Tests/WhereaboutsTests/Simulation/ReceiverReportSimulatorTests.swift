import Foundation
import Testing
@testable import Whereabouts

/// ``ReceiverReportSimulator``: fixed receivers' reports of tags walked through a venue, with
/// their own schedules and clocks, delays, losses and duplicates, in the order they arrive.
@Suite struct ReceiverReportSimulatorTests {
    static let venue = Venue(defaults: Venue.Defaults(txPower: -59), beacons: [
        Venue.Beacon(id: "a", x: 0, y: 0, z: 2, txPower: -53), Venue.Beacon(id: "b", x: 10, y: 0, z: 2),
        Venue.Beacon(id: "c", x: 10, y: 10, z: 2, pathLossExponent: 3),
    ])
    static let walk = Walk(waypoints: [Walk.Waypoint(x: 1, y: 1, dwell: 5), Walk.Waypoint(x: 9, y: 9)], speed: 1, start: 1_000, device: "anna")
    static let quiet = RadioModel(shadowing: 0, multipathShare: 0, packetLoss: 0)

    /// The venue's beacons become its receivers, their calibration an offset.
    @Test func beaconsBecomeReceivers() {
        let receivers = ReceiverReportSimulator(venue: Self.venue, walk: Self.walk).receiverVenue
        #expect(receivers.beacons.isEmpty)
        #expect(receivers.receivers == [Venue.Receiver(id: "a", x: 0, y: 0, z: 2, rssiOffset: 6), Venue.Receiver(id: "b", x: 10, y: 0, z: 2),
                                        Venue.Receiver(id: "c", x: 10, y: 10, z: 2, pathLossExponent: 3)])
    }

    /// The same seed gives the same reports; each receiver's stamps and everyone's arrivals never
    /// go back; with no clock offset a report arrives within the delay of its stamp (or after the
    /// one before it); a repeated report comes again, next of its receiver's.
    @Test func reportsArriveInOrderOnTheReceiversClocks() throws {
        let network = ReceiverReportSimulator.Network(clockOffset: 0, delay: 0.05...0.1, reportLoss: 0, duplicates: 1)
        let simulator = ReceiverReportSimulator(venue: Self.venue, walk: Self.walk, radio: Self.quiet, network: network, seed: 3)
        let reports = simulator.reports()
        #expect(reports == simulator.reports())
        let arrivals = reports.compactMap(\.arrival)
        #expect(arrivals.count == reports.count && arrivals == arrivals.sorted())
        let duration = Self.walk.duration
        for receiver in ["a", "b", "c"] {
            let own = reports.filter { $0.device == receiver }
            #expect(own.count % 2 == 0 && own.count >= 2 * Int(duration.rounded(.down)))
            #expect(own.map(\.time) == own.map(\.time).sorted())
            for (original, copy) in stride(from: 0, to: own.count, by: 2).map({ (own[$0], own[$0 + 1]) }) {
                #expect(copy.time == original.time && copy.readings == original.readings)
                #expect((original.arrival ?? 0) - original.time >= 0.05 - 1e-9)
            }
            #expect(own.allSatisfy { $0.readings.map(\.beacon) == [.id("anna")] && $0.truth?.x != nil })
        }
        // Without noise the RSSI is the model's: receiver a, 6 dB hot, at the first spot (1, 1)
        // from (0, 0, 2) with the tag at 1.2 m: d = √(1 + 1 + 0.64).
        let first = try #require(reports.first { $0.device == "a" && $0.truth?.x == 1 })
        #expect(first.readings.first?.rssi == (-53 - 20 * log10((2.64).squareRoot())).rounded())
    }

    /// Clocks are off by up to the bound, the same for every tag a receiver hears; lost reports
    /// are gone.
    @Test func clocksAndLosses() {
        let other = Walk(waypoints: [Walk.Waypoint(x: 5, y: 5, dwell: 20)], start: 1_000, device: "ben")
        let network = ReceiverReportSimulator.Network(clockOffset: 0.5, delay: 0...0, reportLoss: 0, duplicates: 0)
        let simulator = ReceiverReportSimulator(venue: Self.venue, visits: [.init(walk: Self.walk, radio: Self.quiet), .init(walk: other, radio: Self.quiet)],
                                                network: network, seed: 5)
        let reports = simulator.reports()
        for receiver in ["a", "b", "c"] {
            // With no delay, arrival − stamp is the receiver's clock, the same for anna and ben.
            let offsets = Set(reports.filter { $0.device == receiver }.map { (($0.arrival ?? 0) - $0.time) * 1e6 }.map { $0.rounded() })
            #expect(offsets.count == 1 && abs((offsets.first ?? 1e9) / 1e6) <= 0.5, "\(receiver): \(offsets.sorted())")
        }
        #expect(Set(reports.flatMap(\.readings).map(\.beacon)) == [.id("anna"), .id("ben")])
        var lossy = simulator
        lossy.network.reportLoss = 1
        #expect(lossy.reports().isEmpty)
    }
}
