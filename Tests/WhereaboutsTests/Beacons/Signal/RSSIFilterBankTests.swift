import Testing
@testable import Whereabouts

@Suite("RSSI filter bank")
struct RSSIFilterBankTests {
    @Test func oneFilterPerBeacon() {
        var bank = RSSIFilterBank<String, ARMARSSIFilter>(prototype: ARMARSSIFilter())
        #expect(bank.add(rssi: -60, for: "a", at: 0) == -60)
        #expect(bank.add(rssi: -80, for: "b", at: 0) == -80)
        // a: -60 - 0.1 × (-60 + 70) = -61; b untouched
        #expect(bank.add(rssi: -70, for: "a", at: 1) == -61)
        #expect(bank.values(at: 1) == ["a": -61, "b": -80])
        #expect(bank.count == 2)
        #expect(Set(bank.keys) == ["a", "b"])
        #expect(bank.lastSeen("a") == 1)
        #expect(bank.filter(for: "b")?.value == -80)
    }

    @Test func beaconsUnseenLongerThanTheTimeoutExpire() {
        var bank = RSSIFilterBank<Int, KalmanRSSIFilter>(prototype: KalmanRSSIFilter(), timeout: 5)
        bank.add(rssi: -60, for: 1, at: 0)
        bank.add(rssi: -70, for: 2, at: 3)
        #expect(bank.value(for: 1, at: 5) == -60)   // 5 s unheard: not longer than the timeout
        #expect(bank.value(for: 1, at: 5.5) == nil) // 5.5 s: expired for reading
        #expect(bank.values(at: 5.5) == [2: -70])
        #expect(bank.removeExpired(at: 5.5) == [1])
        #expect(bank.keys == [2])
        #expect(bank.removeExpired(at: 8) == [])    // 2 was heard 5 s ago
        #expect(bank.removeExpired(at: 8.1) == [2])
        #expect(bank.isEmpty)
    }

    @Test func aBeaconBackAfterTheTimeoutStartsAfresh() {
        var bank = RSSIFilterBank<String, ARMARSSIFilter>(prototype: ARMARSSIFilter(), timeout: 10)
        bank.add(rssi: -60, for: "a", at: 0)
        // heard again 20 s later, before any removeExpired: the old -60 must not pull the estimate
        #expect(bank.add(rssi: -80, for: "a", at: 20) == -80)
        // within the timeout the filter carries on: -80 - 0.1 × (-80 + 70) = -79
        #expect(bank.add(rssi: -70, for: "a", at: 25) == -79)
    }

    @Test func prototypeStartsEmpty() {
        var used = KalmanRSSIFilter()
        used.add(rssi: -50, at: 0)
        var bank = RSSIFilterBank<String, KalmanRSSIFilter>(prototype: used)
        #expect(bank.prototype.value == nil)
        #expect(bank.add(rssi: -70, for: "x", at: 1) == -70)
        #expect(bank.timeout == 10)
        #expect(RSSIFilterBank<String, KalmanRSSIFilter>(prototype: used, timeout: -1).timeout == 10)
    }

    @Test func windowedFiltersExpireInsideTheBank() {
        var bank = RSSIFilterBank<String, BuiltInRSSIFilter>(prototype: BuiltInRSSIFilter(kind: .median),
                                                             timeout: .infinity)
        bank.add(rssi: -60, for: "a", at: 0)
        #expect(bank.value(for: "a", at: 14) == -60)
        #expect(bank.value(for: "a", at: 15) == nil)  // the 15 s window is empty
        #expect(bank.removeExpired(at: 1_000_000).isEmpty)
    }

    @Test func scansFeedTheBankSkippingInvalidReadings() {
        var bank = RSSIFilterBank<BeaconReference, ARMARSSIFilter>(prototype: ARMARSSIFilter())
        bank.add(Scan(time: 0, readings: [
            Reading(beacon: .id("1"), rssi: -60),
            Reading(beacon: .id("2"), rssi: 0),       // invalid: skipped, no filter made
        ]))
        bank.add(Scan(time: 1, readings: [Reading(beacon: .id("1"), rssi: -70)]))
        #expect(bank.values(at: 1) == [.id("1"): -61])
        #expect(bank.count == 1)
        bank.remove(.id("1"))
        #expect(bank.isEmpty)
        bank.add(rssi: -50, for: .id("3"), at: 2)
        bank.removeAll()
        #expect(bank.isEmpty)
    }
}
