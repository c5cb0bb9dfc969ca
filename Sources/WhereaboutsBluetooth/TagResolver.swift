import Foundation
import Whereabouts

/// Names the tags that advertise from resolvable private addresses — phones, mostly, whose
/// address changes every ~15 minutes — by the identity resolving keys a tags file gives them
/// (`Venue.Tag.identityResolvingKey`).
///
/// Shared by a scanner's decoder and an MQTT input, it may be used from any task: it remembers
/// each address's answer (an ``AddressResolver`` under a lock), so a new address costs one AES
/// block per key once and an address already seen a look-up.
///
/// ```swift
/// let resolver = TagResolver(tags: try TagsFile.read(from: tagsURL))
/// let decoder = SightingDecoder(tagResolver: resolver)   // readings of "anna-phone" from her iPhone
/// ```
public final class TagResolver: @unchecked Sendable {
    private let lock = NSLock()
    private var resolver: AddressResolver
    private let tagsByKey: [[UInt8]: String]

    /// A resolver of the tags that have an identity resolving key (others are left out).
    public init(tags: [Venue.Tag]) {
        var keys: [String: IdentityResolvingKey] = [:]
        var tagsByKey: [[UInt8]: String] = [:]
        for tag in tags {
            guard let bytes = tag.identityResolvingKey, let key = IdentityResolvingKey(bytes: bytes) else { continue }
            keys[tag.id] = key
            tagsByKey[bytes] = tag.id
        }
        resolver = AddressResolver(keys: keys)
        self.tagsByKey = tagsByKey
    }

    /// Whether no tag has a key (nothing can resolve).
    public var isEmpty: Bool { tagsByKey.isEmpty }

    /// The tag whose key made `address`, or `nil` (an address that is not a resolvable private
    /// one, or that no key made).
    public func tag(for address: BluetoothAddress) -> String? {
        guard !tagsByKey.isEmpty else { return nil }
        return lock.withLock { resolver.device(for: address) }
    }

    /// The tag whose key is `key` (16 bytes, most significant first), or `nil`.
    public func tag(forKey key: [UInt8]) -> String? { tagsByKey[key] }
}
