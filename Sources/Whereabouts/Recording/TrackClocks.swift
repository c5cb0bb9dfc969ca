/// The latest time of each device and track of a recording read in file order, so that a scan
/// whose time goes back is found: FORMATS.md §2 asks that each device's (and track's) clock never
/// goes back. ``RecordingReader`` refuses such a scan as ``RecordingSummary`` (`validate`) reports it.
struct TrackClocks: Sendable {
    /// A device and track, as scans name them.
    struct Key: Hashable, Sendable {
        var device: String?
        var track: String?
    }

    private var times: [Key: Double] = [:]
    /// The key of the last scan admitted, and its time: consecutive scans of one device skip the
    /// dictionary.
    private var lastKey: Key?
    private var lastTime = -Double.infinity

    /// Takes in `scan`'s time; returns a problem at `line` when it is earlier than the latest time
    /// of its device and track (the time is then not taken in).
    mutating func admit(_ scan: Scan, line: Int?) -> FormatError? {
        let key = Key(device: scan.device, track: scan.track)
        let previous = key == lastKey ? lastTime : times[key]
        if let previous, scan.time < previous {
            return FormatError(line: line, key: "t",
                               message: "time goes back from \(previous) to \(scan.time) for \(Self.describe(key))"
                                   + " — each device's scans must be in time order (FORMATS.md §2)")
        }
        if let lastKey, lastKey != key { times[lastKey] = lastTime }
        lastKey = key
        lastTime = scan.time
        return nil
    }

    private static func describe(_ key: Key) -> String {
        switch (key.device, key.track) {
        case (nil, nil): "scans without device or track"
        case (let device?, nil): "device \"\(device)\""
        case (nil, let track?): "track \"\(track)\""
        case (let device?, let track?): "device \"\(device)\", track \"\(track)\""
        }
    }
}
