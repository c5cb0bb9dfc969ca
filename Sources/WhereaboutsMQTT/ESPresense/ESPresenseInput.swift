import Foundation
import Whereabouts
import WhereaboutsBluetooth

/// ESPresense's messages as receiver reports (FORMATS.md §8): what an ESPresense node publishes
/// on `espresense/devices/<tag id>/<room>`, and the bare Home Assistant `mqtt_room` form
/// (`{"id", "name", "distance"}` on `<topic>/<room>`), each become one report of the receiver the
/// room names, with one reading of the tag.
///
/// - The topic's last level is the room, which names the receiver: the venue's receiver of that
///   id, or the one ``receiverNames`` maps it to.
/// - The payload's `id` is the tag: `iBeacon:<uuid>-<major>-<minor>` becomes that iBeacon identity
///   (so a venue's `Venue.Tag` names it); `irk:<key>` (a node that resolves a phone's addresses
///   itself) the tag of that key in the ``tagResolver``, in either byte order; any other id, when
///   the payload's `mac` is a resolvable private address one of the resolver's keys made, that
///   key's tag; else the id as it is (an enrolled alias). Without `id`, the topic's level before
///   the room is taken.
/// - `rssi` is the reading's RSSI and `rssi@1m` its reference power; a message with a `distance`
///   and no `rssi` (`mqtt_room`) gets the RSSI that ESPresense's own model gives that distance:
///   `rssi@1m − 10 · 2.7 · log₁₀(distance)`, with −59 dBm at 1 m when it gives none (ESPresense's
///   defaults), and the distance as the reading's range.
///
/// ```swift
/// let input = ESPresenseInput(receiverNames: ["living_room": "node-1"])
/// let message = MQTTMessage(topic: "espresense/devices/iBeacon:e2c56db5-dffb-48d2-b060-d0f5a71096e0-1-2/living_room",
///                           payload: #"{"id":"iBeacon:e2c56db5-dffb-48d2-b060-d0f5a71096e0-1-2","rssi":-71,"rssi@1m":-59}"#)
/// let report = try input.report(from: message, arrival: Date().timeIntervalSince1970)
/// // report.device == "node-1", one reading of iBeacon E2C56DB5…/1/2 at −71 dBm
/// ```
public struct ESPresenseInput: Sendable {
    /// The filter ESPresense nodes' messages come on.
    public static let defaultFilter = "espresense/devices/+/+"
    /// The longest payload read, in bytes (a node's message is a few hundred).
    public static let maximumPayloadLength = 16_384
    /// The longest tag id or room name taken, in bytes.
    public static let maximumNameLength = 256
    /// ESPresense's path-loss exponent ("absorption"), for distances given without an RSSI.
    public static let absorption = 2.7
    /// ESPresense's reference RSSI at 1 m, for distances given without one.
    public static let referenceRSSI = -59.0

    /// Receivers' ids by the room name their node publishes, where the two differ.
    public var receiverNames: [String: String]
    /// Names phones by their identity resolving keys: from an `irk:` id, or from the `mac` of a
    /// message whose id is no tag's.
    public var tagResolver: TagResolver?

    /// An input that maps `receiverNames`' rooms to receivers (others are taken as they are) and
    /// names phones by `tagResolver`'s keys.
    public init(receiverNames: [String: String] = [:], tagResolver: TagResolver? = nil) {
        self.receiverNames = receiverNames
        self.tagResolver = tagResolver
    }

    /// Why a message is not a report.
    public struct Refusal: Error, CustomStringConvertible, Sendable, Equatable {
        /// What is wrong with it.
        public var description: String
        init(_ description: String) { self.description = description }
    }

    /// The report `message` makes, stamped with `arrival` (seconds since 1970) as both its time
    /// and its arrival — ESPresense's messages carry no time of their own.
    public func report(from message: MQTTMessage, arrival: Double) throws(Refusal) -> Scan {
        let levels = message.topic.split(separator: "/", omittingEmptySubsequences: false)
        guard let room = levels.last, !room.isEmpty, room.utf8.count <= Self.maximumNameLength else {
            throw Refusal("the topic \(message.topic.prefix(200)) ends without a room of 1 to \(Self.maximumNameLength) bytes")
        }
        guard message.payload.count <= Self.maximumPayloadLength else {
            throw Refusal("its payload of \(message.payload.count) bytes is longer than \(Self.maximumPayloadLength)")
        }
        let json: JSONValue
        do { json = try JSONParser.parse(message.payload) } catch {
            throw Refusal("its payload is not JSON: \(error)")
        }
        guard case .object = json else { throw Refusal("its payload is \(json.kindDescription), not an object") }
        let id: String
        switch json["id"] {
        case .string(let value): id = value
        case nil where levels.count >= 2: id = String(levels[levels.count - 2])
        default: throw Refusal("its \"id\" is not a string")
        }
        guard !id.isEmpty, id.utf8.count <= Self.maximumNameLength else {
            throw Refusal("its tag id must be 1 to \(Self.maximumNameLength) bytes")
        }
        let referencePower = try number(json, "rssi@1m", in: -127...20)
        var rssi = try number(json, "rssi", in: -127...(-0.001))
        let distance = try number(json, "distance", in: 0...1_000)
        if rssi == nil, let distance {
            rssi = (referencePower ?? Self.referenceRSSI) - 10 * Self.absorption * log10(max(distance, 0.01))
        }
        guard let rssi else { throw Refusal("it has neither \"rssi\" nor \"distance\"") }
        let reading = Reading(beacon: tag(forId: id, mac: json["mac"]), rssi: rssi, txPower: referencePower, distance: distance)
        var scan = Scan(time: arrival, device: receiverNames[String(room)] ?? String(room), readings: [reading])
        scan.arrival = arrival
        return scan
    }

    /// The tag of a message: its id's, or the one `tagResolver` names by an `irk:` id or by the
    /// resolvable private address in `mac`.
    private func tag(forId id: String, mac: JSONValue?) -> BeaconReference {
        let named = Self.tag(forId: id)
        guard case .id = named, let tagResolver, !tagResolver.isEmpty else { return named }
        if id.utf8.count == 36, id.lowercased().hasPrefix("irk:"), let key = TagsFile.identityResolvingKey(hex: String(id.dropFirst(4))) {
            if let tag = tagResolver.tag(forKey: key) ?? tagResolver.tag(forKey: key.reversed()) { return .id(tag) }
        }
        if case .string(let text) = mac, let address = BluetoothAddress(text), let tag = tagResolver.tag(for: address) {
            return .id(tag)
        }
        return named
    }

    /// The tag an ESPresense id names: `iBeacon:<uuid>-<major>-<minor>` an iBeacon identity,
    /// `eddystone:<namespace>-<instance>` an Eddystone one, anything else the id itself.
    public static func tag(forId id: String) -> BeaconReference {
        if id.lowercased().hasPrefix("eddystone:") {
            let parts = id.dropFirst("eddystone:".count).split(separator: "-")
            if parts.count == 2, let identity = EddystoneIdentity(namespace: String(parts[0]), instance: String(parts[1])) {
                return .eddystone(identity)
            }
        }
        if id.lowercased().hasPrefix("ibeacon:") {
            let rest = id.dropFirst("ibeacon:".count)
            let parts = rest.split(separator: "-")
            // A UUID has five groups; major and minor follow.
            if parts.count == 7, let uuid = UUID(uuidString: parts[0..<5].joined(separator: "-")),
               let major = UInt16(parts[5]), let minor = UInt16(parts[6]) {
                return .iBeacon(IBeaconIdentity(uuid: uuid, major: major, minor: minor))
            }
        }
        return .id(id)
    }

    private func number(_ json: JSONValue, _ key: String, in range: ClosedRange<Double>) throws(Refusal) -> Double? {
        switch json[key] {
        case nil, .null: return nil
        case .number(let value) where value.isFinite && range.contains(value): return value
        case .number(let value): throw Refusal("its \"\(key)\" of \(value) is outside \(range.lowerBound)…\(range.upperBound)")
        case let other?: throw Refusal("its \"\(key)\" is \(other.kindDescription), not a number")
        }
    }
}
