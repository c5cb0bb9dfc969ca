import Foundation

/// How a reading names the beacon it heard: by the venue's own id, by an iBeacon/AltBeacon
/// identity, or by an Eddystone-UID identity.
///
/// Recordings from datasets usually carry venue ids (`{"beacon": "23"}`); raw recordings carry
/// the advertised identity (`{"uuid": "E2C5…", "major": 1, "minor": 23}`), which a ``Venue``
/// resolves to its beacon with ``Venue/beaconIndex(for:)``.
public enum BeaconReference: Hashable, Sendable {
    /// The venue's `beacons[].id`.
    case id(String)
    /// An iBeacon or AltBeacon identity: proximity UUID, major and minor.
    case iBeacon(IBeaconIdentity)
    /// An Eddystone-UID identity.
    case eddystone(EddystoneIdentity)
}

/// The identity an iBeacon (or AltBeacon) advertises: a proximity UUID, a major and a minor.
public struct IBeaconIdentity: Hashable, Sendable, CustomStringConvertible {
    /// The proximity UUID.
    public var uuid: UUID
    /// The major value, 0…65535.
    public var major: UInt16
    /// The minor value, 0…65535.
    public var minor: UInt16

    /// Creates an identity from its three parts.
    public init(uuid: UUID, major: UInt16, minor: UInt16) {
        self.uuid = uuid
        self.major = major
        self.minor = minor
    }

    /// `UUID_Maj:major_Min:minor`, the form Bluenet Localization uses as an id string.
    public var description: String { "\(uuid.uuidString)_Maj:\(major)_Min:\(minor)" }
}

/// The identity an Eddystone-UID frame advertises: a 10-byte namespace and a 6-byte instance,
/// written as lower-case hexadecimal.
public struct EddystoneIdentity: Hashable, Sendable, CustomStringConvertible {
    /// The namespace as 20 lower-case hexadecimal digits.
    public let namespace: String
    /// The instance as 12 lower-case hexadecimal digits.
    public let instance: String

    /// Creates an identity from hexadecimal strings, or `nil` when either is not hexadecimal of
    /// the right length (20 and 12 digits). Upper-case digits are accepted and lower-cased.
    public init?(namespace: String, instance: String) {
        guard namespace.utf8.count == 20, instance.utf8.count == 12,
              namespace.utf8.allSatisfy({ $0.hexDigitValue != nil }),
              instance.utf8.allSatisfy({ $0.hexDigitValue != nil })
        else { return nil }
        self.namespace = namespace.lowercased()
        self.instance = instance.lowercased()
    }

    /// Creates an identity from strings already known to be 20 and 12 lower-case hexadecimal digits.
    init(uncheckedNamespace namespace: String, instance: String) {
        self.namespace = namespace
        self.instance = instance
    }

    /// Creates an identity from its raw bytes (10 of namespace, 6 of instance), or `nil` for other lengths.
    public init?<N: Collection<UInt8>, I: Collection<UInt8>>(namespaceBytes: N, instanceBytes: I) {
        guard namespaceBytes.count == 10, instanceBytes.count == 6 else { return nil }
        self.namespace = namespaceBytes.hexString
        self.instance = instanceBytes.hexString
    }

    /// The namespace's 10 bytes.
    public var namespaceBytes: [UInt8] { namespace.hexBytes }
    /// The instance's 6 bytes.
    public var instanceBytes: [UInt8] { instance.hexBytes }

    /// `namespace/instance` in hexadecimal.
    public var description: String { "\(namespace)/\(instance)" }
}

extension Collection<UInt8> {
    var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(count * 2)
        for byte in self {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension String {
    /// The bytes of a string of hexadecimal digit pairs (validated by the caller).
    var hexBytes: [UInt8] {
        let u = Array(utf8)
        return stride(from: 0, to: u.count - 1, by: 2).map { index in
            (u[index].hexDigitValue ?? 0) << 4 | (u[index + 1].hexDigitValue ?? 0)
        }
    }
}
