import NIOCore
import Testing
@testable import WhereaboutsMQTT

/// The packets' bytes against MQTT 3.1.1's layouts, written out by hand.
struct MQTTPacketTests {
    private func bytes(_ packet: MQTTPacket) -> [UInt8] {
        var buffer = ByteBuffer()
        packet.write(to: &buffer)
        return Array(buffer.readableBytesView)
    }

    private func read(_ bytes: [UInt8], maximumLength: Int = 1 << 20) throws(MQTTPacket.DecodingError) -> MQTTPacket? {
        var buffer = ByteBuffer(bytes: bytes)
        return try MQTTPacket.read(from: &buffer, maximumLength: maximumLength)
    }

    @Test func connectWithUserNameAndPassword() throws {
        let connect = MQTTPacket.connect(.init(clientId: "c", cleanSession: true, keepAliveSeconds: 30,
                                               userName: "u", password: Array("p".utf8), will: nil))
        // Flags: clean session 0x02, password 0x40, user name 0x80; keep-alive 30 = 0x001E.
        #expect(bytes(connect) == [0x10, 0x13, 0x00, 0x04, 0x4D, 0x51, 0x54, 0x54, 0x04, 0xC2, 0x00, 0x1E,
                                   0x00, 0x01, 0x63, 0x00, 0x01, 0x75, 0x00, 0x01, 0x70])
        #expect(try read(bytes(connect)) == connect)
    }

    @Test func connectWithARetainedWillAtQoS1() throws {
        let will = MQTTMessage(topic: "w", payload: "x", qos: .atLeastOnce, retain: true)
        let connect = MQTTPacket.connect(.init(clientId: "c", cleanSession: true, keepAliveSeconds: 5,
                                               userName: nil, password: nil, will: will))
        // Flags: clean session 0x02, will 0x04, will QoS 1 << 3 = 0x08, will retain 0x20.
        #expect(bytes(connect) == [0x10, 0x13, 0x00, 0x04, 0x4D, 0x51, 0x54, 0x54, 0x04, 0x2E, 0x00, 0x05,
                                   0x00, 0x01, 0x63, 0x00, 0x01, 0x77, 0x00, 0x01, 0x78])
        #expect(try read(bytes(connect)) == connect)
    }

    @Test func publishAtQoS1Retained() throws {
        let publish = MQTTPacket.publish(.init(message: MQTTMessage(topic: "a/b", payload: "hi", qos: .atLeastOnce, retain: true),
                                               packetId: 10, duplicate: false))
        #expect(bytes(publish) == [0x33, 0x09, 0x00, 0x03, 0x61, 0x2F, 0x62, 0x00, 0x0A, 0x68, 0x69])
        if case .publish(let fields) = publish { #expect(MQTTPacket.publishLength(of: fields.message) == 11) }
        #expect(try read(bytes(publish)) == publish)
        var again = publish
        if case .publish(var fields) = publish { fields.duplicate = true; again = .publish(fields) }
        #expect(bytes(again).first == 0x3B)
    }

    @Test func aRemainingLengthOf321TakesTwoBytes() throws {
        // 321 = 2 × 128 + 65: 65 with the continuation bit (0xC1), then 2.
        let publish = MQTTPacket.publish(.init(message: MQTTMessage(topic: "t", payload: [UInt8](repeating: 7, count: 318)),
                                               packetId: nil, duplicate: false))
        let written = bytes(publish)
        #expect(Array(written.prefix(3)) == [0x30, 0xC1, 0x02])
        #expect(written.count == 3 + 321)
        if case .publish(let fields) = publish { #expect(MQTTPacket.publishLength(of: fields.message) == written.count) }
        #expect(try read(written) == publish)
    }

    @Test func subscribeAndItsAcknowledgement() throws {
        let subscribe = MQTTPacket.subscribe(packetId: 1, filters: [.init(filter: "a/+", qos: .atLeastOnce), .init(filter: "#", qos: .atMostOnce)])
        #expect(bytes(subscribe) == [0x82, 0x0C, 0x00, 0x01, 0x00, 0x03, 0x61, 0x2F, 0x2B, 0x01, 0x00, 0x01, 0x23, 0x00])
        #expect(try read([0x90, 0x04, 0x00, 0x01, 0x01, 0x80]) == .subscribeAcknowledgement(packetId: 1, returnCodes: [1, 0x80]))
        #expect(try read([0x20, 0x02, 0x00, 0x05]) == .connectionAcknowledgement(sessionPresent: false, returnCode: 5))
        #expect(try read([0xD0, 0x00]) == .pingResponse)
        #expect(bytes(.pingRequest) == [0xC0, 0x00])
        #expect(bytes(.disconnect) == [0xE0, 0x00])
        #expect(bytes(.publishAcknowledgement(packetId: 258)) == [0x40, 0x02, 0x01, 0x02])
    }

    @Test func anIncompletePacketIsLeftWhereItIs() throws {
        var buffer = ByteBuffer(bytes: [0x33, 0x09, 0x00, 0x03, 0x61])
        #expect(try MQTTPacket.read(from: &buffer, maximumLength: 100) == nil)
        #expect(buffer.readableBytes == 5)
        var empty = ByteBuffer()
        #expect(try MQTTPacket.read(from: &empty, maximumLength: 100) == nil)
    }

    @Test(arguments: [
        ([UInt8]([0x36, 0x05, 0x00, 0x01, 0x74, 0x00, 0x01]), "QoS 3"),
        ([0x34, 0x05, 0x00, 0x01, 0x74, 0x00, 0x01], "QoS 2"),
        ([0x42, 0x02, 0x00, 0x01], "reserved flags"),
        ([0x80, 0x06, 0x00, 0x01, 0x00, 0x01, 0x61, 0x00], "reserved flags 0, not 2"),
        ([0x00, 0x00], "reserved"),
        ([0x50, 0x02, 0x00, 0x01], "QoS 2 packet"),
        ([0x31, 0x05, 0x00, 0x03, 0x61, 0x2F, 0x23], "wildcards"),
        ([0x30, 0x05, 0x00, 0x03, 0x61, 0xFF, 0x62], "not UTF-8"),
        ([0x30, 0x05, 0x00, 0x09, 0x61, 0x2F, 0x62], "ends inside a string"),
        ([0x32, 0x05, 0x00, 0x01, 0x61, 0x00, 0x00], "packet id 0"),
        ([0x20, 0x03, 0x00, 0x00, 0x00], "too many"),
        ([0x90, 0x03, 0x00, 0x01, 0x03], "return codes"),
        ([0x30, 0x80, 0x80, 0x80, 0x80, 0x01], "more than four bytes"),
    ])
    func malformedPacketsAreRefusedWithWhy(bytes: [UInt8], reason: String) {
        do throws(MQTTPacket.DecodingError) {
            let packet = try read(bytes)
            Issue.record("\(bytes) decoded as \(String(describing: packet))")
        } catch {
            #expect(error.description.contains(reason), "\(error.description)")
        }
    }

    @Test func anOversizedPacketIsRefusedFromItsHeaderAlone() throws {
        // The first five bytes say 268,435,455 bytes follow: refused before any of them come.
        var buffer = ByteBuffer(bytes: [0x30, 0xFF, 0xFF, 0xFF, 0x7F])
        #expect(throws: MQTTPacket.DecodingError.self) { try MQTTPacket.read(from: &buffer, maximumLength: 1_024) }
        var small = ByteBuffer(bytes: [0x30, 0x80, 0x08])   // 1,024 bytes follow: 1,027 in all
        #expect(throws: MQTTPacket.DecodingError.self) { try MQTTPacket.read(from: &small, maximumLength: 1_026) }
        var fits = ByteBuffer(bytes: [0x30, 0x80, 0x08])
        #expect(try MQTTPacket.read(from: &fits, maximumLength: 1_027) == nil)
    }
}

struct MQTTTopicTests {
    @Test(arguments: [
        ("espresense/devices/+/+", "espresense/devices/keys/kitchen", true),
        ("espresense/devices/+/+", "espresense/devices/keys", false),
        ("espresense/devices/+/+", "espresense/devices/keys/kitchen/x", false),
        ("espresense/#", "espresense", true),
        ("espresense/#", "espresense/rooms/kitchen/status", true),
        ("#", "a/b", true),
        ("#", "$SYS/broker/uptime", false),
        ("+/status", "$SYS/status", false),
        ("$SYS/#", "$SYS/broker/uptime", true),
        ("a/+/c", "a//c", true),
        ("a/b", "a/b/", false),
        ("+", "/", false),
        ("+/+", "/", true),
    ])
    func filtersMatchAsTheSpecificationSays(filter: String, topic: String, matches: Bool) {
        #expect(MQTTTopic.filter(filter, matches: topic) == matches)
    }

    @Test func invalidFiltersAndNamesSayWhy() {
        #expect(MQTTTopic.problem(withFilter: "a/b#") != nil)
        #expect(MQTTTopic.problem(withFilter: "#/a") != nil)
        #expect(MQTTTopic.problem(withFilter: "a/b+/c") != nil)
        #expect(MQTTTopic.problem(withFilter: "") != nil)
        #expect(MQTTTopic.problem(withFilter: "a/+/#") == nil)
        #expect(MQTTTopic.problem(withName: "a/+") != nil)
        #expect(MQTTTopic.problem(withName: "a\u{0}b") != nil)
        #expect(MQTTTopic.problem(withName: String(repeating: "a", count: 65_536)) != nil)
        #expect(MQTTTopic.problem(withName: "espresense/companion/keys") == nil)
    }
}

struct MQTTConfigurationTests {
    @Test func aURLGivesTheBrokerAndTheCredentials() throws {
        let plain = try MQTTConfiguration(url: "mqtt://ha:p%40ss@192.168.1.10?clientId=attic")
        #expect(plain.host == "192.168.1.10")
        #expect(plain.port == 1883)
        #expect(plain.userName == "ha")
        #expect(plain.password == "p@ss")
        #expect(plain.clientId == "attic")
        #expect(plain.tls == nil)
        #expect(plain.brokerDescription == "mqtt://192.168.1.10:1883")
        let secure = try MQTTConfiguration(url: "mqtts://broker.lan")
        #expect(secure.port == 8883)
        #expect(secure.tls != nil)
        #expect(secure.brokerDescription == "mqtts://broker.lan:8883")
        #expect(try MQTTConfiguration(url: "mqtt://broker:1884").port == 1884)
    }

    @Test(arguments: ["http://broker", "broker.lan", "mqtt://", "mqtt://broker:0", "mqtt://broker/topic", "mqtt://b?clientId="])
    func whatIsNotABrokersURLIsRefusedWithWhy(url: String) {
        #expect(throws: MQTTConfiguration.URLError.self) { try MQTTConfiguration(url: url) }
    }

    @Test func aCertificateAuthorityNeedsTLSAndAReadableFile() {
        #expect(throws: MQTTConfiguration.URLError.self) { try MQTTConfiguration(url: "mqtt://b", caFile: "/etc/hostname") }
        #expect(throws: MQTTConfiguration.URLError.self) { try MQTTConfiguration(url: "mqtts://b", caFile: "/nonexistent/ca.pem") }
    }
}
