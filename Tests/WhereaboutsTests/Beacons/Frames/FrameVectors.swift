import Foundation
@testable import Whereabouts

/// Bytes from a string of hexadecimal pairs separated by white space: `"02 01 06"`.
func hexBytes(_ text: String) -> [UInt8] {
    text.split(whereSeparator: \.isWhitespace).compactMap { UInt8($0, radix: 16) }
}

/// Advertising data vectors.
///
/// iBeacon is the widely published example of Apple's layout. The others are built from the
/// layouts in the public specifications (github.com/AltBeacon/spec README, github.com/google/eddystone
/// eddystone-uid, eddystone-url, eddystone-tlm/tlm-plain.md and protocol-specification.md), which
/// give field tables rather than complete packets; the values used are the specifications' own
/// examples where they have one (Tx power 0xEE = -18 dBm, namespace 8b0ca750095477cb3e77 from
/// the elided-UUID example, URL https://goo.gl/Aq18zF).
enum FrameVectors {
    static let uuid = UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!

    /// Flags, then `1A FF 4C 00 02 15`, UUID, major 1, minor 2, measured power 0xC5 = -59 dBm.
    static let iBeacon = hexBytes("""
        02 01 06  1A FF 4C 00 02 15  E2 C5 6D B5 DF FB 48 D2 B0 60 D0 F5 A7 10 96 E0  00 01  00 02  C5
        """)

    /// Flags, then `1B FF`, company 0x0118 (Radius Networks, little-endian `18 01`), `BE AC`,
    /// beacon id 2F234454-CF6D-4A0F-ADF2-F4911BA9FFA6 / id2 1 / id3 2, reference RSSI 0xC5 = -59,
    /// reserved 0x00.
    static let altBeacon = hexBytes("""
        02 01 06  1B FF 18 01 BE AC  2F 23 44 54 CF 6D 4A 0F AD F2 F4 91 1B A9 FF A6  00 01  00 02  C5  00
        """)

    /// Flags, UUID list `03 03 AA FE`, service data `17 16 AA FE`, frame 0x00, Tx power 0xEE,
    /// namespace 8b0ca750095477cb3e77, instance 000000000001, RFU 00 00: 31 bytes.
    static let eddystoneUID = hexBytes("""
        02 01 06  03 03 AA FE  17 16 AA FE  00 EE  8B 0C A7 50 09 54 77 CB 3E 77  00 00 00 00 00 01  00 00
        """)

    /// The same UID frame without the RFU bytes (service data length 0x15), as older beacons send it.
    static let eddystoneUIDShort = hexBytes("""
        02 01 06  03 03 AA FE  15 16 AA FE  00 EE  8B 0C A7 50 09 54 77 CB 3E 77  00 00 00 00 00 01
        """)

    /// Flags, UUID list, service data `13 16 AA FE`, frame 0x10, Tx power 0xEE, scheme 0x03
    /// (https://), then "goo.gl/Aq18zF" (13 bytes, no expansion applies).
    static let eddystoneURL = hexBytes("""
        02 01 06  03 03 AA FE  13 16 AA FE  10 EE 03  67 6F 6F 2E 67 6C 2F 41 71 31 38 7A 46
        """)

    /// Flags, UUID list, service data `11 16 AA FE`, frame 0x20, version 0x00, battery 0x0BB8 =
    /// 3000 mV, temperature 0x1780 = 23 + 128/256 = 23.5 °C, PDU count 0x000003E8 = 1000,
    /// uptime 0x00002710 = 10000 tenths = 1000 s.
    static let eddystoneTLM = hexBytes("""
        02 01 06  03 03 AA FE  11 16 AA FE  20 00  0B B8  17 80  00 00 03 E8  00 00 27 10
        """)

    static let all: [[UInt8]] = [iBeacon, altBeacon, eddystoneUID, eddystoneUIDShort, eddystoneURL, eddystoneTLM]
}
