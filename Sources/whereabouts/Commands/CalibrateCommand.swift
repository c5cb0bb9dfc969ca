import ArgumentParser
import Foundation
import Whereabouts

/// `whereabouts calibrate`
struct CalibrateCommand: LongWorkCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibrate",
        abstract: "Fit txPower and the path-loss exponent from a recording with true positions.",
        discussion: HelpText.fitting("""
        Fits rssi = txPower − 10·n·log10(d) robustly (outliers do not dominate) for the whole venue, \
        and per beacon with shrinkage toward the venue fit when a beacon has few samples. Prints the \
        fits and their residual spread; with -o, writes the venue with the fitted values and its \
        devices: each receiver of the recording with its RSSI offset (0 with a single receiver). \
        Every solver and room classifier then corrects a listed device's readings by its offset, \
        and learns the offset online only for phones the venue does not list.

        Examples:
          whereabouts calibrate --venue venue.json --recording train.jsonl
          whereabouts calibrate --venue venue.json --recording train.jsonl --per-beacon -o calibrated.json
        """)
    )

    @OptionGroup var venue: VenueOptions

    @Option(name: .long, help: ArgumentHelp("A recording whose scans carry truth x/y.", valueName: "recording.jsonl"))
    var recording: String

    @Option(name: .shortAndLong, help: ArgumentHelp("Write the calibrated venue here.", valueName: "venue.json"))
    var output: String?

    @Flag(name: .long, help: "Also write each beacon's own txPower and exponent (default: only the venue-wide defaults).")
    var perBeacon = false

    @Option(name: .long, help: ArgumentHelp("Loss of the robust fit.", valueName: "loss"))
    var loss: Calibration.Loss = .tukey

    @Option(name: .long, help: ArgumentHelp("Receiver height in venue units when the truth has no z.", valueName: "height"))
    var receiverHeight: Double?

    @OptionGroup var recordings: RecordingOptions

    @OptionGroup var progressOptions: ProgressOptions

    func work() throws {
        let venueValue = try venue.read()
        var options = Calibration.Options()
        options.loss = loss
        options.receiverHeight = receiverHeight
        let url = URL(fileURLWithPath: recording)
        let reader = try RecordingReader(url: url, options: recordings.readerOptions)
        var calibration = Calibration(venue: venueValue, options: options)
        var progress = Progress("reading \(recording)", total: url.fileSize)
        var devices: Set<String> = []
        while let scan = try reader.next() {
            calibration.add(scan)
            if let device = scan.device, scan.truth?.planarPoint != nil { devices.insert(device) }
            progress.update(reader.bytesRead)
        }
        progress.finish()
        reader.warnAboutSkippedLines()
        let result = try calibration.result()
        print(result.summary)
        if let output {
            var calibrated = result.applied(to: venueValue, perBeacon: perBeacon)
            // The recording's devices read like the fit: those without a fitted offset get 0.
            let listed = Set(calibrated.devices.map(\.id))
            calibrated.devices += devices.subtracting(listed).sorted().map { Venue.Device(id: $0, rssiOffset: 0) }
            try VenueFile.write(calibrated, to: URL(fileURLWithPath: output))
            print("Wrote \(output) (txPower \(result.venueFit.txPower.formatted(2)) dBm, n \(result.venueFit.pathLossExponent.formatted(2))"
                + "\(perBeacon ? ", per-beacon values" : ""), \(calibrated.devices.count.counted("device"))).")
        }
    }
}
