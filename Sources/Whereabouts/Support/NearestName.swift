/// The name among known ones that a mistyped name most likely meant: for "did you mean …?"
/// in the messages about unknown keys and options.
///
/// A name matches when it is the same but for case (`txpower` → `txPower`), when few edits turn
/// one into the other (a third of the shorter name's length, at least one, but none for
/// one-letter names, so that `x` is not taken for `y`: `flor` → `floor`, `di` → `id`), or, when
/// no name is that near, when the typed name begins one known name only (`algo` → `algorithm`).
///
/// ```swift
/// NearestName.suggestion(for: "txpower", among: ["txPower", "pathLossExponent"])   // "txPower"
/// NearestName.suggestion(for: "colour", among: ["txPower"])                        // nil
/// ```
public enum NearestName {
    /// The known name `typed` most likely meant, or `nil` when none is near.
    public static func suggestion(for typed: String, among known: some Sequence<String>) -> String? {
        let lowered = typed.lowercased()
        var best: (name: String, distance: Int)?
        var prefixed: [String] = []
        for name in known where name != typed {
            let candidate = name.lowercased()
            if candidate == lowered { return name }
            if lowered.count >= 2, candidate.hasPrefix(lowered) { prefixed.append(name) }
            let distance = editDistance(Array(lowered.utf8), Array(candidate.utf8), limit: 8)
            let shorter = min(lowered.count, candidate.count)
            let allowed = shorter < 2 ? 0 : max(1, shorter / 3)
            if distance <= allowed, distance < (best?.distance ?? .max) || (distance == best?.distance && name < best?.name ?? "") {
                best = (name, distance)
            }
        }
        if let best { return best.name }
        return prefixed.count == 1 ? prefixed[0] : nil
    }

    /// The Damerau–Levenshtein distance (adjacent transpositions count one) between `a` and `b`,
    /// or `limit + 1` as soon as it exceeds `limit`. Names are short; longer inputs are cut at
    /// 256 bytes so that the cost stays bounded.
    static func editDistance(_ a: [UInt8], _ b: [UInt8], limit: Int) -> Int {
        let a = a.prefix(256), b = b.prefix(256)
        if abs(a.count - b.count) > limit { return limit + 1 }
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        let x = Array(a), y = Array(b)
        var before = [Int](repeating: 0, count: y.count + 1)
        var previous = Array(0...y.count)
        var current = [Int](repeating: 0, count: y.count + 1)
        for i in 1...x.count {
            current[0] = i
            var rowMinimum = i
            for j in 1...y.count {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] { value = min(value, before[j - 2] + 1) }
                current[j] = value
                rowMinimum = min(rowMinimum, value)
            }
            if rowMinimum > limit { return limit + 1 }
            (before, previous, current) = (previous, current, before)
        }
        return previous[y.count]
    }
}
