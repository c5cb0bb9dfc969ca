import Benchmark
import Whereabouts

let benchmarks: @Sendable () -> Void = {
    Benchmark("noop") { benchmark in
        blackHole(WhereaboutsInfo.version)
    }
}
