import Foundation
import Testing
import WhereaboutsBluetooth
import Whereabouts
@testable import WhereaboutsMQTT

struct ESPresenseInputTests {
    let uuid = "e2c56db5-dffb-48d2-b060-d0f5a71096e0"

    @Test func aNodesMessageIsOneReportOfTheReceiverItsRoomNames() throws {
        let input = ESPresenseInput(receiverNames: ["living_room": "node-1"])
        let message = MQTTMessage(topic: "espresense/devices/iBeacon:\(uuid)-7-1/living_room",
                                  payload: "{\"id\":\"iBeacon:\(uuid)-7-1\",\"rssi\":-71.5,\"rssi@1m\":-59,\"distance\":2.4,\"int\":1000}")
        let report = try input.report(from: message, arrival: 1_000.25)
        #expect(report.device == "node-1")
        #expect(report.time == 1_000.25)
        #expect(report.arrival == 1_000.25)
        let identity = IBeaconIdentity(uuid: try #require(UUID(uuidString: uuid)), major: 7, minor: 1)
        #expect(report.readings == [Reading(beacon: .iBeacon(identity), rssi: -71.5, txPower: -59, distance: 2.4)])
        // A room no name maps is the receiver's id as it is; a non-iBeacon id is the tag's id.
        let other = try input.report(from: MQTTMessage(topic: "espresense/devices/irk:00ff/kitchen", payload: #"{"id":"irk:00ff","rssi":-80}"#), arrival: 5)
        #expect(other.device == "kitchen")
        #expect(other.readings.first?.beacon == .id("irk:00ff"))
        #expect(other.readings.first?.txPower == nil)
    }

    @Test func theBareMqttRoomFormGetsTheRSSIOfESPresensesModel() throws {
        let message = MQTTMessage(topic: "room_presence/kitchen", payload: #"{"id":"keys","name":"Keys","distance":2}"#)
        let report = try ESPresenseInput().report(from: message, arrival: 0)
        let reading = try #require(report.readings.first)
        // −59 − 10 · 2.7 · log₁₀ 2 = −59 − 8.1277…
        #expect(abs(reading.rssi - (-67.127_72)) < 1e-4)
        #expect(reading.distance == 2)
        #expect(report.device == "kitchen")
        // Without "id", the topic's level before the room is the tag.
        let bare = try ESPresenseInput().report(from: MQTTMessage(topic: "espresense/devices/keys/hall", payload: #"{"rssi":-60}"#), arrival: 0)
        #expect(bare.readings.first?.beacon == .id("keys"))
    }

    @Test(arguments: [
        ("espresense/devices/a/b", "not json", "not JSON"),
        ("espresense/devices/a/b", "[1]", "not an object"),
        ("espresense/devices/a/b", #"{"id":"a","rssi":3}"#, "outside"),
        ("espresense/devices/a/b", #"{"id":"a","rssi":"-60"}"#, "not a number"),
        ("espresense/devices/a/b", #"{"id":"a"}"#, "neither"),
        ("espresense/devices/a/b", #"{"id":5,"rssi":-60}"#, "not a string"),
        ("espresense/devices/a/", #"{"id":"a","rssi":-60}"#, "without a room"),
        ("espresense/devices/a/b", #"{"id":"a","rssi":-60,"distance":-1}"#, "outside"),
    ])
    func whatIsNotAReportIsRefusedWithWhy(topic: String, payload: String, reason: String) {
        do throws(ESPresenseInput.Refusal) {
            let report = try ESPresenseInput().report(from: MQTTMessage(topic: topic, payload: payload), arrival: 0)
            Issue.record("taken as \(report)")
        } catch {
            #expect(error.description.contains(reason), "\(error)")
        }
    }

    /// A phone is named by its key in the tags file: from a node that resolved it itself
    /// (`irk:<key>`, in either byte order, since nodes are given keys both ways), or from the
    /// resolvable private address in `mac`; other ids stay as they are.
    @Test func phonesAreNamedByTheirKeys() throws {
        let key: [UInt8] = [0xEC, 0x02, 0x34, 0xA3, 0x57, 0xC8, 0xAD, 0x05, 0x34, 0x10, 0x10, 0xA6, 0x0A, 0x39, 0x7D, 0x9B]
        let input = ESPresenseInput(tagResolver: TagResolver(tags: [Venue.Tag(id: "anna-phone", identityResolvingKey: key)]))
        func tag(_ id: String, mac: String? = nil) throws -> BeaconReference? {
            let payload = #"{"id":"\#(id)","rssi":-70\#(mac.map { #","mac":"\#($0)""# } ?? "")}"#
            return try input.report(from: MQTTMessage(topic: "espresense/devices/\(id)/kitchen", payload: payload), arrival: 1).readings.first?.beacon
        }
        #expect(try tag("irk:ec0234a357c8ad05341010a60a397d9b") == .id("anna-phone"))
        #expect(try tag("irk:9b7d390aa610103405adc857a33402ec") == .id("anna-phone"))
        #expect(try tag("apple:1005:9-26", mac: "7081940dfbaa") == .id("anna-phone"))
        #expect(try tag("apple:1005:9-26", mac: "70:81:94:0D:FB:AA") == .id("anna-phone"))
        #expect(try tag("apple:1005:9-26", mac: "7081940dfbab") == .id("apple:1005:9-26"))
        #expect(try tag("apple:1005:9-26", mac: "not an address") == .id("apple:1005:9-26"))
        #expect(try tag("irk:00000000000000000000000000000001") == .id("irk:00000000000000000000000000000001"))
        // Without a resolver, the id as it is.
        let plain = try ESPresenseInput().report(from: MQTTMessage(topic: "espresense/devices/x/kitchen",
                                                                  payload: #"{"id":"apple:1005:9-26","mac":"7081940dfbaa","rssi":-70}"#), arrival: 1)
        #expect(plain.readings.first?.beacon == .id("apple:1005:9-26"))
    }

    @Test func aPayloadBeyondItsBoundIsRefusedUnread() {
        let long = MQTTMessage(topic: "espresense/devices/a/b", payload: [UInt8](repeating: 0x20, count: ESPresenseInput.maximumPayloadLength + 1))
        #expect(throws: ESPresenseInput.Refusal.self) { try ESPresenseInput().report(from: long, arrival: 0) }
    }

    @Test func iBeaconIdsNeedAWholeIdentity() {
        #expect(ESPresenseInput.tag(forId: "iBeacon:\(uuid)-7") == .id("iBeacon:\(uuid)-7"))
        #expect(ESPresenseInput.tag(forId: "iBeacon:\(uuid)-7-70000") == .id("iBeacon:\(uuid)-7-70000"))
    }
}

struct CompanionOutputTests {
    let venue = Venue(name: "flat", beacons: [], tags: [Venue.Tag(id: "anna")])

    @Test func attributesAreTheFixInMetresWithConfidenceFromItsRadius() throws {
        let output = CompanionOutput(venue: venue)
        let fix = Fix(time: 1_767_225_600, device: "anna", point: SpatialPoint(x: 1.234_56, y: 2, z: 0.5), floor: 1,
                      accuracy: 2.5, beacons: ["n1", "n2", "n3"], method: "test")
        let message = output.attributes(of: fix, tag: "anna")
        #expect(message.topic == "espresense/companion/anna/attributes")
        #expect(message.retain)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any])
        #expect(json["x"] as? Double == 1.235)
        #expect(json["y"] as? Double == 2)
        #expect(json["z"] as? Double == 0.5)
        #expect(json["floor"] as? Double == 1)
        #expect(json["accuracy"] as? Double == 2.5)
        #expect(json["confidence"] as? Double == 40)   // 100 ÷ 2.5 m
        #expect(json["fixes"] as? Double == 3)
        #expect(json["last_seen"] as? String == "2026-01-01T00:00:00Z")
        #expect(json["latitude"] == nil)
    }

    @Test func stateDiscoveryAndWhoIsPublished() throws {
        let output = CompanionOutput(venue: venue, baseTopic: "home/tags", discoveryPrefix: "ha")
        #expect(output.publishes("anna"))
        #expect(!output.publishes("irk:00ff"))
        #expect(CompanionOutput(venue: venue, publishesUnnamedTags: true).publishes("irk:00ff"))
        #expect(output.state(of: "anna", place: nil).text == "not_home")
        #expect(output.state(of: "anna", place: "kitchen") == MQTTMessage(topic: "home/tags/anna", payload: "kitchen", qos: .atLeastOnce, retain: true))
        #expect(CompanionOutput.objectId(of: "E2C5_Maj:1/x+#") == "E2C5_Maj_1_x__")
        #expect(output.will == MQTTMessage(topic: "home/tags/status", payload: "offline", qos: .atLeastOnce, retain: true))
        let discovery = output.discovery(of: "anna")
        #expect(discovery.map(\.topic) == ["ha/device_tracker/whereabouts_anna/config", "ha/sensor/whereabouts_anna_room/config"])
        #expect(discovery.allSatisfy { $0.retain })
        #expect(CompanionOutput(venue: venue, discoveryPrefix: nil).discovery(of: "anna").isEmpty)
    }
}

struct ESPresenseNodeTests {
    @Test func aScansReadingsAreANodesMessagesThatReadBack() throws {
        let uuid = try #require(UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"))
        let eddystone = try #require(EddystoneIdentity(namespace: "00112233445566778899", instance: "aabbccddeeff"))
        let scan = Scan(time: 3, device: "pi", readings: [
            Reading(beacon: .iBeacon(IBeaconIdentity(uuid: uuid, major: 7, minor: 1)), rssi: -66, txPower: -59),
            Reading(beacon: .eddystone(eddystone), rssi: -70.5),
            Reading(beacon: .id("a/b"), rssi: -80, distance: 3),
            Reading(beacon: .id("broken"), rssi: 4),   // not a valid RSSI: not published
        ])
        let messages = ESPresenseNode(room: "kitchen").messages(for: scan)
        #expect(messages.map(\.topic) == [
            "espresense/devices/iBeacon:e2c56db5-dffb-48d2-b060-d0f5a71096e0-7-1/kitchen",
            "espresense/devices/eddystone:00112233445566778899-aabbccddeeff/kitchen",
            "espresense/devices/a_b/kitchen",
        ])
        #expect(messages[0].text == #"{"id":"iBeacon:e2c56db5-dffb-48d2-b060-d0f5a71096e0-7-1","rssi":-66,"rssi@1m":-59}"#)
        #expect(messages[2].text == #"{"id":"a/b","rssi":-80,"distance":3}"#)
        let back = try messages.map { try ESPresenseInput().report(from: $0, arrival: 9) }
        #expect(back.map(\.device) == ["kitchen", "kitchen", "kitchen"])
        #expect(back.map { $0.readings[0] } == Array(scan.readings.prefix(3)))
    }
}
