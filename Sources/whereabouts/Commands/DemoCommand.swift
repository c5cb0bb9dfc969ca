import ArgumentParser
import Foundation
import Whereabouts

/// `whereabouts demo`
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the bundled example end to end, in a few seconds.",
        discussion: """
        A visitor walks through a trade-fair campus (the halls of the Hekaerge sample, Examples/). \
        The walk is simulated with a realistic radio model; each scan goes through the signal layer \
        (a Kalman filter per beacon, the log-distance model, proximity), the hall of the strongest \
        beacon is compared with where the visitor really was, and the path-loss model is calibrated \
        back from the recording.

        Examples:
          whereabouts demo
          whereabouts demo --seed 7 --every 30
        """
    )

    @Option(name: .long, help: "Seed of the simulation (42 gives Examples/visit.jsonl).")
    var seed: UInt64 = 42

    @Option(name: .long, help: ArgumentHelp("Also print a timeline line this often, seconds (besides every change).", valueName: "seconds"))
    var every: Double = 60

    func run() throws {
        let preset = SimulationPreset.example
        let venue = preset.venue, walk = preset.walk, radio = preset.radio
        let simulator = preset.simulator(seed: seed)
        let locator = PlaceLocator(venue)
        let directory = BeaconDirectory(venue)
        let beaconPlaces: [String?] = venue.beacons.map { beacon in
            guard let x = beacon.x, let y = beacon.y else { return nil }
            return locator.place(containing: PlanarPoint(x: x, y: y), floor: beacon.floor ?? 0)?.id
        }

        print("Whereabouts demo: the bundled example (Examples/)\n")
        print("Venue    \(venue.name ?? "unnamed"): \(venue.floors.count) floors, \(venue.beacons.count) beacons, "
              + "\(venue.places.count) places (\(venue.places.map(\.id).joined(separator: ", ")))")
        print("Visitor  \(walk.waypoints.count) waypoints at \(walk.speed.formatted(1)) m/s, \(walk.duration.formatted(0)) s, simulated with seed \(seed)")
        print("Radio    σ \(radio.shadowing.formatted(1)) dB shadowing, \((radio.multipathShare * 100).formatted(0)) % multipath fades of "
              + "\(radio.multipathLoss.formatted(0)) dB, \((radio.packetLoss * 100).formatted(0)) % packet loss, "
              + "\(radio.floorAttenuation.formatted(0)) dB per floor, nothing below \(radio.sensitivity.formatted(0)) dBm\n")

        print("Timeline: where the visitor really is, and what the strongest beacon (Kalman-filtered) says")
        print(pad("time", 7) + pad("true place", 13) + pad("floor", 6) + pad("heard", 6)
              + pad("strongest", 11) + pad("filtered", 10) + pad("distance", 10) + pad("proximity", 11) + "its hall")

        var filters = RSSIFilterBank<Int, KalmanRSSIFilter>(prototype: KalmanRSSIFilter())
        var calibration = Calibration(venue: venue)
        var start: Double?
        var lastPrinted = -Double.infinity
        var lastKey = ""
        var scans = 0, readings = 0, silent = 0
        var withPlace = 0, hallRight = 0, floorRight = 0, withFloor = 0
        var visited: [String] = []

        for scan in simulator {
            scans += 1
            readings += scan.readings.count
            if scan.readings.isEmpty { silent += 1 }
            calibration.add(scan)
            let t0 = start ?? scan.time
            start = t0
            for reading in scan.readings {
                guard let index = directory.index(for: reading.beacon) else { continue }
                filters.add(rssi: reading.rssi, for: index, at: scan.time)
            }
            filters.removeExpired(at: scan.time)
            let strongest = filters.values(at: scan.time).max { $0.value < $1.value }
            let truePlace = scan.truth?.place
            if let place = truePlace, visited.last != place { visited.append(place) }
            let estimatedPlace = strongest.flatMap { beaconPlaces[$0.key] }
            let estimatedFloor = strongest.map { venue.beacons[$0.key].floor ?? 0 }
            if let truePlace {
                withPlace += 1
                if estimatedPlace == truePlace { hallRight += 1 }
            }
            if let floor = scan.truth?.floor {
                withFloor += 1
                if estimatedFloor == floor { floorRight += 1 }
            }

            let key = "\(truePlace ?? "-")|\(estimatedPlace ?? "-")"
            let elapsed = scan.time - t0
            guard key != lastKey || elapsed - lastPrinted >= every else { continue }
            lastKey = key
            lastPrinted = elapsed
            var line = pad("\(elapsed.formatted(0)) s", 7) + pad(truePlace ?? "(outside)", 13)
                + pad(scan.truth?.floor.map(String.init) ?? "-", 6) + pad("\(scan.readings.count)", 6)
            if let strongest {
                let beacon = venue.beacons[strongest.key]
                let txPower = beacon.txPower ?? venue.defaults.txPower
                let model = LogDistancePathLossModel(exponent: beacon.pathLossExponent ?? venue.defaults.pathLossExponent)
                    ?? LogDistancePathLossModel()
                let range = model.range(rssi: strongest.value, txPower: txPower, rssiStandardDeviation: radio.shadowing)
                line += pad(beacon.id, 11) + pad("\(strongest.value.formatted(1)) dBm", 10)
                line += pad(range.map { "\($0.distance.formatted(1)) m" } ?? "?", 10)
                line += pad(Proximity(range).rawValue, 11)
                let hall = estimatedPlace ?? "(none)"
                line += hall + (truePlace == nil ? "" : estimatedPlace == truePlace ? "  ✓" : "  ✗")
            } else {
                line += "nothing heard for \(Int(filters.timeout)) s"
            }
            print(line)
        }

        print("\nSummary")
        print("  \(scans) scans, \(readings) readings; \(silent) scans heard nothing")
        print("  the visitor went through \(visited.joined(separator: " → "))")
        if withPlace > 0 {
            print("  hall of the strongest beacon = true hall in \(percent(hallRight, of: withPlace)) of the \(withPlace) scans inside a hall")
        }
        if withFloor > 0 {
            print("  floor of the strongest beacon = true floor in \(percent(floorRight, of: withFloor)) of \(withFloor) scans")
        }
        do {
            let fit = try calibration.result().venueFit
            print("  calibrated back from the recording: txPower \(fit.txPower.formatted(1)) dBm, n \(fit.pathLossExponent.formatted(2)) "
                  + "(simulated: \(venue.defaults.txPower.formatted(0)) dBm, n \(venue.defaults.pathLossExponent.formatted(1))), "
                  + "residual σ \(fit.robustSigma.formatted(1)) dB")
        } catch {
            print("  calibration: \(error)")
        }
        print("\nPositions with an accuracy radius come from the positioning engine (not yet in this build).")
        print("Next: whereabouts validate --venue Examples/venue.json Examples/visit.jsonl")
        print("      whereabouts calibrate --venue Examples/venue.json --recording Examples/visit.jsonl")
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    private func percent(_ part: Int, of whole: Int) -> String {
        "\((Double(part) / Double(whole) * 100).formatted(1)) %"
    }
}
