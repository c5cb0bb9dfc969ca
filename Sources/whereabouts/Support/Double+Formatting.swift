import Foundation

extension Double {
    /// The number with at most `digits` decimals, without trailing zeros.
    func formatted(_ digits: Int) -> String {
        let text = String(format: "%.\(digits)f", self)
        guard text.contains(".") else { return text }
        var trimmed = Substring(text)
        while trimmed.last == "0" { trimmed.removeLast() }
        if trimmed.last == "." { trimmed.removeLast() }
        return String(trimmed)
    }

    /// The value rounded to `decimals` decimal places.
    func rounded(decimals: Int) -> Double {
        let scale = Foundation.pow(10, Double(decimals))
        return (self * scale).rounded() / scale
    }
}
