import ArgumentParser
import WhereaboutsTracking

/// The acceptance policy's settings on the command line (`track`).
struct AcceptancePolicyOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Ignore fixes whose accuracy radius is above this many metres.", valueName: "metres"))
    var maxAccuracy: Double = 100

    @Option(name: .long, help: ArgumentHelp(
        "A fix within its accuracy plus this many metres of the last event extends it instead of starting one.",
        valueName: "metres"))
    var minDistance: Double = 5

    @Option(name: .long, help: ArgumentHelp(
        "Start a new event at most once every this many seconds (of fix time).", valueName: "seconds"))
    var minInterval: Double = 0

    @Flag(name: .long, help: "Keep fixes at 0/0 (ignored by default: what a receiver reports when it knows nothing).")
    var keepNullPositions = false

    /// The policy these options describe.
    var policy: AcceptancePolicy {
        AcceptancePolicy(ignoresNullPosition: !keepNullPositions, maximumAccuracy: maxAccuracy, minimumDistance: minDistance,
                         minimumInterval: minInterval)
    }

    func validate() throws {
        if let problem = policy.problem { throw ValidationError(problem) }
    }
}
