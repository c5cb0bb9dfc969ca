import Whereabouts

/// The parameters of a URL's query, percent-decoded in both keys and values (`+` is a space),
/// in order. Array parameters may be written `streams[]=a&streams[]=b` or `streams=a&streams=b`.
public struct QueryParameters: Sendable {
    /// The decoded `(key, value)` pairs, in order.
    public let pairs: [(key: String, value: String)]

    /// Parses a raw query string (without the `?`).
    public init(query: String?) {
        guard let query, !query.isEmpty else { pairs = []; return }
        pairs = query.split(separator: "&", omittingEmptySubsequences: true).map { part in
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = Self.decode(pieces[0])
            let value = pieces.count > 1 ? Self.decode(pieces[1]) : ""
            return (key, value)
        }
    }

    /// The last value of `key` (with or without `[]`), if present.
    public subscript(key: String) -> String? {
        pairs.last { $0.key == key || $0.key == key + "[]" }?.value
    }

    /// Every value of `key`, whether written `key[]` or `key`.
    public func all(_ key: String) -> [String] {
        pairs.filter { $0.key == key || $0.key == key + "[]" }.map(\.value)
    }

    private static func decode(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"):
                bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next() else { bytes.append(byte); break }
                guard let low = iterator.next() else { bytes.append(contentsOf: [byte, high]); break }
                if let h = high.hexDigitValue, let l = low.hexDigitValue {
                    bytes.append(h << 4 | l)
                } else {
                    bytes.append(contentsOf: [byte, high, low])
                }
            default:
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

}
