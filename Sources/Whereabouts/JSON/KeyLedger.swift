/// The keys a decoder asked for, by key pattern (a key path without its array indices:
/// `beacons[].txPower`), so that the members of a document that no decoder asked for can be
/// listed afterwards: a misspelt optional key is otherwise dropped without a word.
///
/// An object the decoder only checked the type of (``JSONReader/object()``) has the format's
/// keys; one whose members it iterates as data (``JSONReader/members()``) is open; one it never
/// looked at (free-form content, a tree of numbers) is not judged.
final class KeyLedger {
    private var requested: [String: Set<String>] = [:]
    private var openPatterns: Set<String> = []

    /// The pattern of a key path: `beacons[3].txPower` → `beacons[].txPower`.
    static func pattern(of path: String) -> String {
        guard path.contains("[") else { return path }
        var pattern = ""
        var inIndex = false
        for character in path {
            if character == "[" { inIndex = true; pattern.append("[]") } else if character == "]" { inIndex = false } else if !inIndex {
                pattern.append(character)
            }
        }
        return pattern
    }

    /// Notes that the object at `pattern` was read as one of the format's.
    func visit(_ pattern: String) {
        if requested[pattern] == nil { requested[pattern] = [] }
    }

    /// Notes that the decoder asked for `key` in the objects at `pattern`.
    func request(_ key: String, at pattern: String) {
        requested[pattern, default: []].insert(key)
    }

    /// Notes that the object at `pattern` holds data keys, none of them unknown.
    func open(_ pattern: String) {
        openPatterns.insert(pattern)
    }

    /// The keys asked for at `pattern`.
    func keys(at pattern: String) -> Set<String> { requested[pattern] ?? [] }

    /// Every member of `value` that no decoder asked for, in the document's order, with the
    /// key asked for that it most likely meant. A member that is unknown is not looked into.
    func unknownKeys(in value: JSONValue, limit: Int = 1_000) -> [UnknownKey] {
        var found: [UnknownKey] = []
        var patternsSeen: [String: Int] = [:]
        func walk(_ value: JSONValue, path: String, pattern: String) {
            switch value {
            case .object(let members):
                guard !openPatterns.contains(pattern), let known = requested[pattern] else { return }
                for member in members {
                    let childPath = path.isEmpty ? member.key : path + "." + member.key
                    let childPattern = pattern.isEmpty ? member.key : pattern + "." + member.key
                    if known.contains(member.key) {
                        walk(member.value, path: childPath, pattern: childPattern)
                    } else if let index = patternsSeen[childPattern] {
                        found[index].occurrences += 1
                    } else if found.count < limit {
                        patternsSeen[childPattern] = found.count
                        found.append(UnknownKey(key: childPath, suggestion: NearestName.suggestion(for: member.key, among: known)))
                    }
                }
            case .array(let items):
                for (index, item) in items.enumerated() { walk(item, path: "\(path)[\(index)]", pattern: pattern + "[]") }
            default:
                return
            }
        }
        walk(value, path: "", pattern: "")
        return found
    }
}
