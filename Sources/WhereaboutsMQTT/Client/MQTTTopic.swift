/// Topic names and topic filters (MQTT 3.1.1 §4.7): what is valid, and which topics a filter
/// matches.
///
/// ```swift
/// MQTTTopic.filter("espresense/devices/+/+", matches: "espresense/devices/keys/kitchen") // true
/// MQTTTopic.filter("espresense/#", matches: "espresense")                             // true
/// MQTTTopic.filter("+/status", matches: "$SYS/status")                                // false
/// ```
public enum MQTTTopic {
    /// The longest topic or filter, in UTF-8 bytes: the protocol's two-byte length.
    public static let maximumLength = 65_535

    /// Why `name` cannot be published to, or `nil` when it can: it must be 1 to
    /// ``maximumLength`` bytes of UTF-8, without `+`, `#` or the character U+0000.
    public static func problem(withName name: String) -> String? {
        if let problem = commonProblem(name) { return problem }
        if name.contains(where: { $0 == "+" || $0 == "#" }) {
            return "a topic to publish to may not hold the wildcards + and #"
        }
        return nil
    }

    /// Why `filter` cannot be subscribed to, or `nil` when it can: `+` must fill a whole level,
    /// and `#` must be the whole last level.
    public static func problem(withFilter filter: String) -> String? {
        if let problem = commonProblem(filter) { return problem }
        let levels = filter.split(separator: "/", omittingEmptySubsequences: false)
        for (index, level) in levels.enumerated() {
            if level.contains("#") && (level != "#" || index != levels.count - 1) {
                return "# must be a whole level and the last: \"a/#\", not \"a/b#\" or \"#/a\""
            }
            if level.contains("+") && level != "+" {
                return "+ must be a whole level: \"a/+/c\", not \"a/b+/c\""
            }
        }
        return nil
    }

    /// Whether `filter` matches `topic`. A filter whose first level is a wildcard does not match
    /// a topic that begins with `$` (the broker's own topics, §4.7.2).
    public static func filter(_ filter: String, matches topic: String) -> Bool {
        let filterLevels = filter.split(separator: "/", omittingEmptySubsequences: false)
        let topicLevels = topic.split(separator: "/", omittingEmptySubsequences: false)
        if topic.hasPrefix("$"), let first = filterLevels.first, first == "+" || first == "#" { return false }
        var index = 0
        while index < filterLevels.count {
            let level = filterLevels[index]
            if level == "#" { return true }
            guard index < topicLevels.count else { return false }
            if level != "+" && level != topicLevels[index] { return false }
            index += 1
        }
        return index == topicLevels.count
    }

    private static func commonProblem(_ string: String) -> String? {
        if string.isEmpty { return "a topic may not be empty" }
        if string.utf8.count > maximumLength { return "a topic may hold at most \(maximumLength) bytes" }
        if string.utf8.contains(0) { return "a topic may not hold the character U+0000" }
        return nil
    }
}
