import Foundation
import Testing
import Whereabouts

/// The README's library examples, so that they keep compiling and doing what they say.
@Suite struct ReadmeExampleTests {
    static let examples = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Examples")

    @Test func signalLayerOverTheBundledRecording() throws {
        let venue = try VenueFile.read(from: Self.examples.appendingPathComponent("venue.json"))
        let directory = BeaconDirectory(venue)
        var filters = RSSIFilterBank<Int, KalmanRSSIFilter>(prototype: KalmanRSSIFilter())
        let model = LogDistancePathLossModel()

        let reader = try RecordingReader(url: Self.examples.appendingPathComponent("visit.jsonl"))
        var ranges = 0
        while let scan = try reader.next() {
            for reading in scan.readings {
                guard let index = directory.index(for: reading.beacon) else { continue }
                let rssi = filters.add(rssi: reading.rssi, for: index, at: scan.time) ?? reading.rssi
                let range = model.range(rssi: rssi, txPower: venue.defaults.txPower, rssiStandardDeviation: 3)
                if let range, Proximity(range) != .unknown, range.distance > 0 { ranges += 1 }
            }
        }
        #expect(ranges == reader.readingsRead)
    }

    @Test func scanPipelineOverTheBundledRecording() async throws {
        let venue = try VenueFile.read(from: Self.examples.appendingPathComponent("venue.json"))
        let setup = PositioningAlgorithm.default.setup(venue: venue)
        var pipeline = ScanPipeline(setup: setup, places: .containment(PlaceContainment(venue: venue)),
                                    monitor: MonitorPipeline(venue: venue))
        var topics: [String] = []
        for try await scan in try RecordingReader(url: Self.examples.appendingPathComponent("visit.jsonl")) {
            for item in await pipeline.process(scan) { topics.append(item.event.topic) }
        }
        for item in await pipeline.finish() { topics.append(item.event.topic) }
        // The visitor enters the campus region first and leaves it last, entering and leaving halls between.
        #expect(topics.first == "enterRegion" && topics.last(where: { $0 != "iBeaconAdvertisement" }) == "exitRegion")
        let enters = topics.filter { $0 == "enterLocation" }.count
        #expect(enters > 0 && enters == topics.filter { $0 == "exitLocation" }.count)
    }

    @Test func parsingAnIBeaconAdvertisement() throws {
        let bytes: [UInt8] = [0x02, 0x01, 0x06, 0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15,
                              0xE2, 0xC5, 0x6D, 0xB5, 0xDF, 0xFB, 0x48, 0xD2, 0xB0, 0x60, 0xD0, 0xF5, 0xA7, 0x10, 0x96, 0xE0,
                              0x00, 0x01, 0x00, 0x02, 0xC5]
        let frame = try #require(try Advertisement.parse(bytes))
        let uuid = try #require(UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"))
        #expect(frame.reference == .iBeacon(IBeaconIdentity(uuid: uuid, major: 1, minor: 2)))
        #expect(frame.measuredPower == -59)
    }
}
