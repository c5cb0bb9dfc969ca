import Benchmark
import Foundation
import Whereabouts

/// Recording (JSON Lines) reading throughput: a file of 20 000 scans of 10 readings each, like the
/// ranging-second scans of the public datasets, read through ``RecordingReader``.
func registerRecordingBenchmarks() {
    let scans = 20_000, readingsPerScan = 10
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("whereabouts-benchmark-recording.jsonl")
    var text = ""
    for i in 0..<scans {
        var readings: [String] = []
        for j in 0..<readingsPerScan {
            readings.append(#"{"beacon":"\#(23 + (i + j) % 24)","rssi":-\#(50 + (i * 7 + j * 13) % 45)}"#)
        }
        text += #"{"t":\#(3815.25 + Double(i)),"device":"A5","readings":[\#(readings.joined(separator: ","))],"truth":{"x":\#(Double(i % 300) / 10),"y":12.91}}"#
        text += "\n"
    }
    try? Data(text.utf8).write(to: url)

    Benchmark("Recording reading: 20 000 scans x 10 readings a file",
              configuration: .init(metrics: [.throughput, .wallClock, .mallocCountTotal, .peakMemoryResident],
                                   scalingFactor: .one, maxDuration: .seconds(5), maxIterations: 20)) { benchmark in
        for _ in benchmark.scaledIterations {
            guard let reader = try? RecordingReader(url: url) else { return }
            var readings = 0
            while let scan = try? reader.next() { readings += scan.readings.count }
            precondition(readings == scans * readingsPerScan)
            blackHole(readings)
        }
    }
}
