import Foundation

extension [UInt8] {
    /// Appends a UUID's 16 bytes, then major and minor big-endian.
    mutating func appendIdentity(_ identity: IBeaconIdentity) {
        Swift.withUnsafeBytes(of: identity.uuid.uuid) { append(contentsOf: $0) }
        appendBigEndian(identity.major)
        appendBigEndian(identity.minor)
    }

    mutating func appendBigEndian(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }

    mutating func appendBigEndian(_ value: UInt32) {
        appendBigEndian(UInt16(truncatingIfNeeded: value >> 16))
        appendBigEndian(UInt16(truncatingIfNeeded: value))
    }
}
