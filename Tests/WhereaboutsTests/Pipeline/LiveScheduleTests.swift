import Testing
@testable import Whereabouts

/// ``LiveSchedule``: the live timeline's decisions, checked to the microsecond with no clock.
@Suite struct LiveScheduleTests {
    @Test func aWakeUpIsTheDeadlinesDistanceAfterTheLatestScansArrival() {
        var schedule = LiveSchedule()
        #expect(schedule.wakeUp(for: 10) == nil)                       // no scan yet: nothing to measure from
        schedule.scanArrived(time: 100, at: .seconds(2))
        #expect(schedule.wakeUp(for: 104) == .seconds(6))
        #expect(schedule.wakeUp(for: 101.25) == .milliseconds(3_250))
        // A deadline already past wakes at the scan's arrival: at once.
        #expect(schedule.wakeUp(for: 90) == .seconds(2))
        #expect(schedule.wakeUp(for: nil) == nil)
        #expect(schedule.wakeUp(for: .infinity) == nil && schedule.wakeUp(for: .nan) == nil)
        // At most 10⁷ s ahead.
        #expect(schedule.wakeUp(for: 1e12) == .seconds(2) + .seconds(10_000_000))
    }

    @Test func aWaitIsRoundedDownToTheMicrosecond() {
        var schedule = LiveSchedule()
        schedule.scanArrived(time: 100.4, at: .milliseconds(400))
        // 101 − 100.4 is 0.599999999999994 in binary: 599,999 µs, never a microsecond late.
        #expect(schedule.wakeUp(for: 101) == .microseconds(999_999))
        schedule.scanArrived(time: 100.5, at: .milliseconds(500))
        #expect(schedule.wakeUp(for: 101) == .seconds(1))
    }

    @Test func onlyALaterScanMovesTheTimelinesTime() {
        var schedule = LiveSchedule()
        schedule.scanArrived(time: 100, at: .seconds(1))
        schedule.scanArrived(time: 99, at: .seconds(3))                // older: the time stays 100 at 1 s
        schedule.scanArrived(time: .nan, at: .seconds(4))
        #expect(schedule.latestTime == 100 && schedule.latestArrival == .seconds(1))
        #expect(schedule.wakeUp(for: 105) == .seconds(6))
        schedule.scanArrived(time: 100, at: .seconds(5))               // equal: it came later
        #expect(schedule.wakeUp(for: 105) == .seconds(10))
    }

    @Test func theTimeGivenIsTheDeadlineOrNowWhicheverIsLaterAndItIsNotWaitedForAgain() {
        var schedule = LiveSchedule()
        #expect(schedule.timeToGive(for: 5, at: .seconds(1)) == nil)
        schedule.scanArrived(time: 500, at: .zero)
        // Woken on time: the deadline.
        #expect(schedule.timeToGive(for: 501, at: .seconds(1)) == 501)
        #expect(schedule.lastGivenTime == 501)
        // Woken late (a busy machine): now, 502.5, not the deadline.
        #expect(schedule.timeToGive(for: 502, at: .milliseconds(2_500)) == 502.5)
        // A deadline no later than the time given wants no timer: a stage cannot make it spin.
        #expect(schedule.wakeUp(for: 502.5) == nil && schedule.wakeUp(for: 502) == nil)
        #expect(schedule.wakeUp(for: 503) == .seconds(3))
    }
}
