import ArgumentParser
import Whereabouts

/// How fixed receivers' reports are fused into each tag's scans: `--interval`, `--averaging`,
/// `--window`, `--lateness` (`fuse`, `eval --fuse`, `calibrate --fuse`, `bridge`).
struct FusionOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Seconds between a tag's scans.", valueName: "seconds"))
    var interval: Double = ReceiverFusion.Configuration().interval

    @Option(name: .long, help: ArgumentHelp("Seconds of a receiver's sightings one reading of a scan averages: at least --interval, at most --window (default 2, brought into that range).", valueName: "seconds"))
    var averaging: Double?

    @Option(name: .long, help: ArgumentHelp("Seconds a receiver's latest sighting of a tag stands in when it heard none in an interval; a tag nobody heard that long is away.", valueName: "seconds"))
    var window: Double = ReceiverFusion.Configuration().window

    @Option(name: .long, help: ArgumentHelp("Seconds a tag's scan waits for reports that arrive late.", valueName: "seconds"))
    var lateness: Double = ReceiverFusion.Configuration().lateness

    func validate() throws {
        guard interval >= 0.05, interval <= 3_600 else { throw ValidationError("--interval must lie in 0.05...3600 seconds, found \(interval).") }
        guard window >= interval, window <= 3_600 else {
            throw ValidationError("--window must be at least --interval (\(interval)) and at most 3600 seconds, found \(window).")
        }
        if let averaging, !(averaging >= interval && averaging <= window) {
            throw ValidationError("--averaging must lie between --interval (\(interval)) and --window (\(window)) seconds, found \(averaging).")
        }
        guard lateness >= 0, lateness <= 10 else { throw ValidationError("--lateness must lie in 0...10 seconds, found \(lateness).") }
    }

    /// The fusion's configuration.
    var configuration: ReceiverFusion.Configuration {
        ReceiverFusion.Configuration(interval: interval, window: window,
                                     averaging: averaging ?? ReceiverFusion.Configuration().averaging, lateness: lateness)
    }
}
