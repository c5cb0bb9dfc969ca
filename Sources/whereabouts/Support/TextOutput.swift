import Foundation

/// Lines to standard output through a buffer (a line at a time would be slow for long replays);
/// for a live source, each line as it comes (``isLive``), so that a consumer at the other end of
/// a pipe sees each event when it happens.
struct TextOutput {
    /// Whether lines are written as they come rather than 64 KiB at a time.
    var isLive: Bool
    /// The lines not written yet.
    private var buffer = ""

    /// Output buffered for a replay, or written as it comes for a live source.
    init(live: Bool = false) {
        isLive = live
    }

    /// Adds `text` and a line break; writes the buffer once it holds 64 KiB, or at once when live.
    mutating func line(_ text: String) {
        buffer += text
        buffer += "\n"
        if isLive || buffer.utf8.count >= 1 << 16 { flush() }
    }

    /// Writes the lines not written yet.
    mutating func flush() {
        guard !buffer.isEmpty else { return }
        FileHandle.standardOutput.write(Data(buffer.utf8))
        buffer = ""
    }
}
