import Benchmark
import Whereabouts

/// Recording (JSON Lines) reading throughput.
func registerRecordingBenchmarks() {}
