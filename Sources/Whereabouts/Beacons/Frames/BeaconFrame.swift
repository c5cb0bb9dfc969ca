/// A beacon frame read from (or to be written as) BLE advertising data.
///
/// ```swift
/// if let frame = try Advertisement.parse(report.data), let reading = frame.reading(rssi: report.rssi) {
///     scan.readings.append(reading)
/// }
/// ```
public enum BeaconFrame: Hashable, Sendable {
    /// An Apple iBeacon frame.
    case iBeacon(IBeaconFrame)
    /// An AltBeacon frame.
    case altBeacon(AltBeaconFrame)
    /// An Eddystone-UID frame.
    case eddystoneUID(EddystoneUIDFrame)
    /// An Eddystone-URL frame.
    case eddystoneURL(EddystoneURLFrame)
    /// An unencrypted Eddystone-TLM (telemetry) frame.
    case eddystoneTLM(EddystoneTLMFrame)

    /// The frame's format.
    public var kind: BeaconFrameKind {
        switch self {
        case .iBeacon: .iBeacon
        case .altBeacon: .altBeacon
        case .eddystoneUID: .eddystoneUID
        case .eddystoneURL: .eddystoneURL
        case .eddystoneTLM: .eddystoneTLM
        }
    }

    /// The beacon the frame names: an iBeacon identity for iBeacon and AltBeacon frames (the
    /// AltBeacon id read as UUID, major, minor), an Eddystone identity for UID frames, and `nil`
    /// for URL and TLM frames, which name no beacon.
    public var reference: BeaconReference? {
        switch self {
        case .iBeacon(let frame): .iBeacon(frame.identity)
        case .altBeacon(let frame): .iBeacon(frame.identity)
        case .eddystoneUID(let frame): .eddystone(frame.identity)
        case .eddystoneURL, .eddystoneTLM: nil
        }
    }

    /// The RSSI expected at 1 m from the beacon, in dBm, when the frame carries one.
    ///
    /// iBeacon and AltBeacon frames carry it directly. Eddystone-UID and -URL frames carry the
    /// power at 0 m; this is that value minus 41 dB, the loss over the first metre that the
    /// Eddystone specification assumes. TLM frames carry none.
    public var measuredPower: Int? {
        switch self {
        case .iBeacon(let frame): Int(frame.measuredPower)
        case .altBeacon(let frame): Int(frame.referenceRSSI)
        case .eddystoneUID(let frame): frame.measuredPower
        case .eddystoneURL(let frame): frame.measuredPower
        case .eddystoneTLM: nil
        }
    }

    /// A reading of this frame heard at `rssi` dBm, with its ``measuredPower`` as the reading's
    /// `txPower`; `nil` for frames that name no beacon (URL, TLM).
    public func reading(rssi: Double) -> Reading? {
        guard let reference else { return nil }
        return Reading(beacon: reference, rssi: rssi, txPower: measuredPower.map(Double.init))
    }

    /// Complete advertising data for the frame, starting with the flags structure `02 01 06`.
    ///
    /// - Throws: ``FrameEncodingError`` for an Eddystone-URL frame whose URL cannot be encoded;
    ///   other frames always encode.
    public func encoded() throws(FrameEncodingError) -> [UInt8] {
        switch self {
        case .iBeacon(let frame): frame.encoded()
        case .altBeacon(let frame): frame.encoded()
        case .eddystoneUID(let frame): frame.encoded()
        case .eddystoneURL(let frame): try frame.encoded()
        case .eddystoneTLM(let frame): frame.encoded()
        }
    }
}
