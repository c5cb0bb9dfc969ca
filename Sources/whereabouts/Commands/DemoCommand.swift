import ArgumentParser
import Foundation
import Whereabouts

/// `whereabouts demo`
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the bundled example end to end, in a few seconds.",
        discussion: HelpText.fitting("""
        A visitor walks through a trade-fair campus (the halls of the Hekaerge sample, Examples/). \
        The walk is simulated with a realistic radio model. A site survey (the same walk, another \
        seed) calibrates the path-loss model and trains the fingerprints; then every scan of the \
        visit goes through the positioning engine (per-beacon filters, floor selection, the default \
        solver) and each fix is compared with where the visitor really was.

        Examples:
          whereabouts demo
          whereabouts demo --seed 7 --every 30
        """)
    )

    @Option(name: .long, help: "Seed of the visit (42 gives Examples/visit.jsonl).")
    var seed: UInt64 = 42

    @Option(name: .long, help: ArgumentHelp("Print a timeline line this often, seconds (besides every change of the true place or of the fix's floor).", valueName: "seconds"))
    var every: Double = 30

    func run() throws {
        let preset = SimulationPreset.example
        let venue = preset.venue, walk = preset.walk, radio = preset.radio
        let surveySeed = seed &+ 1000
        // What needs no work is said at once: the survey and the set-up take seconds in a debug build.
        print("Whereabouts demo: the bundled example (Examples/)\n")
        print("Venue    \(venue.name ?? "unnamed"): \(venue.floors.count.counted("floor")), \(venue.beacons.count.counted("beacon")), "
              + "\(venue.places.count.counted("place")) (\(venue.places.map(\.id).joined(separator: ", ")))")
        print("Visitor  \(walk.waypoints.count) waypoints at \(walk.speed.formatted(1)) m/s, \(walk.duration.formatted(0)) s, simulated with seed \(seed)")
        print("Radio    readings scattered by \(radio.shadowing.formatted(1)) dB (shadowing), "
              + "\((radio.multipathShare * 100).formatted(0)) % of them \(radio.multipathLoss.formatted(0)) dB weaker (multipath fades), "
              + "\((radio.packetLoss * 100).formatted(0)) % of packets lost, \(radio.floorAttenuation.formatted(0)) dB lost "
              + "through each floor, nothing heard below \(radio.sensitivity.formatted(0)) dBm")
        print("Survey   simulating a site survey, then calibrating and training on it (seconds in a debug build)…")
        fflush(nil)   // every C stream: standard output is buffered in a pipe
        let survey = Array(preset.simulator(seed: surveySeed))
        let setup = PositioningAlgorithm.default.setup(venue: venue, training: survey)
        var pipeline = setup.makePipeline()
        let places = PlaceLocator(venue)
        if let fit = setup.calibration?.venueFit {
            print("Survey   \(survey.count) scans (seed \(surveySeed)) fit the path-loss model — a beacon reads "
                  + "\(fit.txPower.formatted(1)) dBm at 1 m, fading with distance to the power n = \(fit.pathLossExponent.formatted(2)) "
                  + "(the simulation used −59 dBm and 2) — and train the fingerprints")
        }
        print("\nTimeline: where the visitor really is, and the fix (accuracy = radius holding the truth 68 % of the time)")
        print(pad("time", 7) + pad("true place", 12) + pad("floor", 6) + pad("fix x, y (m)", 18) + pad("floor", 6)
              + pad("accuracy", 10) + pad("error", 9) + "fix's place")

        var evaluation = Evaluation()
        var start: Double?
        var lastPrinted = -Double.infinity
        var lastKey = ""
        var visited: [String] = []
        for scan in preset.simulator(seed: seed) {
            var fix: Fix?
            pipeline.add(scan) { fix = $0 }
            let fixPlace = fix.flatMap { places.place(containing: $0.point.planar, floor: $0.floor ?? 0)?.id }
            evaluation.add(truth: scan.truth, fix: fix, place: fixPlace)
            let truePlace = scan.truth?.place
            if let place = truePlace, visited.last != place { visited.append(place) }

            let t0 = start ?? scan.time
            start = t0
            let elapsed = scan.time - t0
            let key = "\(truePlace ?? "-")|\(fix?.floor ?? -99)"
            guard key != lastKey || elapsed - lastPrinted >= every else { continue }
            lastKey = key
            lastPrinted = elapsed
            var line = pad("\(elapsed.formatted(0)) s", 7) + pad(truePlace ?? "(outside)", 12)
                + pad(scan.truth?.floor.map(String.init) ?? "-", 6)
            if let fix {
                line += pad("\(fix.point.x.formatted(1)), \(fix.point.y.formatted(1))", 18) + pad(fix.floor.map(String.init) ?? "-", 6)
                line += pad("\(fix.accuracy.formatted(1)) m", 10)
                if let truth = scan.truth?.planarPoint {
                    line += pad("\(fix.point.planar.distance(to: truth).formatted(1)) m", 9)
                } else {
                    line += pad("-", 9)
                }
                line += (fixPlace ?? "(outside)") + (truePlace == nil ? "" : fixPlace == truePlace ? "  ✓" : "  ✗")
            } else {
                line += "no fix: nothing heard"
            }
            print(line)
        }

        let report = evaluation.report(dataset: "example", algorithm: setup.solver.name, units: venue.units)
        print("\nSummary (seed \(seed))")
        print("  the visitor went through \(visited.joined(separator: " → "))")
        print("  \(report.located) of \(report.scans) scans located")
        if let error = report.error {
            print("  error against the truth: mean \(error.mean.formatted(1)) m, median \(error.median.formatted(1)) m, "
                  + "p95 \(error.p95.formatted(1)) m (the halls are 100–210 m across, with 3 beacons each)")
        }
        if let coverage = report.accuracyCoverage {
            print("  the truth lay inside the accuracy radius for \((coverage * 100).formatted(1)) % of the fixes: the radius is "
                  + "sized to hold it 68 % of the time over many visits (58–78 % is the band it is held to); the fixes "
                  + "of one visit share its walk and its radio, so one visit alone can fall outside the band")
        }
        if let floor = report.floorAccuracy { print("  floor right in \((floor * 100).formatted(1)) % of scans") }
        if let place = report.placeAccuracy { print("  hall right in \((place * 100).formatted(1)) % of the scans inside a hall") }
        let tool = Terminal.invocation
        print("\nNext: \(tool) eval --venue Examples/venue.json --test Examples/visit.jsonl --algorithm all")
        print("      \(tool) locate --venue Examples/venue.json --recording Examples/visit.jsonl -o fixes.jsonl")
        print("      \(tool) users add alice --data-dir data     (a user of your own server: prints alice's token)")
        print("      \(tool) serve --data-dir data --venue Examples/venue.json   (the server and its map; the README's "
              + "\"self-hosted tracking server\" goes on from there)")
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
