// swift-tools-version: 6.1
// RuleKit's coverage-guided fuzzers: one libFuzzer target per entry point, each with an oracle beyond
// "did not crash". Kept apart from the root package (like Benchmarks/) because its targets only build
// with `-sanitize=fuzzer`. Run one with `./run.sh TARGET SECONDS`; see README.md.
import PackageDescription

let targets = ["fuzz-json", "fuzz-yaml", "fuzz-launch-json", "fuzz-rules", "fuzz-template", "fuzz-schema"]

let package = Package(
    name: "RuleKitFuzz",
    platforms: [.macOS(.v15)],
    products: targets.map { .executable(name: $0, targets: [$0]) },
    dependencies: [
        .package(name: "RuleKit", path: "..")
    ],
    targets: [
        .target(name: "CFuzzer"),
        .target(
            name: "FuzzSupport",
            dependencies: [
                "CFuzzer",
                .product(name: "RuleKitCore", package: "RuleKit"),
                .product(name: "RuleKitYAML", package: "RuleKit"),
                .product(name: "RuleKitRules", package: "RuleKit"),
                .product(name: "RuleKitXDM", package: "RuleKit"),
            ]
        ),
    ]
        + targets.map { name in
            .executableTarget(name: name, dependencies: ["FuzzSupport", "CFuzzer"])
        },
    swiftLanguageModes: [.v6]
)
