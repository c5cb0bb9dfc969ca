import Benchmark
import Whereabouts

/// Advertisement frame parsing throughput.
func registerFrameBenchmarks() {}
