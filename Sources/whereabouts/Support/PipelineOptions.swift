import ArgumentParser
import Whereabouts

/// How each device's scans are treated around the solver: `--rssi-filter`, `--tracking`,
/// `--smooth` and `--lag`. Shared by `locate` and `eval`, so that a pipeline scored with `eval` is the one
/// `locate` runs.
struct PipelineOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The per-beacon RSSI filter: kalman (a scalar Kalman filter, gain about 0.28) or none (each beacon's latest reading as it is).",
        valueName: "kalman|none"))
    var rssiFilter: String = "kalman"

    @Option(name: .long, help: ArgumentHelp(
        "Track each device's fixes: none, constant-velocity (a Kalman filter with gating and a speed limit) or stop-and-go (standing still or walking; pair it with --rssi-filter none).",
        valueName: "none|constant-velocity|stop-and-go"))
    var tracking: String = "none"

    @Flag(name: .long, help: ArgumentHelp(
        "Smooth each track offline, with the scans after each fix too (the --tracking model; constant-velocity when none): fixes come out a track at a time, once each device's track has ended."))
    var smooth = false

    @Option(name: .long, help: ArgumentHelp(
        "Report each fix SECONDS late, smoothed with the scans of those seconds (the --tracking model, run forwards and back; constant-velocity when none). Works on live scans too.",
        valueName: "seconds"))
    var lag: Double?

    /// Whether fixes are smoothed with later scans (`--smooth` or `--lag`).
    var smoothsTracks: Bool { smooth || lag != nil }

    func validate() throws {
        if let lag, !(lag.isFinite && lag >= 0) { throw ValidationError("--lag must be a number of seconds, 0 or more.") }
        if smooth, lag != nil { throw ValidationError("--smooth uses every later scan and --lag only those of the next seconds: give one of them.") }
        guard ["kalman", "none"].contains(rssiFilter) else {
            throw ValidationError("--rssi-filter must be kalman or none.")
        }
        guard tracking == "none" || MotionTracker.Configuration.Model(rawValue: tracking) != nil else {
            throw ValidationError("--tracking must be none, constant-velocity or stop-and-go.")
        }
    }

    /// The per-device configuration the options describe. Smoothing without a tracking model
    /// smooths with the constant-velocity one.
    var configuration: LocatorConfiguration {
        var model = MotionTracker.Configuration.Model(rawValue: tracking)
        if smoothsTracks, model == nil { model = .constantVelocity }
        return LocatorConfiguration(filter: rssiFilter == "none" ? nil : LocatorConfiguration.defaultFilter,
                                    tracking: model.map { MotionTracker.Configuration(model: $0) })
    }
}
