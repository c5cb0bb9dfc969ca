import Foundation

/// The online stop-and-go filter behind ``MotionTracker`` with
/// ``MotionTracker/Configuration/Model/stopAndGo``: an interacting multiple model (IMM) filter of
/// two position-only models, a person standing still and a person walking, with its parameters
/// already in venue units.
///
/// Each model keeps a position on the plan and one variance for both axes (every input is a
/// circular estimate). Between inputs `dt` seconds apart:
/// - the person keeps their mode with probability `stay^dt` (`stay` per second), else switches;
/// - *still*: the position drifts by a variance of `stillDiffusion · dt` per axis (a person
///   shifting their weight, a phone turned in the hand);
/// - *walking*: it moves by a variance of `(walkingSpeed · dt)² / 2` per axis, a step of about
///   `walkingSpeed · dt` in any direction.
///
/// The models are mixed before each prediction (the standard IMM mixing step), each is updated
/// with the input as a Kalman filter would, and their probabilities follow how well each
/// predicted the input. The output is the mixture's mean and the 68 % radius of its variance.
/// Standing still, the track averages many inputs and its radius shrinks; once the inputs move
/// away faster than drift explains, the walking model takes over within a scan or two and the
/// track follows without the lag of one slow filter.
///
/// The measurement variance, the correlation of close inputs, the gate on outliers and the gap
/// that restarts a track are those of ``ConstantVelocityFilter``, so both models of
/// ``MotionTracker`` treat their inputs alike.
struct StopAndGoFilter: Sendable {
    /// The tracked estimate after an input.
    struct Output: Hashable, Sendable {
        var x: Double, y: Double
        /// The mixture's variance per axis, units².
        var variance: Double
        var time: Double
    }

    /// One model's state.
    private struct Mode: Hashable, Sendable {
        var x: Double, y: Double
        /// Variance per axis, units².
        var variance: Double
    }

    /// The measurement handling shared with the constant-velocity filter.
    let measurement: ConstantVelocityFilter
    /// Per-axis variance a second while standing, units²/s.
    let stillDiffusion: Double
    /// Walking speed, units/s.
    let walkingSpeed: Double
    /// Probability of keeping one's mode over a second.
    let stay: Double

    private var modes: (still: Mode, walking: Mode)?
    private var stillProbability = 0.5
    private var outliers = 0
    private var support = 0
    private(set) var latest: Output?

    init(configuration: MotionTracker.Configuration, metresPerUnit: Double) {
        let m = metresPerUnit > 0 && metresPerUnit.isFinite ? metresPerUnit : 1
        func positive(_ value: Double, _ fallback: Double) -> Double { value > 0 && value.isFinite ? value : fallback }
        measurement = ConstantVelocityFilter(configuration: configuration, metresPerUnit: m)
        stillDiffusion = positive(configuration.stillDiffusion, 0.0025) / (m * m)
        walkingSpeed = positive(configuration.walkingSpeed, 1.4) / m
        let stay = configuration.modeStayProbability
        self.stay = stay.isFinite ? min(max(stay, 0.5), 0.999) : 0.9
    }

    mutating func reset() {
        modes = nil
        stillProbability = 0.5
        outliers = 0
        support = 0
        latest = nil
    }

    /// Takes in a position (`nil` or non-finite when the input has none) with its accuracy radius
    /// at `time`; returns the tracked estimate then, or `nil` when there is no track.
    mutating func step(x mx: Double?, y my: Double?, accuracy: Double, time: Double) -> Output? {
        let usable: (x: Double, y: Double)? = if let mx, let my, mx.isFinite, my.isFinite { (mx, my) } else { nil }
        let time = time.isFinite ? time : (latest?.time ?? 0)
        guard let current = modes, let last = latest else {
            guard let usable else { return nil }
            return start(x: usable.x, y: usable.y, accuracy: accuracy, time: time)
        }
        let elapsed = time - last.time
        guard abs(elapsed) <= measurement.maximumGap else {
            reset()
            guard let usable else { return nil }
            return start(x: usable.x, y: usable.y, accuracy: accuracy, time: time)
        }
        let dt = max(elapsed, 0)
        // Mixing: each model starts from the blend of both, weighted by how likely the person
        // was in each mode and kept or switched to this one.
        let keep = pow(stay, dt)
        let wasStill = stillProbability, wasWalking = 1 - stillProbability
        let toStill = keep * wasStill + (1 - keep) * wasWalking
        let toWalking = 1 - toStill
        func mixed(_ fromStill: Double, _ fromWalking: Double) -> Mode {
            let total = fromStill + fromWalking
            return Self.mixture(current.still, current.walking, firstWeight: total > 0 ? fromStill / total : 0.5)
        }
        var still = mixed(keep * wasStill, (1 - keep) * wasWalking)
        var walking = mixed((1 - keep) * wasStill, keep * wasWalking)
        // Prediction.
        still.variance += stillDiffusion * dt
        let step = walkingSpeed * dt
        walking.variance += step * step / 2
        guard let usable else {
            // Nothing to take in: the prediction, the modes' odds unchanged.
            modes = (still, walking)
            stillProbability = toStill
            return finish(time: time)
        }
        let r = measurement.variance(accuracy: accuracy) * measurement.inflation(dt: dt)
        // The gate: the input must fit the walking model, the wider of the two.
        let innovationWalking = Self.squaredDistance(walking, usable.x, usable.y)
        if !(innovationWalking / (walking.variance + r) <= measurement.gate) {
            outliers += 1
            if outliers >= measurement.restartAfter || support < 2 {
                return start(x: usable.x, y: usable.y, accuracy: accuracy, time: time)
            }
            modes = (still, walking)
            stillProbability = toStill
            return finish(time: time)
        }
        outliers = 0
        support += 1
        // Update each model; their log-likelihoods of the input (2-D isotropic normal).
        func updated(_ mode: Mode) -> (mode: Mode, logLikelihood: Double) {
            let s = mode.variance + r
            let gain = mode.variance / s
            let distance = Self.squaredDistance(mode, usable.x, usable.y)
            return (Mode(x: mode.x + gain * (usable.x - mode.x), y: mode.y + gain * (usable.y - mode.y),
                         variance: (1 - gain) * mode.variance),
                    -distance / (2 * s) - log(2 * Double.pi * s))
        }
        let (newStill, logStill) = updated(still)
        let (newWalking, logWalking) = updated(walking)
        let top = max(logStill, logWalking)
        let weightStill = toStill * exp(logStill - top), weightWalking = toWalking * exp(logWalking - top)
        let total = weightStill + weightWalking
        guard total > 0, total.isFinite, newStill.x.isFinite, newStill.y.isFinite,
              newWalking.x.isFinite, newWalking.y.isFinite else {
            return start(x: usable.x, y: usable.y, accuracy: accuracy, time: time)
        }
        modes = (newStill, newWalking)
        stillProbability = min(max(weightStill / total, 1e-9), 1 - 1e-9)
        return finish(time: time)
    }

    /// The probability that the person stands still, or `nil` with no track.
    var probabilityStill: Double? { modes == nil ? nil : stillProbability }

    /// The track predicted to `time` without an input: the latest position, its variance grown
    /// by each mode's motion weighted by the mode's probability; `nil` with no track or past the
    /// gap that would restart it. The filter itself does not move.
    func predicted(at time: Double) -> Output? {
        guard let latest, modes != nil else { return nil }
        let elapsed = time - latest.time
        guard elapsed.isFinite, elapsed <= measurement.maximumGap else { return nil }
        let dt = max(elapsed, 0), step = walkingSpeed * dt
        let variance = latest.variance + stillProbability * stillDiffusion * dt + (1 - stillProbability) * step * step / 2
        return Output(x: latest.x, y: latest.y, variance: variance, time: time)
    }

    private static func squaredDistance(_ mode: Mode, _ x: Double, _ y: Double) -> Double {
        let dx = x - mode.x, dy = y - mode.y
        return dx * dx + dy * dy
    }

    /// Two modes blended with weights `firstWeight` and 1 − `firstWeight`: the weighted mean, and
    /// the weighted variance around it (each mode's own plus its offset, halved per axis).
    private static func mixture(_ first: Mode, _ second: Mode, firstWeight a: Double) -> Mode {
        let b = 1 - a
        let x = a * first.x + b * second.x, y = a * first.y + b * second.y
        func spread(_ mode: Mode) -> Double {
            let dx = mode.x - x, dy = mode.y - y
            return mode.variance + (dx * dx + dy * dy) / 2
        }
        return Mode(x: x, y: y, variance: a * spread(first) + b * spread(second))
    }

    /// The mixture of the current modes at `time`.
    private mutating func finish(time: Double) -> Output? {
        guard let modes else { return nil }
        let blend = Self.mixture(modes.still, modes.walking, firstWeight: stillProbability)
        let output = Output(x: blend.x, y: blend.y, variance: blend.variance, time: time)
        latest = output
        return output
    }

    private mutating func start(x: Double, y: Double, accuracy: Double, time: Double) -> Output? {
        let variance = measurement.variance(accuracy: accuracy)
        modes = (Mode(x: x, y: y, variance: variance), Mode(x: x, y: y, variance: variance))
        stillProbability = 0.5
        outliers = 0
        support = 1
        return finish(time: time)
    }
}
