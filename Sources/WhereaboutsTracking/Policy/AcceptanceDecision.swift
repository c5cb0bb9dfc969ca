/// What the ``AcceptancePolicy`` made of one fix: a value a caller can log or count.
public enum AcceptanceDecision: Hashable, Sendable {
    /// The fix starts a new event.
    case accepted(TrackedEvent)
    /// The fix is still at the last accepted event, whose duration grows to `duration` seconds.
    case extended(eventId: String, duration: Double)
    /// The fix changes nothing.
    case ignored(IgnoreReason)

    /// Why a fix was ignored.
    public enum IgnoreReason: Hashable, Sendable, CustomStringConvertible {
        /// The fix lies at latitude 0 / longitude 0 (or x 0 / y 0).
        case nullPosition
        /// The fix's accuracy is negative (or not a number).
        case invalidAccuracy(Double)
        /// The fix's accuracy (metres) is above the policy's maximum.
        case inaccurate(accuracy: Double, maximum: Double)
        /// The fix is a new place, but too soon after the last event began.
        case tooSoon(elapsed: Double, minimum: Double)
        /// The fix is no later than what the last event already covers (time went backwards, or
        /// the same moment came twice).
        case notLater(time: Double, covered: Double)
        /// An earlier, interrupted run of the same replay already decided the fix.
        case alreadyDecided

        /// A short explanation, for logs.
        public var description: String {
            switch self {
            case .nullPosition: "at 0/0"
            case .invalidAccuracy(let accuracy): "accuracy \(accuracy) is not a distance"
            case .inaccurate(let accuracy, let maximum): "accuracy \(accuracy) m is above \(maximum) m"
            case .tooSoon(let elapsed, let minimum): "\(elapsed) s after the last event, \(minimum) s needed"
            case .notLater(let time, let covered): "time \(time) is not after \(covered), which the last event covers"
            case .alreadyDecided: "decided by an earlier run of the same replay"
            }
        }

        /// A stable name for the reason, for counting (`null-position`, `inaccurate`, …).
        public var name: String {
            switch self {
            case .nullPosition: "null-position"
            case .invalidAccuracy: "invalid-accuracy"
            case .inaccurate: "inaccurate"
            case .tooSoon: "too-soon"
            case .notLater: "not-later"
            case .alreadyDecided: "already-decided"
            }
        }
    }
}
