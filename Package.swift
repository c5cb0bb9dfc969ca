// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Whereabouts",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "Whereabouts", targets: ["Whereabouts"]),
        .library(name: "WhereaboutsBluetooth", targets: ["WhereaboutsBluetooth"]),
        .library(name: "WhereaboutsServer", targets: ["WhereaboutsServer"]),
        .library(name: "WhereaboutsTracking", targets: ["WhereaboutsTracking"]),
        .library(name: "WhereaboutsFacades", targets: ["WhereaboutsFacades"]),
        .library(name: "WhereaboutsMQTT", targets: ["WhereaboutsMQTT"]),
        .library(name: "WhereaboutsServerTesting", targets: ["WhereaboutsServerTesting"]),
        .executable(name: "whereabouts", targets: ["whereabouts"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.24.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.29.0"),
        // One trait, not Hummingbird's two defaults: SwiftPM passes enabled traits as -D flags in
        // no fixed order, so with two the command line changes between `swift test` and `swift
        // run` and every switch recompiles Hummingbird. ConfigurationSupport (swift-configuration)
        // is not used here.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.5.0", traits: ["FullFoundation"]),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.2.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.0.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.21.0"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        .target(name: "Whereabouts"),
        .target(
            name: "WhereaboutsBluetooth",
            dependencies: [
                "Whereabouts",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "WhereaboutsServer",
            dependencies: [
                "Whereabouts",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            // Embedded rather than bundled, so that the server binary is self-contained.
            resources: [
                .embedInCode("Resources/openapi.json"),
                .embedInCode("Resources/map/index.html"),
                .embedInCode("Resources/map/map.css"),
                .embedInCode("Resources/map/map.js"),
            ]
        ),
        .target(
            name: "WhereaboutsTracking",
            dependencies: [
                "Whereabouts",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .target(
            name: "WhereaboutsServerTesting",
            dependencies: [
                "Whereabouts",
                "WhereaboutsServer",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "WhereaboutsMQTT",
            dependencies: [
                "Whereabouts",
                "WhereaboutsBluetooth",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .target(
            name: "WhereaboutsFacades",
            dependencies: ["Whereabouts", "WhereaboutsBluetooth", "WhereaboutsTracking"]
        ),
        .executableTarget(
            name: "whereabouts",
            dependencies: [
                "Whereabouts",
                "WhereaboutsBluetooth",
                "WhereaboutsServer",
                "WhereaboutsTracking",
                "WhereaboutsMQTT",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "GatewayExample",
            dependencies: [
                "Whereabouts",
                "WhereaboutsBluetooth",
                "WhereaboutsTracking",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Examples/GatewayExample"
        ),
        .executableTarget(
            name: "SeedAPIsExample",
            dependencies: [
                "Whereabouts",
                "WhereaboutsFacades",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Examples/SeedAPIsExample"
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
            name: "WhereaboutsServerTests",
            dependencies: [
                "WhereaboutsServer",
                "WhereaboutsServerTesting",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "WhereaboutsTrackingTests",
            dependencies: [
                "WhereaboutsTracking",
                "WhereaboutsServer",
                "WhereaboutsServerTesting",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "WhereaboutsMQTTTests",
            dependencies: [
                "WhereaboutsMQTT",
                "WhereaboutsBluetooth",
                "WhereaboutsServerTesting",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "WhereaboutsFacadesTests",
            dependencies: [
                "WhereaboutsFacades",
                "WhereaboutsServerTesting",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
        .testTarget(
            name: "WhereaboutsCLITests",
            dependencies: [
                "whereabouts",
                "WhereaboutsMQTT",
                "WhereaboutsServer",
                "WhereaboutsServerTesting",
                "WhereaboutsTracking",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
