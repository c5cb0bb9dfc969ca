import Foundation

extension IBeaconIdentity {
    /// The identity named by a JSON object's `"uuid"`, `"major"` and `"minor"` members, as venue
    /// files, recordings and place models write it; `nil` when the object has none of the three.
    /// An error, naming the path, when only some are given or one is out of range.
    static func decode(_ item: JSONReader) throws(FormatError) -> IBeaconIdentity? {
        let uuidReader = item.member("uuid"), majorReader = item.member("major"), minorReader = item.member("minor")
        guard uuidReader != nil || majorReader != nil || minorReader != nil else { return nil }
        guard let uuidReader, let majorReader, let minorReader else {
            throw item.fail("\"uuid\", \"major\" and \"minor\" must be given together")
        }
        let text = try uuidReader.string()
        guard let uuid = UUID(uuidString: text) else { throw uuidReader.fail("\"\(text)\" is not a UUID") }
        let major = try majorReader.int(), minor = try minorReader.int()
        guard (0...65535).contains(major) else { throw majorReader.fail("must lie in 0...65535, found \(major)") }
        guard (0...65535).contains(minor) else { throw minorReader.fail("must lie in 0...65535, found \(minor)") }
        return IBeaconIdentity(uuid: uuid, major: UInt16(major), minor: UInt16(minor))
    }
}

extension EddystoneIdentity {
    /// The identity named by a JSON object's `"namespace"` and `"instance"` members, as venue
    /// files and recordings write it; `nil` when the object has neither. An error, naming the
    /// path, when only one is given or they are not 20 and 12 hexadecimal digits.
    static func decode(_ item: JSONReader) throws(FormatError) -> EddystoneIdentity? {
        let namespaceReader = item.member("namespace"), instanceReader = item.member("instance")
        guard namespaceReader != nil || instanceReader != nil else { return nil }
        guard let namespaceReader, let instanceReader else {
            throw item.fail("\"namespace\" and \"instance\" must be given together")
        }
        let namespace = try namespaceReader.string(), instance = try instanceReader.string()
        guard let identity = EddystoneIdentity(namespace: namespace, instance: instance) else {
            throw namespaceReader.fail("namespace must be 20 and instance 12 hexadecimal digits")
        }
        return identity
    }
}
