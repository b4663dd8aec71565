// swift-tools-version: 6.2
// The emulators package: one executable, no package dependencies.
// Layers (arrows point down; docs/ARCHITECTURE.md has the table):
//   L5 emulators, EmulatorTesting, EmulatorBenchmarks
//   L4 EmulatorSuite
//   L3 FirestoreEmulator, DatabaseEmulator, EmulatorSnapshot, EmulatorUI, EmulatorClient, EmulatorPosix
//   L2 EmulatorStorage, SecurityRules, EmulatorHTTP, EmulatorHTTP2, EmulatorProtobuf
//   L1 EmulatorModel
//   L0 EmulatorSupport, CEmulatorLinux
// Tests/ holds the test targets, their support target and the fuzz targets (Tests/Fuzz).
import PackageDescription

let settings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "emulators",
    products: [
        .executable(name: "emulators", targets: ["emulators"]),
        .library(name: "EmulatorClient", targets: ["EmulatorClient"]),
        .library(name: "EmulatorTesting", targets: ["EmulatorTesting"]),
    ],
    targets: [
        // L0
        .target(name: "CEmulatorLinux"),
        .target(name: "EmulatorSupport", dependencies: ["CEmulatorLinux"], swiftSettings: settings),
        // L1
        .target(name: "EmulatorModel", dependencies: ["EmulatorSupport"], swiftSettings: settings),
        // L2
        .target(name: "EmulatorStorage", dependencies: ["EmulatorSupport", "CEmulatorLinux"], swiftSettings: settings),
        .target(name: "SecurityRules", dependencies: ["EmulatorModel", "EmulatorSupport"], swiftSettings: settings),
        .target(name: "EmulatorHTTP", dependencies: ["EmulatorSupport"], swiftSettings: settings),
        .target(name: "EmulatorHTTP2", dependencies: ["EmulatorHTTP", "EmulatorSupport"], swiftSettings: settings),
        .target(name: "EmulatorProtobuf", dependencies: ["EmulatorModel", "EmulatorSupport"], swiftSettings: settings),
        // L3
        .target(name: "EmulatorPosix", dependencies: ["EmulatorHTTP", "EmulatorSupport", "CEmulatorLinux"], swiftSettings: settings),
        .target(
            name: "DatabaseEmulator",
            dependencies: ["EmulatorStorage", "SecurityRules", "EmulatorHTTP", "EmulatorModel", "EmulatorSupport"],
            swiftSettings: settings),
        .target(
            name: "FirestoreEmulator",
            dependencies: [
                "EmulatorStorage", "SecurityRules", "EmulatorHTTP", "EmulatorHTTP2", "EmulatorProtobuf", "EmulatorModel",
                "EmulatorSupport",
            ],
            swiftSettings: settings),
        .target(
            name: "EmulatorSnapshot", dependencies: ["EmulatorStorage", "EmulatorProtobuf", "EmulatorModel", "EmulatorSupport", "CEmulatorLinux"],
            swiftSettings: settings),
        .target(name: "EmulatorUI", dependencies: ["EmulatorHTTP", "SecurityRules", "EmulatorSupport"], swiftSettings: settings),
        .target(
            name: "EmulatorClient",
            dependencies: ["EmulatorModel", "EmulatorHTTP", "EmulatorHTTP2", "EmulatorProtobuf", "EmulatorSupport"],
            swiftSettings: settings),
        // L4
        .target(
            name: "EmulatorSuite",
            dependencies: [
                "FirestoreEmulator", "DatabaseEmulator", "EmulatorSnapshot", "EmulatorUI", "EmulatorStorage", "SecurityRules",
                "EmulatorPosix", "EmulatorHTTP", "EmulatorModel", "EmulatorSupport",
            ],
            swiftSettings: settings),
        // L5
        .target(name: "EmulatorTesting", dependencies: ["EmulatorClient", "EmulatorSuite"], swiftSettings: settings),
        .executableTarget(name: "emulators", dependencies: ["EmulatorSuite", "EmulatorSupport"], swiftSettings: settings),
        .executableTarget(
            name: "EmulatorBenchmarks",
            dependencies: [
                "EmulatorSuite", "EmulatorClient", "DatabaseEmulator", "FirestoreEmulator", "EmulatorSnapshot", "EmulatorStorage", "SecurityRules",
                "EmulatorModel", "EmulatorHTTP", "EmulatorPosix", "EmulatorSupport",
            ],
            swiftSettings: settings),

        // Tests
        .target(
            name: "EmulatorTestSupport", dependencies: ["EmulatorStorage", "EmulatorHTTP", "EmulatorSupport"], path: "Tests/EmulatorTestSupport",
            swiftSettings: settings),
        .testTarget(name: "EmulatorSupportTests", dependencies: ["EmulatorSupport"], swiftSettings: settings),
        .testTarget(name: "EmulatorModelTests", dependencies: ["EmulatorModel", "EmulatorSupport", "EmulatorTestSupport"], swiftSettings: settings),
        .testTarget(name: "EmulatorStorageTests", dependencies: ["EmulatorStorage", "EmulatorTestSupport"], swiftSettings: settings),
        .testTarget(name: "SecurityRulesTests", dependencies: ["SecurityRules", "EmulatorModel", "EmulatorSupport"], swiftSettings: settings),
        .testTarget(name: "EmulatorHTTPTests", dependencies: ["EmulatorHTTP", "EmulatorSupport", "EmulatorTestSupport"], swiftSettings: settings),
        .testTarget(name: "EmulatorHTTP2Tests", dependencies: ["EmulatorHTTP2", "EmulatorHTTP"], swiftSettings: settings),
        .testTarget(name: "EmulatorProtobufTests", dependencies: ["EmulatorProtobuf", "EmulatorModel", "EmulatorSupport", "EmulatorTestSupport"], swiftSettings: settings),
        .testTarget(name: "EmulatorPosixTests", dependencies: ["EmulatorPosix", "EmulatorHTTP", "EmulatorSupport", "EmulatorTestSupport"], swiftSettings: settings),
        .testTarget(
            name: "DatabaseEmulatorTests",
            dependencies: [
                "DatabaseEmulator", "EmulatorStorage", "EmulatorHTTP", "EmulatorModel", "EmulatorSupport", "EmulatorTestSupport",
            ],
            swiftSettings: settings),
        .testTarget(
            name: "FirestoreEmulatorTests",
            dependencies: [
                "FirestoreEmulator", "EmulatorStorage", "EmulatorHTTP", "EmulatorHTTP2", "EmulatorProtobuf", "EmulatorModel",
                "EmulatorSupport", "EmulatorTestSupport",
            ],
            swiftSettings: settings),
        .testTarget(
            name: "EmulatorSnapshotTests",
            dependencies: ["EmulatorSnapshot", "EmulatorStorage", "EmulatorProtobuf", "EmulatorModel", "EmulatorSupport", "EmulatorTestSupport"],
            swiftSettings: settings),
        .testTarget(name: "EmulatorUITests", dependencies: ["EmulatorUI", "EmulatorHTTP", "SecurityRules", "EmulatorSupport"], swiftSettings: settings),
        .testTarget(
            name: "EmulatorClientTests",
            dependencies: [
                "EmulatorClient", "EmulatorTesting", "EmulatorSuite", "FirestoreEmulator", "EmulatorStorage", "EmulatorModel", "EmulatorSupport",
            ],
            swiftSettings: settings),
        .testTarget(
            name: "EmulatorSuiteTests",
            dependencies: [
                "EmulatorSuite", "EmulatorClient", "FirestoreEmulator", "EmulatorSnapshot", "EmulatorPosix", "EmulatorHTTP",
                "EmulatorHTTP2", "EmulatorProtobuf", "EmulatorModel", "EmulatorSupport", "EmulatorStorage", "EmulatorTestSupport",
            ],
            swiftSettings: settings),
        // Fuzzing (Tests/Fuzz/run builds the driver with libFuzzer; a plain build replays inputs)
        .target(
            name: "EmulatorFuzzTargets",
            dependencies: [
                "FirestoreEmulator", "DatabaseEmulator", "EmulatorSnapshot", "SecurityRules", "EmulatorStorage", "EmulatorHTTP",
                "EmulatorHTTP2", "EmulatorProtobuf", "EmulatorModel", "EmulatorSupport",
            ],
            path: "Tests/Fuzz/Targets", swiftSettings: settings),
        .executableTarget(name: "emulators-fuzz", dependencies: ["EmulatorFuzzTargets"], path: "Tests/Fuzz/Driver", swiftSettings: settings),
        .testTarget(name: "EmulatorFuzzTests", dependencies: ["EmulatorFuzzTargets", "EmulatorTestSupport"], path: "Tests/Fuzz/Tests", swiftSettings: settings),
    ]
)
