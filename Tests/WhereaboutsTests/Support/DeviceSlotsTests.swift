import Testing
@testable import Whereabouts

/// ``DeviceSlots``: one state per device, started afresh on a new track.
@Suite struct DeviceSlotsTests {
    @Test func slotsFollowDevicesAndRestartOnANewTrack() {
        var slots = DeviceSlots<[String]>()
        var retired: [[String]] = []
        func add(_ device: String?, _ track: String?, _ value: String) {
            let slot = slots.slot(device: device, track: track, start: { [] }, retiring: { retired.append($0) })
            slots.update(slot) { $0.append(value) }
        }
        add("a", "1", "a1")
        add("a", "1", "a2")            // the last slot's shortcut
        add("b", nil, "b1")
        add("a", "1", "a3")            // back to a, through the index
        add(nil, nil, "n1")            // no device is a device too
        add("a", "2", "a4")            // a's new track: the old state is retired first
        #expect(slots.count == 3)
        #expect(slots.trackStarts == 4)
        #expect(retired == [["a1", "a2", "a3"]])
        #expect(slots[0] == ["a4"] && slots[1] == ["b1"] && slots[2] == ["n1"])
        #expect(slots.device(of: 0) == "a" && slots.track(of: 0) == "2")
        #expect(slots.device(of: 2) == nil)
        #expect(slots.existingSlot(device: "b") == 1 && slots.existingSlot(device: "c") == nil)
        slots.restart(1) { ["fresh"] }
        #expect(slots[1] == ["fresh"] && slots.trackStarts == 4)
        slots.updateAll { $0.append("x") }
        #expect(slots.indices.map { slots[$0].last } == ["x", "x", "x"])
    }
}
