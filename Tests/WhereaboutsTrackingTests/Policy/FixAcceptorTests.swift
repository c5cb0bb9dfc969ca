import Testing
import Whereabouts
@testable import WhereaboutsTracking

@Suite("The acceptance policy")
struct FixAcceptorTests {
    private func acceptor(_ policy: AcceptancePolicy = AcceptancePolicy(), metresPerUnit: Double = 1, shift: Double = 0) -> FixAcceptor {
        FixAcceptor(policy: policy, metresPerUnit: metresPerUnit, streamIds: ["position"], timeShift: shift,
                    identifiers: .sequential(prefix: "e"))
    }

    @Test("A fix at 0/0 is ignored: latitude/longitude when it has them, x/y otherwise")
    func nullPosition() {
        var a = acceptor()
        #expect(a.decide(fix(0, x: 0, y: 0)) == .ignored(.nullPosition))
        #expect(a.decide(fix(1, x: 5, y: 5, latitude: 0, longitude: 0)) == .ignored(.nullPosition))
        // x 0 / y 0 is a real place when the fix has latitude and longitude.
        guard case .accepted = a.decide(fix(2, x: 0, y: 0, latitude: 46.5, longitude: 6.6)) else { Issue.record("not accepted"); return }
        var lenient = acceptor(AcceptancePolicy(ignoresNullPosition: false))
        guard case .accepted = lenient.decide(fix(0, x: 0, y: 0)) else { Issue.record("not accepted"); return }
    }

    @Test("The accuracy threshold: exactly at it counts, above it and negative do not; venue units are scaled to metres")
    func accuracyThreshold() {
        var a = acceptor()
        #expect(a.decide(fix(0, x: 10, y: 0, accuracy: 100.000001)) == .ignored(.inaccurate(accuracy: 100.000001, maximum: 100)))
        #expect(a.decide(fix(0, x: 10, y: 0, accuracy: -1)) == .ignored(.invalidAccuracy(-1)))
        guard case .ignored(.invalidAccuracy(let nan)) = a.decide(fix(0, x: 10, y: 0, accuracy: .nan)), nan.isNaN else {
            Issue.record("NaN accepted"); return
        }
        guard case .accepted = a.decide(fix(0, x: 10, y: 0, accuracy: 100)) else { Issue.record("not accepted"); return }
        // Feet: 330 ft = 100.584 m is above 100 m; 328 ft = 99.97 m is not.
        var feet = acceptor(metresPerUnit: 0.3048)
        #expect(feet.decide(fix(0, x: 10, y: 0, accuracy: 330)) == .ignored(.inaccurate(accuracy: 330 * 0.3048, maximum: 100)))
        guard case .accepted = feet.decide(fix(0, x: 10, y: 0, accuracy: 328)) else { Issue.record("not accepted"); return }
    }

    @Test("A fix within its accuracy + the minimum distance extends the last event; exactly at it too; beyond starts one")
    func durationExtension() throws {
        var a = acceptor()
        let first = a.decide(fix(100, x: 10, y: 10, accuracy: 0))
        #expect(first == .accepted(TrackedEvent(
            id: "e-1", streamIds: ["position"], time: 100, duration: 0, type: "position/local",
            content: .object([("x", .number(10)), ("y", .number(10)), ("accuracy", .number(0))]),
            clientData: .object([("whereabouts", .object([("device", .string("phone")), ("method", .string("test"))]))]))))
        // 3-4-5: exactly 0 + 5 m away extends, to the fix's time.
        #expect(a.decide(fix(103, x: 13, y: 14, accuracy: 0)) == .extended(eventId: "e-1", duration: 3))
        // The distance is from the event, not from the last fix: 2 m accuracy allows 7 m.
        #expect(a.decide(fix(110, x: 17, y: 10, accuracy: 2)) == .extended(eventId: "e-1", duration: 10))
        // Just beyond: a new event (no minimum interval).
        guard case .accepted(let second) = a.decide(fix(111, x: 17.000001, y: 10, accuracy: 2)) else {
            Issue.record("not accepted"); return
        }
        #expect(second.id == "e-2" && second.time == 111 && second.duration == 0)
        // Further fixes extend the new event, not the old.
        #expect(a.decide(fix(120, x: 17, y: 10, accuracy: 2)) == .extended(eventId: "e-2", duration: 9))
    }

    @Test("The minimum interval is judged on fix times: exactly at it counts, a moment before does not")
    func minimumInterval() {
        var a = acceptor(AcceptancePolicy(minimumInterval: 60))
        guard case .accepted = a.decide(fix(1_000, x: 0.5, y: 0, accuracy: 1)) else { Issue.record("not accepted"); return }
        #expect(a.decide(fix(1_059.5, x: 50, y: 0, accuracy: 1)) == .ignored(.tooSoon(elapsed: 59.5, minimum: 60)))
        // The ignored fix does not move the event: a fix back at it still extends it.
        #expect(a.decide(fix(1_059.75, x: 1, y: 0, accuracy: 1)) == .extended(eventId: "e-1", duration: 59.75))
        guard case .accepted(let event) = a.decide(fix(1_060, x: 50, y: 0, accuracy: 1)) else { Issue.record("not accepted"); return }
        #expect(event.id == "e-2" && event.time == 1_060)
    }

    @Test("A fix on another floor is another event; a fix no later than the event's end changes nothing")
    func floorsAndTime() {
        var a = acceptor()
        guard case .accepted = a.decide(fix(10, x: 5, y: 5, floor: 0)) else { Issue.record("not accepted"); return }
        #expect(a.decide(fix(12, x: 5, y: 5, floor: 0)) == .extended(eventId: "e-1", duration: 2))
        #expect(a.decide(fix(12, x: 5, y: 5, floor: 0)) == .ignored(.notLater(time: 12, covered: 12)))
        #expect(a.decide(fix(11, x: 50, y: 5, floor: 0)) == .ignored(.notLater(time: 11, covered: 12)))
        guard case .accepted(let upstairs) = a.decide(fix(13, x: 5, y: 5, floor: 1)) else { Issue.record("not accepted"); return }
        #expect(upstairs.id == "e-2")
        #expect(upstairs.content == .object([("x", .number(5)), ("y", .number(5)), ("accuracy", .number(2)), ("floor", .number(1))]))
    }

    @Test("Geographic fixes: position/wgs84 with the accuracy in metres, distances on the sphere, server time")
    func geographic() throws {
        var a = acceptor(metresPerUnit: 0.5, shift: 600)
        let decision = a.decide(fix(1_700_000_000, x: 4, y: 2, accuracy: 4, floor: 2, latitude: 46.5, longitude: 6.6))
        #expect(decision == .accepted(TrackedEvent(
            id: "e-1", streamIds: ["position"], time: 1_700_000_600, type: "position/wgs84",
            content: .object([("latitude", .number(46.5)), ("longitude", .number(6.6)), ("horizontalAccuracy", .number(2))]),
            clientData: .object([("whereabouts", .object([("device", .string("phone")), ("floor", .number(2)),
                                                         ("method", .string("test"))]))]))))
        // 0.0001° of latitude is 11.12 m: beyond 2 m + 5 m + … at accuracy 4 units (2 m): new event …
        let far = GeoCoordinate(latitude: 46.5001, longitude: 6.6).distance(to: GeoCoordinate(latitude: 46.5, longitude: 6.6))
        #expect(abs(far - 11.1195) < 0.001)
        guard case .accepted = a.decide(fix(1_700_000_010, x: 4, y: 2, accuracy: 4, floor: 2, latitude: 46.5001, longitude: 6.6)) else {
            Issue.record("not accepted"); return
        }
        // … while at accuracy 14 units (7 m) the same step stays within 12 m of the event.
        #expect(a.decide(fix(1_700_000_020, x: 4, y: 2, accuracy: 14, floor: 2, latitude: 46.5, longitude: 6.6))
                == .extended(eventId: "e-2", duration: 10))
    }

    @Test("Each device has its own last event")
    func devices() {
        var a = acceptor()
        guard case .accepted = a.decide(fix(0, x: 1, y: 1, device: "a")) else { Issue.record("not accepted"); return }
        guard case .accepted = a.decide(fix(1, x: 1, y: 1, device: "b")) else { Issue.record("not accepted"); return }
        #expect(a.decide(fix(2, x: 1, y: 1, device: "a")) == .extended(eventId: "e-1", duration: 2))
        #expect(a.decide(fix(3, x: 1, y: 1, device: "b")) == .extended(eventId: "e-2", duration: 2))
    }

    @Test("The devices remembered are bounded: the one whose event ended longest ago is forgotten")
    func boundedDevices() {
        var a = FixAcceptor(identifiers: .sequential(prefix: "e"), maximumDevices: 2)
        _ = a.decide(fix(0, x: 1, y: 1, device: "a"))
        _ = a.decide(fix(1, x: 1, y: 1, device: "b"))
        _ = a.decide(fix(2, x: 1, y: 1, device: "c"))
        #expect(Set(a.lastEvents.keys) == ["b", "c"])
    }

    @Test("Settings that are not distances are reported")
    func problems() {
        #expect(AcceptancePolicy().problem == nil)
        #expect(AcceptancePolicy(maximumAccuracy: -1).problem != nil)
        #expect(AcceptancePolicy(minimumInterval: .infinity).problem != nil)
    }
}

@Suite("Event ids")
struct EventIdentifierTests {
    @Test("Random ids look like the server's: c, 8 base-36 digits of the time in ms, 16 random; they sort by time and differ")
    func randomIds() {
        var ids = EventIdentifiers.random
        let first = ids.next(now: 1_700_000_000)
        let second = ids.next(now: 1_700_000_000.5)
        #expect(first.count == 25 && first.hasPrefix("c"))
        // 1,700,000,000,000 ms in base 36.
        #expect(first.dropFirst().prefix(8) == "loyw3v28")
        #expect(first < second)
        let many = Set((0..<1_000).map { _ in ids.next(now: 1_700_000_000) })
        #expect(many.count == 1_000)
        #expect(many.allSatisfy { $0.allSatisfy { $0.isLowercase || $0.isNumber } })
    }

    @Test("Sequential ids count from 1")
    func sequentialIds() {
        var ids = EventIdentifiers.sequential(prefix: "e")
        #expect([ids.next(now: 0), ids.next(now: 0)] == ["e-1", "e-2"])
    }
}
