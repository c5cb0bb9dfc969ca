/// Help text whose example commands can be copied from an 80-column terminal.
///
/// ArgumentParser wraps a discussion's long lines at the terminal's width, which cuts an
/// example command in two with no continuation mark. ``fitting(_:)`` breaks each indented line
/// (an example) that would not fit at the spaces between its arguments, ending each part with
/// ` \` and indenting the next, so that what is shown is still one command for a shell:
///
/// ```
///   whereabouts simulate --venue venue.json --walk survey.json --seed 1 \
///       --persistent-shadowing 4 --field-seed 9 -o train.jsonl
/// ```
enum HelpText {
    /// The widest line a help text shows (80 columns, less a margin).
    static let width = 78

    /// `text` with its long example lines broken into shell continuation lines. Prose (lines
    /// that do not start with two spaces) is left to ArgumentParser's own wrapping; a quoted
    /// argument is never split.
    static func fitting(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            guard line.hasPrefix("  "), line.count > width else { return String(line) }
            let indent = String(line.prefix { $0 == " " })
            let words = units(of: arguments(in: line.dropFirst(indent.count)))
            var lines: [String] = []
            var current = indent
            for word in words {
                if current.count == indent.count {
                    current += word
                } else if current.count + 1 + word.count + 2 > width {
                    lines.append(current + " \\")
                    current = indent + "    " + word
                } else {
                    current += " " + word
                }
            }
            lines.append(current)
            return lines.joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// The arguments grouped as they should stay on one line: an option with its value.
    static func units(of words: [String]) -> [String] {
        var units: [String] = []
        var index = 0
        while index < words.count {
            let word = words[index]
            if word.hasPrefix("-"), index + 1 < words.count, !words[index + 1].hasPrefix("-"), !words[index + 1].hasPrefix("#") {
                units.append(word + " " + words[index + 1])
                index += 2
            } else {
                units.append(word)
                index += 1
            }
        }
        return units
    }

    /// The space-separated arguments of a command line: a quoted one (`'…'` or `"…"`) kept
    /// whole, and a trailing comment (`# …`) as one.
    static func arguments(in line: Substring) -> [String] {
        var words: [String] = []
        var word = ""
        var quote: Character?
        for (offset, character) in zip(line.indices, line) {
            if quote == nil, word.isEmpty, character == "#" {
                words.append(String(line[offset...]))
                return words
            }
            if let open = quote {
                word.append(character)
                if character == open { quote = nil }
            } else if character == " " {
                if !word.isEmpty { words.append(word) }
                word = ""
            } else {
                if character == "'" || character == "\"" { quote = character }
                word.append(character)
            }
        }
        if !word.isEmpty { words.append(word) }
        return words
    }
}
