import Foundation

extension Outbox {
    /// Where a user's outbox lives unless told otherwise, outside any working copy:
    /// `$XDG_DATA_HOME/whereabouts/outbox.sqlite` (`~/.local/share` when unset) on Linux,
    /// Application Support on Apple platforms. `whereabouts track`, `sync` and `note` and the
    /// gateway example share it, so that a replay tracked by one is resumed, not sent again, by
    /// the other.
    public static var defaultPath: String {
        let environment = ProcessInfo.processInfo.environment
        let configured = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
        #if os(Linux)
        let home = environment["HOME"] ?? NSHomeDirectory()
        let data = configured ?? (home as NSString).appendingPathComponent(".local/share")
        #else
        let data = configured ?? (NSHomeDirectory() as NSString).appendingPathComponent("Library/Application Support")
        #endif
        return ((data as NSString).appendingPathComponent("whereabouts") as NSString).appendingPathComponent("outbox.sqlite")
    }
}
