// The seed systems' APIs, used as their own apps used them, on the bundled example: a visitor
// walking through the halls of a trade-fair campus (Examples/venue.json, Examples/visit.jsonl).
//
//   swift run SeedAPIsExample
//   swift run SeedAPIsExample --server http://127.0.0.1:8080 --user alice --token TOKEN   # and Pryv's client
//
// Each part is a few lines of the seed's own calls; WhereaboutsFacades maps them onto the engine.

import ArgumentParser
import Foundation
import Whereabouts
import WhereaboutsFacades

@main
struct SeedAPIsExample: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "SeedAPIsExample",
        abstract: "Hekaerge, IBeaconLocation, NaviBeacon, Bluenet and Pryv's client on the bundled example.")

    @Option(help: "The venue.") var venue = "Examples/venue.json"
    @Option(help: "The recording.") var recording = "Examples/visit.jsonl"
    @Option(help: "A server for Pryv's client (skipped without a token).") var server = "http://127.0.0.1:8080"
    @Option(help: "The user of the token, for Pryv's client.") var user = "alice"
    @Option(help: "An access token for Pryv's client.") var token: String?

    func run() async throws {
        let venue = try VenueFile.read(from: URL(fileURLWithPath: venue))
        let visit = URL(fileURLWithPath: recording)
        let uuid = venue.beacons.compactMap(\.iBeacon?.uuid).first ?? UUID()

        // Hekaerge: the halls, sorted from where the visitor is.
        print("== Hekaerge")
        let halls = venue.places.compactMap { place -> HekaergeFacade.HekaergeLocation? in
            guard case .circle(_, let radius, let coordinate?) = place.shape else { return nil }
            return HekaergeFacade.HekaergeLocation(id: place.id, latitude: coordinate.latitude, longitude: coordinate.longitude,
                                    floor: place.floor, radius: radius)
        }
        let hekaerge = try HekaergeFacade.Hekaerge(locations: halls, venue: venue)
        // The delegate hears every new order; it prints one when the nearest hall changes.
        final class Printer: HekaergeFacade.HekaergeDelegate, @unchecked Sendable {
            var nearest = ""
            func didChangeLocation(_ locations: [HekaergeFacade.HekaergeLocation]) {
                guard let first = locations.first?.identifier, first != nearest else { return }
                nearest = first
                print("  nearest: " + locations.prefix(3).map(\.identifier).joined(separator: ", "))
            }
        }
        let printer = Printer()
        hekaerge.delegate = printer
        try await hekaerge.startLocating(try RecordingReader(url: visit))
        print("  the visit ended: no position, so the input order (" + hekaerge.orderedLocations.prefix(3).map(\.identifier)
              .joined(separator: ", ") + ", …)")

        // IBeaconLocation: hall 3's beacons on a floor of their own, PowerCenter and EPTA trusted 2:1.
        print("== IBeaconLocation")
        let location = IBeaconLocationFacade.BeaconLocation(uuid: uuid, identifier: "hall3")
        for beacon in venue.beacons {
            guard let identity = beacon.iBeacon, identity.major == 3, let x = beacon.x, let y = beacon.y else { continue }
            location.floor.addBeacon(major: identity.major, minor: identity.minor, x: x, y: y)
        }
        try location.processor.setAlgorithmsAndTrusts([.powerCenter: 2, .epta: 1])
        var positions = 0
        for try await scan in try RecordingReader(url: visit) {
            let named = Scan(time: scan.time, readings: scan.readings.compactMap { reading in
                venue.beaconIndex(for: reading.beacon).flatMap { venue.beacons[$0].iBeacon }
                    .map { Reading(beacon: .iBeacon($0), rssi: reading.rssi) }
            })
            if let fix = await location.processor.process(named) {
                positions += 1
                if positions % 20 == 1 { print("  \(Int(fix.time)): (\(Int(fix.point.x)), \(Int(fix.point.y)))") }
            }
        }
        print("  \(positions) positions from hall 3's beacons")

        // NaviBeacon: a callback on every round of the campus UUID.
        print("== NaviBeacon")
        let navi = NaviBeaconFacade.NaviBeacon(venue: venue)
            .addBeacon(identifier: "campus", uuid: uuid, latitude: nil, longitude: nil, heading: nil, floor: nil)
        let closest = LockedValue<[String: Double]>([:])
        navi.onBeaconChanged = { beacon, _ in
            guard let distance = beacon.distance, let identity = beacon.identity else { return }
            closest.withValue { $0["hall \(identity.major)"] = min($0["hall \(identity.major)"] ?? .infinity, distance) }
        }
        try await navi.startScanning(try RecordingReader(url: visit))
        for (hall, distance) in closest.value.sorted(by: { $0.key < $1.key }) {
            print("  closest to \(hall): \((distance * 10).rounded() / 10) m")
        }

        // Bluenet Localization: regions of the campus UUID, by topic.
        print("== Bluenet Localization")
        let bluenet = BluenetFacade.BluenetLocalization(venue: venue)
        let unsubscribe = bluenet.on("enterRegion") { data in
            if case .string(let referenceId) = data { print("  enterRegion \(referenceId)") }
        }
        _ = bluenet.on("exitRegion") { data in
            if case .string(let referenceId) = data { print("  exitRegion \(referenceId)") }
        }
        try await bluenet.trackIBeacon(uuid: uuid.uuidString, referenceId: "campus")
        try await bluenet.startScanning(try RecordingReader(url: visit))
        unsubscribe()

        // Pryv's position client: the visitor's last position, sent and read back.
        guard let token else {
            print("== Pryv: skipped (give --user and --token to send a position to --server)")
            return
        }
        print("== Pryv")
        let client = PryvFacade.PryvAPIClient.shared
        let outbox = NSTemporaryDirectory() + "seed-apis-example-\(UUID().uuidString).sqlite"
        let serverTime = try await client.startClient(userId: user, oAuthToken: token, channelId: "position",
                                                      server: server, outboxPath: outbox)
        print("  server time \(Int(serverTime))")
        let engine = LocationEngine(configuration: .init(venue: venue))
        var last: Fix?
        for try await fix in engine.fixes(from: try RecordingReader(url: visit)) { last = fix }
        if var fix = last {
            fix.time = Date().timeIntervalSince1970   // this device's clock: the client moves it to the server's
            let id = try await client.send(PryvFacade.PositionEvent(location: fix, message: "the end of the visit"))
            print("  sent \(id)")
        }
        let today = try await client.getEvents(from: nil, to: nil, stream: "position")
        print("  events in the last 24 hours: \(today.count)")
    }
}
