import ArgumentParser
import Foundation
import Whereabouts

/// `whereabouts simulate`
struct SimulateCommand: LongWorkCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Simulate a walk through a venue and write the recording, with ground truth.",
        discussion: HelpText.fitting("""
        The radio model is log-distance path loss with log-normal shadowing, multipath fades, packet \
        loss, walls (polygon places) and floors. The same seed always gives the same recording. \
        --persistent-shadowing adds what real buildings have and per-sample noise lacks: an offset \
        per beacon that depends on where the receiver is, kept while it stands and changing over \
        --shadowing-distance; give a survey and a walk the same --field-seed and they meet the same \
        building.

        --family draws a whole venue from --seed instead (rooms or grid cells, one or two floors, \
        beacons from sparse to dense, each beacon's true calibration off the venue file's, phones \
        with their own gain and RSSI slope, a survey every 2–3 m or, on a third of the venues, \
        every 1–1.5 m) and writes into --directory its venue.json, a site survey \
        (train.jsonl) and two visitors' walks with other phones (test.jsonl): a venue no setting \
        was chosen on, to check that accuracy holds (Scripts/generalization.sh runs a range of seeds).

        --receivers turns it around: the venue's receivers (or its beacons, taken as receivers) \
        listen and the walker carries a tag, and the output is each receiver's reports as they \
        reach `whereabouts fuse` (FORMATS.md §8): every --interval seconds from a phase of its own \
        (± 0.1 s), stamped with its own clock (off by up to --clock-offset seconds), arriving 0.02–0.2 s \
        later, --report-loss of them lost and --duplicates of them twice; --export-venue then writes \
        the venue with its receivers; with --family it also writes receivers.json, reports.jsonl \
        (the visitors' phones as tags) and train-reports.jsonl (the survey). Without --receivers \
        the same walk gives the ideal recording (every receiver's RSSI at once, each second) to \
        compare the fusion with.

        Presets: \(SimulationPreset.allCases.map(\.name).joined(separator: ", ")). \
        "example" is the bundled example (Examples/); "espresense-room" is ESPresense's accuracy \
        scenario: 4 receivers in a 6 × 4 m room, σ 2.5 dB, 10 % of samples 6 dB down.

        Examples:
          whereabouts simulate --preset example --seed 42 -o visit.jsonl
          whereabouts simulate --venue venue.json --walk walk.json --seed 7 --shadowing 4 -o walk.jsonl
          whereabouts simulate --preset espresense-room --seed 1 --export-venue room.json -o room.jsonl
          whereabouts simulate --venue venue.json --walk survey.json --seed 1 --persistent-shadowing 4 --field-seed 9 -o train.jsonl
          whereabouts simulate --venue venue.json --walk visit.json --seed 2 --persistent-shadowing 4 --field-seed 9 -o test.jsonl
          whereabouts simulate --family --seed 6 --directory family-6
          whereabouts simulate --preset espresense-room --seed 1 --receivers --export-venue room.json -o reports.jsonl
        """)
    )

    @Option(name: .long, help: ArgumentHelp("A built-in scenario (venue, walk and radio model).", valueName: "name"))
    var preset: SimulationPreset?

    @Option(name: .long, help: ArgumentHelp("The venue to walk through (with --walk).", valueName: "venue.json"))
    var venue: String?

    @Option(name: .long, help: ArgumentHelp("The walk: waypoints, speed and dwell times (with --venue).", valueName: "walk.json"))
    var walk: String?

    @Option(name: .long, help: "Seed of the random numbers.")
    var seed: UInt64 = 0

    @Flag(name: .long, help: "Draw a whole venue of the simulated family from --seed (with --directory).")
    var family = false

    @Option(name: .long, help: ArgumentHelp("With --family: write venue.json, train.jsonl and test.jsonl here.", valueName: "directory"))
    var directory: String?

    @Option(name: .shortAndLong, help: ArgumentHelp("Write the recording here (default: standard output).", valueName: "out.jsonl"))
    var output: String?

    @Option(name: .long, help: ArgumentHelp("Also write the preset's venue here (to locate or evaluate the recording).", valueName: "venue.json"))
    var exportVenue: String?

    @Option(name: .long, help: ArgumentHelp("Log-normal shadowing σ, dB (default 3, or the preset's).", valueName: "dB"))
    var shadowing: Double?

    @Option(name: .long, help: ArgumentHelp("Persistent shadowing σ, dB: an offset per beacon that depends on where the receiver is (default 0).", valueName: "dB"))
    var persistentShadowing: Double?

    @Option(name: .long, help: ArgumentHelp("Distance over which the persistent shadowing changes, venue units (default 2).", valueName: "distance"))
    var shadowingDistance: Double?

    @Option(name: .long, help: ArgumentHelp("Seed of the persistent shadowing field (default: --seed).", valueName: "seed"))
    var fieldSeed: UInt64?

    @Option(name: .long, help: ArgumentHelp("Share of samples hit by a multipath fade, 0–1 (default 0.1).", valueName: "share"))
    var multipathShare: Double?

    @Option(name: .long, help: ArgumentHelp("Depth of a multipath fade, dB (default 6).", valueName: "dB"))
    var multipathLoss: Double?

    @Option(name: .long, help: ArgumentHelp("Share of packets lost, 0–1 (default 0.05).", valueName: "share"))
    var packetLoss: Double?

    @Option(name: .long, help: ArgumentHelp("Seconds between scans (default 1).", valueName: "seconds"))
    var interval: Double?

    @Option(name: .long, help: ArgumentHelp("Loss per wall (polygon edge) crossed, dB (default 0).", valueName: "dB"))
    var wallLoss: Double?

    @Option(name: .long, help: ArgumentHelp("Loss per floor between beacon and receiver, dB (default 15).", valueName: "dB"))
    var floorLoss: Double?

    @Option(name: .long, help: ArgumentHelp("Weakest RSSI heard, dBm (default -100).", valueName: "dBm"))
    var sensitivity: Double?

    @Option(name: .long, help: ArgumentHelp("The receiver's own gain over the beacons' calibration, dB (default 0).", valueName: "dB"))
    var deviceOffset: Double?

    @Option(name: .long, help: ArgumentHelp(
        "How steeply the receiver's RSSI falls with distance, walls and floors against the beacons' calibration, 0.5–2 (default 1; phones differ by about ±10 %).",
        valueName: "factor"))
    var deviceGain: Double?

    @Flag(name: .long, help: "Keep fractional RSSI instead of rounding to whole dBm as phones do.")
    var fractionalRSSI = false

    @Flag(name: .long, help: "Fixed receivers hear a tag the walker carries: write each receiver's reports (FORMATS.md §8).")
    var receivers = false

    @Option(name: .long, help: ArgumentHelp("With --receivers: how far each receiver's clock may be off, either way, seconds (default 0.5).", valueName: "seconds"))
    var clockOffset: Double?

    @Option(name: .long, help: ArgumentHelp("With --receivers: share of reports lost on the way, 0–1 (default 0.1).", valueName: "share"))
    var reportLoss: Double?

    @Option(name: .long, help: ArgumentHelp("With --receivers: share of reports that arrive twice, 0–1 (default 0.05).", valueName: "share"))
    var duplicates: Double?

    /// Whether any option of the radio model was given.
    private var setsRadio: Bool {
        let values: [Double?] = [shadowing, persistentShadowing, shadowingDistance, multipathShare, multipathLoss, packetLoss,
                                 interval, wallLoss, floorLoss, sensitivity, deviceOffset, deviceGain]
        return values.contains { $0 != nil } || fieldSeed != nil || fractionalRSSI
    }

    func validate() throws {
        if family {
            guard preset == nil, venue == nil, walk == nil, output == nil, exportVenue == nil else {
                throw ValidationError("--family draws its own venue and walks: give it only --seed and --directory (and --receivers with its options).")
            }
            guard directory != nil else { throw ValidationError("--family needs --directory, where its three files go.") }
            guard !setsRadio else { throw ValidationError("--family draws its own radio model: leave out the radio options.") }
        } else if directory != nil {
            throw ValidationError("--directory goes with --family; write a recording with -o.")
        }
        if !receivers, clockOffset != nil || reportLoss != nil || duplicates != nil {
            throw ValidationError("--clock-offset, --report-loss and --duplicates go with --receivers.")
        }
        if family { return }
        if let clockOffset, !(0...3_600).contains(clockOffset) { throw ValidationError("--clock-offset must lie in 0...3600 seconds.") }
        for (name, value) in [("--report-loss", reportLoss), ("--duplicates", duplicates)] {
            if let value, !(0...1).contains(value) { throw ValidationError("\(name) must lie between 0 and 1.") }
        }
        if preset != nil && (venue != nil || walk != nil) {
            throw ValidationError("Give either --preset or --venue with --walk, not both.")
        }
        if preset == nil && (venue == nil || walk == nil) {
            throw ValidationError("Give --preset NAME, or --venue and --walk. Presets: \(SimulationPreset.allCases.map(\.name).joined(separator: ", ")).")
        }
        for (name, value) in [("--multipath-share", multipathShare), ("--packet-loss", packetLoss)] {
            if let value, !(0...1).contains(value) { throw ValidationError("\(name) must lie between 0 and 1.") }
        }
        if let shadowing, !(shadowing >= 0) { throw ValidationError("--shadowing must be 0 or more.") }
        if let persistentShadowing, !(persistentShadowing >= 0 && persistentShadowing.isFinite) {
            throw ValidationError("--persistent-shadowing must be 0 or more.")
        }
        if let shadowingDistance, !(shadowingDistance > 0 && shadowingDistance.isFinite) {
            throw ValidationError("--shadowing-distance must be positive.")
        }
        if let interval, !(interval > 0) { throw ValidationError("--interval must be positive.") }
        if let deviceOffset, !deviceOffset.isFinite { throw ValidationError("--device-offset must be a number of dB.") }
        if let deviceGain, !(0.5...2).contains(deviceGain) { throw ValidationError("--device-gain must lie between 0.5 and 2.") }
    }

    @OptionGroup var progressOptions: ProgressOptions

    func work() throws {
        if family, let directory { return try writeFamilyMember(into: directory) }
        var simulator: Simulator
        if let preset {
            simulator = preset.simulator(seed: seed)
        } else if let venue, let walk {
            let radio = RadioModel(shadowing: 3, multipathShare: 0.1, multipathLoss: 6, packetLoss: 0.05, floorAttenuation: 15)
            simulator = Simulator(venue: try InputFiles.venue(at: venue), walk: try InputFiles.walk(at: walk),
                                  radio: radio, seed: seed, truthDecimalPlaces: 2)
        } else {
            return
        }
        if let shadowing { simulator.radio.shadowing = shadowing }
        if let persistentShadowing { simulator.radio.persistentShadowing = persistentShadowing }
        if let shadowingDistance { simulator.radio.shadowingCorrelationDistance = shadowingDistance }
        if let fieldSeed { simulator.radio.shadowingFieldSeed = fieldSeed }
        if let multipathShare { simulator.radio.multipathShare = multipathShare }
        if let multipathLoss { simulator.radio.multipathLoss = multipathLoss }
        if let packetLoss { simulator.radio.packetLoss = packetLoss }
        if let interval { simulator.radio.scanInterval = interval }
        if let wallLoss { simulator.radio.wallAttenuation = wallLoss }
        if let floorLoss { simulator.radio.floorAttenuation = floorLoss }
        if let sensitivity { simulator.radio.sensitivity = sensitivity }
        if let deviceOffset { simulator.radio.receiverOffset = deviceOffset }
        if let deviceGain { simulator.radio.receiverGain = deviceGain }
        if fractionalRSSI { simulator.radio.roundsRSSI = false }

        if receivers { return try writeReports(of: simulator) }
        if let exportVenue {
            try VenueFile.write(simulator.venue, to: URL(fileURLWithPath: exportVenue))
        }
        let writer = try output.map { try RecordingWriter(url: URL(fileURLWithPath: $0)) }
            ?? RecordingWriter(handle: FileHandle.standardOutput)
        let readings = try write([simulator], to: writer)
        if let output {
            Terminal.error("Wrote \(output): \(writer.scansWritten.counted("scan")), \(readings.counted("reading")), seed \(seed).")
        }
    }

    /// Writes the reports of fixed receivers hearing the walker's tag (`--receivers`).
    private func writeReports(of simulator: Simulator) throws {
        let network = self.network(reportInterval: simulator.radio.scanInterval)
        let reports = ReceiverReportSimulator(venue: simulator.venue, walk: simulator.walk, radio: simulator.radio,
                                              network: network, seed: seed)
        if let exportVenue {
            try VenueFile.write(reports.receiverVenue, to: URL(fileURLWithPath: exportVenue))
        }
        let writer = try output.map { try RecordingWriter(url: URL(fileURLWithPath: $0)) }
            ?? RecordingWriter(handle: FileHandle.standardOutput)
        for report in reports.reports() { try writer.write(report) }
        try writer.finish()
        if let output {
            Terminal.error("Wrote \(output): \(writer.scansWritten.counted("report")) of \(reports.receiverVenue.receivers.count.counted("receiver")), seed \(seed).")
        }
    }

    /// Writes the scans of `simulators`, one after the other, and finishes the writer; returns
    /// how many readings were written.
    private func write(_ simulators: [Simulator], to writer: RecordingWriter) throws -> Int {
        var progress = Progress("simulating", total: simulators.reduce(0) { $0 + $1.scanCount })
        var readings = 0
        for simulator in simulators {
            for scan in simulator {
                try writer.write(scan)
                readings += scan.readings.count
                progress.update(writer.scansWritten)
            }
        }
        try writer.finish()
        progress.finish()
        return readings
    }

    /// The family's member `seed`: its venue, survey and visits written into `directory`.
    private func writeFamilyMember(into directory: String) throws {
        let member = SimulatedVenue(familySeed: seed)
        let folder = URL(fileURLWithPath: directory, isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try VenueFile.write(member.venue, to: folder.appendingPathComponent("venue.json"))
        let train = try RecordingWriter(url: folder.appendingPathComponent("train.jsonl"))
        _ = try write([member.survey], to: train)
        let test = try RecordingWriter(url: folder.appendingPathComponent("test.jsonl"))
        _ = try write(member.visits, to: test)
        Terminal.error("Wrote \(directory)/venue.json, train.jsonl (\(train.scansWritten.counted("scan"))) and "
            + "test.jsonl (\(test.scansWritten.counted("scan"))): family seed \(seed), \(member.summary).")
        guard receivers else { return }
        // The same walks heard by the beacons taken as fixed receivers, the visitors' phones as tags.
        let network = self.network(reportInterval: member.survey.radio.scanInterval)
        let visits = ReceiverReportSimulator(venue: member.venue, visits: member.visits.map { .init(walk: $0.walk, radio: $0.radio) },
                                             network: network, seed: seed)
        let survey = ReceiverReportSimulator(venue: member.venue, walk: member.survey.walk, radio: member.survey.radio,
                                             network: network, seed: seed &+ 1)
        try VenueFile.write(visits.receiverVenue, to: folder.appendingPathComponent("receivers.json"))
        let reports = try RecordingWriter(url: folder.appendingPathComponent("reports.jsonl"))
        for report in visits.reports() { try reports.write(report) }
        try reports.finish()
        let trainReports = try RecordingWriter(url: folder.appendingPathComponent("train-reports.jsonl"))
        for report in survey.reports() { try trainReports.write(report) }
        try trainReports.finish()
        Terminal.error("Wrote \(directory)/receivers.json, reports.jsonl (\(reports.scansWritten.counted("report"))) and "
            + "train-reports.jsonl (\(trainReports.scansWritten.counted("report"))): the same walks heard by the beacons as receivers.")
    }

    /// The network of `--receivers`, with the options given.
    private func network(reportInterval: Double) -> ReceiverReportSimulator.Network {
        var network = ReceiverReportSimulator.Network(reportInterval: reportInterval)
        if let clockOffset { network.clockOffset = clockOffset }
        if let reportLoss { network.reportLoss = reportLoss }
        if let duplicates { network.duplicates = duplicates }
        return network
    }
}
