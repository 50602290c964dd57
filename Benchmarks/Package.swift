// swift-tools-version: 6.1
// RuleKit's benchmarks, kept apart so the root package builds without benchmark dependencies.
// Run: cd Benchmarks && swift package --scratch-path ../.build/benchmarks --allow-writing-to-directory .benchmarkBaselines benchmark
import PackageDescription

let package = Package(
    name: "RuleKitBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "RuleKit", path: ".."),
        // No interposers: the figures are wall-clock only, and the product runs on the system allocator.
        .package(
            url: "https://github.com/ordo-one/package-benchmark", from: "1.38.0",
            traits: []),
    ],
    targets: [
        .target(name: "BenchData", path: "Benchmarks/BenchData"),
        .executableTarget(
            name: "Readers",
            dependencies: [
                "BenchData",
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "RuleKitCore", package: "RuleKit"),
                .product(name: "RuleKitYAML", package: "RuleKit"),
            ],
            path: "Benchmarks/Readers",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        .executableTarget(
            name: "Engine",
            dependencies: [
                "BenchData",
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "RuleKitCore", package: "RuleKit"),
                .product(name: "RuleKitRules", package: "RuleKit"),
            ],
            path: "Benchmarks/Engine",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        .executableTarget(
            name: "Plan",
            dependencies: [
                "BenchData",
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "RuleKitCore", package: "RuleKit"),
                .product(name: "RuleKitYAML", package: "RuleKit"),
                .product(name: "RuleKitRules", package: "RuleKit"),
            ],
            path: "Benchmarks/Plan",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        .executableTarget(
            name: "XDM",
            dependencies: [
                "BenchData",
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "RuleKitCore", package: "RuleKit"),
                .product(name: "RuleKitXDM", package: "RuleKit"),
            ],
            path: "Benchmarks/XDM",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        .executableTarget(
            name: "rules-hub-bench",
            dependencies: [
                "BenchData",
                .product(name: "RuleKitCore", package: "RuleKit"),
                .product(name: "RuleKitHub", package: "RuleKit"),
                .product(name: "RuleKitRules", package: "RuleKit"),
                .product(name: "RuleKitExtension", package: "RuleKit"),
                .product(name: "RuleKitSources", package: "RuleKit"),
            ],
            path: "Benchmarks/RulesHubBench"
        ),
        .executableTarget(
            name: "history-bench",
            dependencies: [
                .product(name: "RuleKitCore", package: "RuleKit"),
                .product(name: "RuleKitHub", package: "RuleKit"),
                .product(name: "RuleKitHistory", package: "RuleKit"),
                .product(name: "RuleKitExtension", package: "RuleKit"),
            ],
            path: "Benchmarks/HistoryBench"
        ),
        .executableTarget(
            name: "probe",
            dependencies: [
                "BenchData",
                .product(name: "RuleKitCore", package: "RuleKit"),
                .product(name: "RuleKitYAML", package: "RuleKit"),
                .product(name: "RuleKitRules", package: "RuleKit"),
                .product(name: "RuleKitXDM", package: "RuleKit"),
            ],
            path: "Benchmarks/Probe"
        ),
        .executableTarget(
            name: "hub-bench",
            dependencies: [
                .product(name: "RuleKitCore", package: "RuleKit"),
                .product(name: "RuleKitHub", package: "RuleKit"),
            ],
            path: "Benchmarks/HubBench"
        ),
    ],
    swiftLanguageModes: [.v6]
)
