/// Per-device state of a stream of scans: one slot per device, started afresh whenever that
/// device's `track` changes, so that nothing leaks from one trajectory into the next. Memory grows
/// with the number of devices, not of scans or tracks. Every stage that keeps state per device —
/// the locators, the fixed-lag smoothers, the room classifier's beliefs, the event hubs — keeps
/// it here.
///
/// Scans of one device mostly come in runs, so the last device's slot is found without hashing
/// its name.
///
/// ```swift
/// var slots = DeviceSlots<Int>()
/// for scan in scans {
///     let slot = slots.slot(device: scan.device, track: scan.track, start: { 0 })
///     slots.update(slot) { count in count += 1 }   // scans so far in this device's track
/// }
/// ```
struct DeviceSlots<State>: Sendable where State: Sendable {
    private var index: [String?: Int] = [:]
    private var entries: [(device: String?, track: String?, state: State)] = []
    private var last: (device: String?, slot: Int)?

    /// How many times a slot was started: a device first seen, or a new track of one.
    private(set) var trackStarts = 0

    /// No devices yet.
    init() {}

    /// Devices seen so far.
    var count: Int { entries.count }

    /// Whether no device has been seen.
    var isEmpty: Bool { entries.isEmpty }

    /// The slots, in the order their devices were first seen.
    var indices: Range<Int> { entries.indices }

    /// The slot of a device's track: its existing slot, or a new one holding `start()` when the
    /// device is new; when the device's track changed, `retiring` first sees the old track's state
    /// (to hand over what it still holds), then the slot starts afresh with `start()`.
    mutating func slot(device: String?, track: String?, start: () -> State,
                              retiring: (inout State) -> Void = { _ in }) -> Int {
        let slot: Int
        if let known = last.flatMap({ $0.device == device ? $0.slot : nil }) ?? index[device] {
            slot = known
            if entries[slot].track != track {
                retiring(&entries[slot].state)
                entries[slot] = (device, track, start())
                trackStarts += 1
            }
        } else {
            slot = entries.count
            let state = start()
            index[device] = slot
            entries.append((device, track, state))
            trackStarts += 1
        }
        last = (device, slot)
        return slot
    }

    /// The slot of a device, when it has been seen.
    func existingSlot(device: String?) -> Int? { index[device] }

    /// The device of a slot.
    func device(of slot: Int) -> String? { entries[slot].device }

    /// The track of a slot (the track its device is on).
    func track(of slot: Int) -> String? { entries[slot].track }

    /// The state of a slot.
    subscript(slot: Int) -> State { entries[slot].state }

    /// Changes a slot's state in place (no copy of what it holds) and returns what `body` returns.
    @inline(__always)
    mutating func update<Result>(_ slot: Int, _ body: (inout State) throws -> Result) rethrows -> Result {
        try body(&entries[slot].state)
    }

    /// Changes every slot's state in place, in the order the devices were first seen.
    mutating func updateAll(_ body: (inout State) throws -> Void) rethrows {
        for slot in entries.indices { try body(&entries[slot].state) }
    }

    /// Starts a slot afresh with `start()`, keeping its device and track (not counted as a track start).
    mutating func restart(_ slot: Int, with start: () -> State) {
        entries[slot].state = start()
    }
}
