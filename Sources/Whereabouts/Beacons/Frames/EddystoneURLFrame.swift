/// An Eddystone-URL advertisement: a compressed `http`/`https` URL and the Tx power at 0 m.
///
/// The URL is sent as a scheme prefix byte (`http://www.`, `https://www.`, `http://`, `https://`)
/// and at most 17 bytes in which codes `0x00`…`0x0D` stand for `.com/`, `.org/`, … `.gov`.
/// ``encoded()`` picks the shortest encoding and throws when even that does not fit.
///
/// ```swift
/// let frame = EddystoneURLFrame(url: "https://goo.gl/Aq18zF", txPower: -18)
/// let bytes = try frame.encoded()
/// // … 10 EE 03 67 6F 6F 2E 67 6C 2F 41 71 31 38 7A 46
/// ```
public struct EddystoneURLFrame: Hashable, Sendable {
    /// The URL, as decoded (scheme and expansions written out, scheme in lower case).
    public var url: String
    /// The calibrated Tx power at 0 m from the beacon, in dBm.
    public var txPower: Int8

    /// Creates a frame. The URL is checked when the frame is encoded.
    public init(url: String, txPower: Int8) {
        self.url = url
        self.txPower = txPower
    }

    /// The RSSI expected at 1 m, in dBm: ``txPower`` (at 0 m) minus 41 dB, the loss over the first
    /// metre that the Eddystone specification assumes.
    public var measuredPower: Int { Int(txPower) - 41 }

    /// Complete advertising data: flags (`02 01 06`), the service UUID list (`03 03 AA FE`) and
    /// the URL service data; at most 31 bytes.
    ///
    /// - Throws: ``FrameEncodingError`` when the URL is not `http`/`https`, holds a character
    ///   other than graphic US-ASCII, or needs more than 17 bytes after its scheme.
    public func encoded() throws(FrameEncodingError) -> [UInt8] {
        let compressed = try Self.encodeURL(url)
        var bytes = Advertisement.eddystoneHeader(frameLength: 2 + compressed.count)
        bytes.append(0x10)
        bytes.append(UInt8(bitPattern: txPower))
        bytes += compressed
        return bytes
    }

    /// The longest encoded URL (after the scheme prefix byte) an Eddystone-URL frame carries.
    public static let maximumEncodedLength = 17

    static let schemes: [[UInt8]] = ["http://www.", "https://www.", "http://", "https://"].map { Array($0.utf8) }
    static let expansions: [[UInt8]] = [".com/", ".org/", ".edu/", ".net/", ".info/", ".biz/", ".gov/",
                                        ".com", ".org", ".edu", ".net", ".info", ".biz", ".gov"].map { Array($0.utf8) }

    /// The shortest Eddystone-URL encoding of `url`: the scheme prefix byte, then at most 17 bytes.
    ///
    /// The scheme and `www.` prefix are matched without regard to case; expansions such as
    /// `.com/` are matched exactly.
    ///
    /// ```swift
    /// try EddystoneURLFrame.encodeURL("http://www.example.com/")  // [0x00, e x a m p l e, 0x00]
    /// ```
    public static func encodeURL(_ url: String) throws(FrameEncodingError) -> [UInt8] {
        let text = Array(url.utf8)
        var best: [UInt8]?
        for (code, scheme) in schemes.enumerated() where text.count >= scheme.count {
            guard zip(scheme, text).allSatisfy({ $0 == lowercased($1) }) else { continue }
            var candidate: [UInt8] = [UInt8(code)]
            candidate += try shortestBody(text, from: scheme.count, url: url)
            if best.map({ candidate.count < $0.count }) ?? true { best = candidate }
        }
        guard let best else { throw .unsupportedURLScheme(url) }
        guard best.count - 1 <= maximumEncodedLength else {
            throw .urlTooLong(url, encodedLength: best.count - 1, maximum: maximumEncodedLength)
        }
        return best
    }

    /// The URL that `bytes` (a scheme prefix byte, then encoded URL bytes) stand for.
    ///
    /// - Throws: ``AdvertisementError/invalidURLScheme(offset:value:)`` or
    ///   ``AdvertisementError/invalidURLByte(offset:value:)``, with offsets counted from the
    ///   first of `bytes`; ``AdvertisementError/invalidFrameLength(_:offset:length:)`` when
    ///   `bytes` is empty.
    public static func decodeURL(_ bytes: some Collection<UInt8>) throws(AdvertisementError) -> String {
        let array = Array(bytes)
        let result: Result<String, AdvertisementError> = array.withUnsafeBytes { buffer in
            guard !buffer.isEmpty else { return .failure(.invalidFrameLength(.eddystoneURL, offset: 0, length: 0)) }
            return Result { () throws(AdvertisementError) in try decodeURL(in: buffer, at: 0, count: buffer.count) }
        }
        return try result.get()
    }

    /// Decodes the scheme byte at `start` and the `count - 1` URL bytes after it.
    static func decodeURL(in buffer: UnsafeRawBufferPointer, at start: Int, count: Int) throws(AdvertisementError) -> String {
        let schemeCode = buffer[start]
        guard Int(schemeCode) < schemes.count else { throw .invalidURLScheme(offset: start, value: schemeCode) }
        var text = schemes[Int(schemeCode)]
        for offset in (start + 1)..<(start + count) {
            let byte = buffer[offset]
            if Int(byte) < expansions.count {
                text += expansions[Int(byte)]
            } else if (0x21...0x7E).contains(byte) {
                text.append(byte)
            } else {
                throw .invalidURLByte(offset: offset, value: byte)
            }
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The fewest bytes that encode `text[start...]`, by dynamic programming over the positions:
    /// each position is either one literal byte or one expansion code for the text it matches.
    private static func shortestBody(_ text: [UInt8], from start: Int, url: String) throws(FrameEncodingError) -> [UInt8] {
        if let bad = text[start...].firstIndex(where: { !(0x21...0x7E).contains($0) }) {
            throw .unencodableURLCharacter(url, offset: bad)
        }
        let end = text.count
        // cost[i]: fewest bytes encoding text[i..<end]; step[i]: the code chosen at i (nil = literal).
        var cost = [Int](repeating: 0, count: end + 1)
        var step = [Int?](repeating: nil, count: end + 1)
        var i = end - 1
        while i >= start {
            cost[i] = 1 + cost[i + 1]
            for (code, expansion) in expansions.enumerated()
            where end - i >= expansion.count && text[i..<(i + expansion.count)].elementsEqual(expansion) {
                if 1 + cost[i + expansion.count] < cost[i] {
                    cost[i] = 1 + cost[i + expansion.count]
                    step[i] = code
                }
            }
            i -= 1
        }
        var body = [UInt8]()
        body.reserveCapacity(cost[start])
        var position = start
        while position < end {
            if let code = step[position] {
                body.append(UInt8(code))
                position += expansions[code].count
            } else {
                body.append(text[position])
                position += 1
            }
        }
        return body
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte + 0x20 : byte
    }
}
