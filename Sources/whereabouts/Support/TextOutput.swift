import Foundation

/// Lines to standard output through a buffer (a line at a time would be slow for long replays).
struct TextOutput {
    /// The lines not written yet.
    private var buffer = ""

    /// Adds `text` and a line break, writing the buffer once it holds 64 KiB.
    mutating func line(_ text: String) {
        buffer += text
        buffer += "\n"
        if buffer.utf8.count >= 1 << 16 { flush() }
    }

    /// Writes the lines not written yet.
    mutating func flush() {
        guard !buffer.isEmpty else { return }
        FileHandle.standardOutput.write(Data(buffer.utf8))
        buffer = ""
    }
}
