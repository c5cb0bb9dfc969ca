import Hummingbird
import MultipartKit
import Whereabouts

/// Reads Pryv's multipart event upload: an `event` part holding the event's JSON and one or more
/// file parts, which become the event's attachments.
enum MultipartEventReader {
    /// The event JSON and files of a `multipart/form-data` body.
    static func read(_ body: ByteBuffer, contentType: String) throws(APIError) -> APIService.EventCreateInput {
        guard let boundary = boundary(in: contentType) else {
            throw .invalidRequestStructure("A multipart request needs a `boundary` in its Content-Type.")
        }
        struct Part {
            var headers: [(String, String)] = []
            var body: [UInt8] = []
        }
        var parts: [Part] = []
        var current = Part()
        let parser = MultipartParser(boundary: boundary)
        parser.onHeader = { name, value in current.headers.append((name.lowercased(), value)) }
        parser.onBody = { buffer in current.body.append(contentsOf: buffer.readableBytesView) }
        parser.onPartComplete = {
            parts.append(current)
            current = Part()
        }
        do {
            try parser.execute(body)
        } catch {
            throw .invalidRequestStructure("The multipart body cannot be read: \(error).")
        }
        // A body cut short (by a client that gave up, or a proxy) must not become an event with
        // the parts that happened to arrive: the close delimiter must be there, no part left open.
        let close = Array("--\(boundary)--".utf8)
        let tail = Array(body.readableBytesView.suffix(65_536))
        guard current.headers.isEmpty, current.body.isEmpty, tail.firstRange(of: close) != nil else {
            throw .invalidRequestStructure(
                "The multipart body ends before its closing boundary (--\(boundary)--): it was cut short; send it whole.")
        }
        var eventJSON: JSONValue?
        var files: [(fileName: String, type: String, data: [UInt8])] = []
        for part in parts {
            let disposition = part.headers.first { $0.0 == "content-disposition" }?.1 ?? ""
            let name = parameter("name", in: disposition)
            let fileName = parameter("filename", in: disposition)
            if name == "event" && fileName == nil {
                do {
                    eventJSON = try JSONParser.parse(part.body)
                } catch {
                    throw .invalidRequestStructure("The `event` part is not valid JSON: \(error).")
                }
            } else {
                let type = part.headers.first { $0.0 == "content-type" }?.1 ?? "application/octet-stream"
                files.append((fileName ?? name ?? "file", type, part.body))
            }
        }
        guard let eventJSON else {
            throw .invalidRequestStructure("A multipart event upload needs a part named `event` holding the event's JSON.")
        }
        return APIService.EventCreateInput(json: eventJSON, files: files)
    }

    /// The `boundary` parameter of a multipart Content-Type.
    static func boundary(in contentType: String) -> String? {
        parameter("boundary", in: contentType)
    }

    /// A `key=value` or `key="value"` parameter of a header value.
    static func parameter(_ key: String, in header: String) -> String? {
        for piece in header.split(separator: ";") {
            let trimmed = piece.drop { $0 == " " }
            guard let equals = trimmed.firstIndex(of: "=") else { continue }
            guard trimmed[..<equals].lowercased() == key else { continue }
            var value = trimmed[trimmed.index(after: equals)...]
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 {
                value = value.dropFirst().dropLast()
            }
            return value.isEmpty ? nil : String(value)
        }
        return nil
    }
}
