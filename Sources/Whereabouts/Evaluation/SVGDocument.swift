/// A minimal SVG writer: elements appended in order, attributes and text escaped, numbers
/// written short. Self-contained documents only (no external assets).
struct SVGDocument {
    let width: Double
    let height: Double
    private(set) var body = ""

    init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// Appends `<name attributes…/>`, or `<name attributes…>text</name>` when `text` is given.
    mutating func element(_ name: String, _ attributes: [(String, String)], text: String? = nil) {
        body += "<" + name
        for (key, value) in attributes {
            body += " " + key + "=\"" + Self.escape(value) + "\""
        }
        if let text {
            body += ">" + Self.escape(text) + "</" + name + ">\n"
        } else {
            body += "/>\n"
        }
    }

    /// Opens a group `<g …>`; close it with ``close(_:)``.
    mutating func open(_ name: String, _ attributes: [(String, String)] = []) {
        body += "<" + name
        for (key, value) in attributes {
            body += " " + key + "=\"" + Self.escape(value) + "\""
        }
        body += ">\n"
    }

    /// Closes an element opened with ``open(_:_:)``.
    mutating func close(_ name: String) {
        body += "</" + name + ">\n"
    }

    /// The whole document.
    var text: String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            + "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Self.number(width))\" height=\"\(Self.number(height))\" "
            + "viewBox=\"0 0 \(Self.number(width)) \(Self.number(height))\" font-family=\"Helvetica, Arial, sans-serif\">\n"
            + body + "</svg>\n"
    }

    /// Escapes the five XML special characters, and drops the control characters XML 1.0 forbids.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A coordinate rounded to hundredths, integral values without a fraction; non-finite as 0.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let rounded = (value * 100).rounded() / 100
        if rounded == rounded.rounded(), abs(rounded) < 1e15 { return String(Int64(rounded)) }
        return String(rounded)
    }

    /// Path data through points: `M x,y L x,y …`.
    static func pathData(_ points: [(x: Double, y: Double)]) -> String {
        var data = ""
        for (i, point) in points.enumerated() {
            data += (i == 0 ? "M" : " L") + number(point.x) + "," + number(point.y)
        }
        return data
    }
}

/// Axis ticks at 1, 2 or 5 times a power of ten.
enum NiceTicks {
    /// A tick step that puts about `count` ticks over `span`.
    static func step(span: Double, count: Int) -> Double {
        guard span.isFinite, span > 0 else { return 1 }
        let raw = span / Double(max(count, 1))
        let magnitude = pow10(floorLog10(raw))
        let fraction = raw / magnitude
        let nice: Double = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10
        return nice * magnitude
    }

    /// `span` rounded up to a whole number of `step`s.
    static func ceiling(_ span: Double, step: Double) -> Double {
        guard step > 0 else { return span }
        return (span / step - 1e-9).rounded(.up) * step
    }

    /// A tick label: no more decimals than the step needs.
    static func label(_ value: Double, step: Double) -> String {
        let decimals = step >= 1 ? 0 : min(6, Int((-floorLog10(step)).rounded(.up)))
        var text = value.formattedFixed(decimals)
        if text == "-0" { text = "0" }
        return text
    }

    private static func floorLog10(_ value: Double) -> Double {
        guard value.isFinite, value > 0 else { return 0 }
        var exponent = 0.0
        var v = value
        while v >= 10 { v /= 10; exponent += 1 }
        while v < 1 { v *= 10; exponent -= 1 }
        return exponent
    }

    private static func pow10(_ exponent: Double) -> Double {
        var result = 1.0
        if exponent >= 0 {
            for _ in 0..<Int(exponent) { result *= 10 }
        } else {
            for _ in 0..<Int(-exponent) { result /= 10 }
        }
        return result
    }
}

extension Double {
    /// The value with exactly `decimals` decimals (0…6), rounding half away from zero.
    func formattedFixed(_ decimals: Int) -> String {
        let scale = [1.0, 10, 100, 1000, 10_000, 100_000, 1_000_000][max(0, min(decimals, 6))]
        let scaled = (self * scale).rounded()
        guard scaled.isFinite, abs(scaled) < 1e15 else { return String(self) }
        let whole = Int64(scaled)
        let sign = whole < 0 ? "-" : ""
        let digits = String(whole.magnitude)
        guard decimals > 0 else { return sign + digits }
        let padded = String(repeating: "0", count: max(0, decimals + 1 - digits.count)) + digits
        return sign + padded.dropLast(decimals) + "." + padded.suffix(decimals)
    }
}
