// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Whereabouts",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "Whereabouts", targets: ["Whereabouts"]),
        .library(name: "WhereaboutsBluetooth", targets: ["WhereaboutsBluetooth"]),
        .executable(name: "whereabouts", targets: ["whereabouts"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/ordo-one/benchmark.git", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .target(name: "Whereabouts"),
        .target(name: "WhereaboutsBluetooth", dependencies: ["Whereabouts"]),
        .executableTarget(
            name: "whereabouts",
            dependencies: [
                "Whereabouts",
                "WhereaboutsBluetooth",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "WhereaboutsTests",
            dependencies: ["Whereabouts"]
        ),
        .testTarget(
            name: "WhereaboutsBluetoothTests",
            dependencies: ["WhereaboutsBluetooth"]
        ),
        .testTarget(
            name: "WhereaboutsCLITests",
            dependencies: ["whereabouts"]
        ),
        .executableTarget(
            name: "WhereaboutsBenchmarks",
            dependencies: [
                "Whereabouts",
                "WhereaboutsBluetooth",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/WhereaboutsBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
