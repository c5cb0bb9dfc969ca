// swift-tools-version: 6.1
// The benchmarks of Whereabouts, a package of their own so that building, running and testing the
// main package never builds package-benchmark or its plugins. Run from this folder:
//
//     swift package benchmark                              # every suite
//     swift package benchmark --filter "Pipeline.*"        # one suite
import PackageDescription

let package = Package(
    name: "WhereaboutsBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "Whereabouts", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark.git", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.65.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
    ],
    targets: [
        .executableTarget(
            name: "WhereaboutsBenchmarks",
            dependencies: [
                .product(name: "Whereabouts", package: "Whereabouts"),
                .product(name: "WhereaboutsBluetooth", package: "Whereabouts"),
                .product(name: "WhereaboutsServer", package: "Whereabouts"),
                .product(name: "WhereaboutsServerTesting", package: "Whereabouts"),
                .product(name: "WhereaboutsTracking", package: "Whereabouts"),
                .product(name: "WhereaboutsMQTT", package: "Whereabouts"),
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Benchmarks/WhereaboutsBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Not a benchmark suite: the bare-framework server Scripts/ingest-benchmark.sh measures
        // the real server against. Outside `Benchmarks/`, where the benchmark plugin would take
        // every executable for a suite and wait for ever on this server.
        .executableTarget(
            name: "HummingbirdCeiling",
            dependencies: [.product(name: "Hummingbird", package: "hummingbird")],
            path: "Servers/HummingbirdCeiling"
        ),
    ],
    swiftLanguageModes: [.v6]
)
