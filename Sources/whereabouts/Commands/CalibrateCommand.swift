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

        With --receivers the recording holds fixed receivers' reports of tags walked with their \
        true positions (FORMATS.md §8): each sighting is fitted with the receivers as beacons, and \
        -o writes each receiver's RSSI offset and path-loss exponent (its own with --per-beacon, \
        shrunk toward the venue fit; the venue fit's otherwise) and the tags' offsets as devices, \
        keeping the venue's defaults so that its beacons read as before. Receivers that advertise \
        can be fitted from hearing each other, without a walk: a reading naming another receiver \
        (by its id, or an identity the venue's tags give that id) takes that receiver's place in \
        the venue as its truth.

        Examples:
          whereabouts calibrate --venue venue.json --recording train.jsonl
          whereabouts calibrate --venue venue.json --recording train.jsonl --per-beacon -o calibrated.json
          whereabouts calibrate --venue receivers.json --recording walk-reports.jsonl --receivers --per-beacon -o calibrated.json
        """)
    )

    @OptionGroup var venue: VenueOptions

    @Option(name: .long, help: ArgumentHelp("A recording whose scans carry truth x/y.", valueName: "recording.jsonl"))
    var recording: String

    @Option(name: .shortAndLong, help: ArgumentHelp("Write the calibrated venue here.", valueName: "venue.json"))
    var output: String?

    @Flag(name: .long, help: "Also write each beacon's own txPower and exponent (default: only the venue-wide defaults).")
    var perBeacon = false

    @Flag(name: .long, help: "The recording holds fixed receivers' reports (FORMATS.md §8): fit the venue's receivers.")
    var receivers = false

    @Option(name: .long, help: ArgumentHelp("Loss of the robust fit.", valueName: "loss"))
    var loss: Calibration.Loss = .tukey

    @Option(name: .long, help: ArgumentHelp("Receiver height in venue units when the truth has no z.", valueName: "height"))
    var receiverHeight: Double?

    @OptionGroup var recordings: RecordingOptions

    @OptionGroup var progressOptions: ProgressOptions

    func work() throws {
        let venueValue = try venue.read()
        if receivers, venueValue.receivers.isEmpty {
            throw CommandFailure("\(venue.path) lists no receivers, so there is nothing to fit: --receivers needs the venue's \"receivers\" (FORMATS.md §1).")
        }
        // With --receivers, each sighting is a tag's one-reading scan of the receiver that heard it.
        let fusion = receivers ? ReceiverFusion(venue: venueValue) : nil
        var options = Calibration.Options()
        options.loss = loss
        options.receiverHeight = receiverHeight
        let url = URL(fileURLWithPath: recording)
        let reader = try RecordingReader(url: url, options: recordings.readerOptions)
        var calibration = Calibration(venue: fusion == nil ? venueValue : venueValue.receiversAsBeacons(), options: options)
        var progress = Progress("reading \(recording)", total: url.fileSize)
        var devices: Set<String> = []
        var unknownReceivers = 0
        while let report = try reader.next() {
            let scans = fusion?.sightings(in: report) ?? [report]
            if fusion != nil, scans.isEmpty, !report.readings.isEmpty { unknownReceivers += 1 }
            for scan in scans {
                calibration.add(scan)
                if let device = scan.device, scan.truth?.planarPoint != nil { devices.insert(device) }
            }
            progress.update(reader.bytesRead)
        }
        if unknownReceivers > 0 {
            Terminal.error("note: \(unknownReceivers.counted("report")) from receivers the venue does not list, or of its beacons only, left out.")
        }
        progress.finish()
        reader.warnAboutSkippedLines()
        let result = try calibration.result()
        print(result.summary)
        if let output, fusion != nil {
            let calibrated = result.appliedToReceivers(of: venueValue, perReceiver: perBeacon)
            try VenueFile.write(calibrated, to: URL(fileURLWithPath: output))
            let offsets = calibrated.receivers.map { "\($0.id) \($0.rssiOffset >= 0 ? "+" : "")\($0.rssiOffset.formatted(2))" }
            print("Wrote \(output): receivers' offsets \(offsets.joined(separator: ", ")) dB"
                + (perBeacon ? ", each with its own exponent" : ", n \(result.venueFit.pathLossExponent.formatted(2))")
                + "; \(result.offsetsByDevice.count.counted("tag")) with an offset.")
        } else if let output {
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
