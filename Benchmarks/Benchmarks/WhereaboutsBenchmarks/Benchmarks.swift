import Benchmark

/// The entry point package-benchmark looks for: registers every suite.
let benchmarks: @Sendable () -> Void = {
    registerFrameBenchmarks()
    registerRecordingBenchmarks()
    registerSolverBenchmarks()
    registerPipelineBenchmarks()
    registerBluetoothBenchmarks()
    registerClassifierBenchmarks()
    registerPlaceBenchmarks()
    registerServerBenchmarks()
    registerRequestBenchmarks()
    registerTrackingBenchmarks()
    registerReceiverBenchmarks()
    registerMQTTBenchmarks()
}
