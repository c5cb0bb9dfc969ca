import ArgumentParser
import Whereabouts

/// How each device's scans are treated around the solver: `--rssi-filter`, `--tracking`,
/// `--smooth` and `--lag`. Shared by `locate` and `eval`, so that a pipeline scored with `eval` is the one
/// `locate` runs.
struct PipelineOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The per-beacon RSSI filter. Without it or --tracking, the default algorithm chooses between kalman without tracking and none with stop-and-go, by their error on its validation replay; the other algorithms use kalman.",
        valueName: "kalman|none"))
    var rssiFilter: RSSIFilter?

    @Option(name: .long, help: ArgumentHelp(
        "Track each device's fixes. Default: none, or the default algorithm's choice (see --rssi-filter).",
        valueName: "none|constant-velocity|stop-and-go"))
    var tracking: Tracking?

    @Flag(name: .long, help: ArgumentHelp(
        "Smooth each track offline, with the scans after each fix too (the --tracking model; constant-velocity when none; --algorithm posterior smooths its own posterior over the venue): fixes come out a track at a time, once each device's track has ended."))
    var smooth = false

    @Option(name: .long, help: ArgumentHelp(
        "Report each fix SECONDS late, smoothed with the scans of those seconds (the --tracking model, run forwards and back; constant-velocity when none; --algorithm posterior smooths its own posterior over the venue). Works on live scans too.",
        valueName: "seconds"))
    var lag: Double?

    @Flag(name: .long, help: ArgumentHelp(
        "Say on standard error which RSSI filter and tracking the default algorithm chose, and its error on the data it chose by."))
    var verbose = false

    /// Whether fixes are smoothed with later scans (`--smooth` or `--lag`).
    var smoothsTracks: Bool { smooth || lag != nil }

    func validate() throws {
        if let lag, !(lag.isFinite && lag >= 0) { throw ValidationError("--lag must be a number of seconds, 0 or more.") }
        if smooth, lag != nil { throw ValidationError("--smooth uses every later scan and --lag only those of the next seconds: give one of them.") }
    }

    /// The values of `--rssi-filter`.
    enum RSSIFilter: String, CaseIterable, ExpressibleByArgument {
        /// A scalar Kalman filter per beacon.
        case kalman
        /// Each beacon's latest reading as it is (`none`).
        case unfiltered = "none"

        /// What each filter does, for the help.
        static var allValueDescriptions: [String: String] {
            ["kalman": "a scalar Kalman filter, gain about 0.28", "none": "each beacon's latest reading as it is"]
        }
    }

    /// The values of `--tracking`: no tracking, or a motion model.
    enum Tracking: Hashable, ExpressibleByArgument {
        /// Each fix as the solver gives it (`none`).
        case untracked
        /// Fixes tracked with the model.
        case model(MotionTracker.Configuration.Model)

        /// The value named `argument`: `none` or a model's name.
        init?(argument: String) {
            if argument == "none" {
                self = .untracked
            } else if let model = MotionTracker.Configuration.Model(argument: argument) {
                self = .model(model)
            } else {
                return nil
            }
        }

        /// Every name the option accepts: `none`, then the models'.
        static var allValueStrings: [String] { ["none"] + MotionTracker.Configuration.Model.allValueStrings }

        /// What each value does, for the help.
        static var allValueDescriptions: [String: String] {
            [
                "none": "each fix as the solver gives it",
                MotionTracker.Configuration.Model.constantVelocity.rawValue: "a Kalman filter with gating and a speed limit",
                MotionTracker.Configuration.Model.stopAndGo.rawValue: "standing still or walking; pair it with --rssi-filter none",
            ]
        }

        /// The value's name on the command line.
        var defaultValueDescription: String {
            switch self {
            case .untracked: "none"
            case .model(let model): model.rawValue
            }
        }

        /// The motion model, if any.
        var model: MotionTracker.Configuration.Model? {
            switch self {
            case .untracked: nil
            case .model(let model): model
            }
        }
    }

    /// Whether the default algorithm chooses the filter and tracking (neither option given).
    var choosesFilterAndTracking: Bool { rssiFilter == nil && tracking == nil }

    /// The per-device configuration the options describe. Smoothing with `--tracking none`
    /// smooths with the constant-velocity model (so does smoothing an untracked choice).
    var configuration: LocatorConfiguration {
        var model = tracking?.model
        if smoothsTracks, model == nil, !choosesFilterAndTracking { model = .constantVelocity }
        var configuration = LocatorConfiguration(filter: rssiFilter == .unfiltered ? nil : LocatorConfiguration.defaultFilter,
                                                 tracking: model.map { MotionTracker.Configuration(model: $0) })
        configuration.choosesFilterAndTracking = choosesFilterAndTracking
        return configuration
    }

    /// When the fixes come out: `--lag` a fixed lag, `--smooth` a whole track at a time, else at once.
    var timing: FixPipeline.Timing {
        if let lag { return .fixedLag(seconds: lag) }
        return smooth ? .wholeTrack() : .immediate
    }

    /// What the default algorithm chose, in the options' words, when it chose and `--verbose` asks
    /// (`nil` otherwise or for another solver): for a note on standard error.
    func choice(of setup: PositioningSetup, units: String) -> String? {
        guard verbose, let validated = setup.chosenPipeline else { return nil }
        let options = "--rssi-filter \(validated.filter == nil ? "none" : "kalman") --tracking \(validated.tracking?.model.rawValue ?? "none")"
        let error = validated.validationError.map { String(format: "%.2f %@", $0, units) }
        let how: String
        if validated.isSimulatedSurvey {
            how = "the better of its candidates on a simulated survey of the venue's places"
                + (error.map { " (mean error \($0) there: walks between places under persistent shadowing, harder than most visits; "
                    + "it ranks the candidates, it does not predict this recording's error)" } ?? "")
        } else {
            how = "the better of its candidates on the training recording, by held-out blocks of space"
                + (error.map { " (mean error \($0) there; visitors with other phones, who stop and walk between "
                    + "survey points, usually err more)" } ?? "")
        }
        let settings = (setup.solver as? PosteriorSolver).map { "; " + $0.settingsDescription } ?? ""
        return "\(setup.solver.name): \(options), \(how)\(settings); give --rssi-filter or --tracking to decide yourself."
    }
}
