// swift-tools-version: 6.1
// RuleKit: a Launch-style rules engine and XDM data-element processor for event-hub hosts.
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "RuleKit",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "RuleKitCore", targets: ["RuleKitCore"]),
        .library(name: "RuleKitYAML", targets: ["RuleKitYAML"]),
        .library(name: "RuleKitRules", targets: ["RuleKitRules"]),
        .library(name: "RuleKitHub", targets: ["RuleKitHub"]),
        .library(name: "RuleKitHistory", targets: ["RuleKitHistory"]),
        .library(name: "RuleKitXDM", targets: ["RuleKitXDM"]),
        .library(name: "RuleKitSources", targets: ["RuleKitSources"]),
        .library(name: "RuleKitExtension", targets: ["RuleKitExtension"]),
        .library(name: "RuleKitTooling", targets: ["RuleKitTooling"]),
        .library(name: "RuleKitLSP", targets: ["RuleKitLSP"]),
        .library(name: "RuleKitFetch", targets: ["RuleKitFetch"]),
        .library(name: "RuleKitPostbacks", targets: ["RuleKitPostbacks"]),
        .library(name: "RuleKitShared", targets: ["RuleKitShared"]),
        .library(name: "RuleKitServe", targets: ["RuleKitServe"]),
        .executable(name: "rulekit", targets: ["rulekit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.5.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.21.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.27.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
    ],
    targets: [
        // The only C in the package: libyaml, reached through one module map.
        .systemLibrary(
            name: "CYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"]), .brew(["libyaml"])]
        ),
        .target(name: "RuleKitCore", swiftSettings: strict),
        .target(name: "RuleKitYAML", dependencies: ["RuleKitCore", "CYAML"], swiftSettings: strict),
        .target(name: "RuleKitRules", dependencies: ["RuleKitCore"], swiftSettings: strict),
        // Event history, whole: the protocols, the stores (memory, SQLite, PostgreSQL) and block history.
        .target(
            name: "RuleKitHistory",
            dependencies: [
                "RuleKitCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                // libsqlite3 itself, for the one append bound by hand (`SQLite/SQLiteLogAppend.swift`).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict),
        .target(name: "RuleKitHub", dependencies: ["RuleKitCore", "RuleKitHistory"], swiftSettings: strict),
        .target(name: "RuleKitShared", dependencies: ["RuleKitCore"], swiftSettings: strict),
        .target(name: "RuleKitXDM", dependencies: ["RuleKitCore", "RuleKitYAML"], swiftSettings: strict),
        // Where rules come from: one filter for rules and test files, and the snapshot every consumer loads.
        .target(
            name: "RuleKitSources",
            dependencies: ["RuleKitCore", "RuleKitYAML", "RuleKitRules", .product(name: "ZIPFoundation", package: "ZIPFoundation")],
            swiftSettings: strict),
        .target(
            name: "RuleKitExtension",
            dependencies: [
                "RuleKitCore", "RuleKitYAML", "RuleKitRules", "RuleKitHub", "RuleKitHistory", "RuleKitXDM", "RuleKitShared",
                "RuleKitSources", "RuleKitPostbacks", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        // The rule author's tools: linter, rule tests, report, the match stream. Apart from the hub glue.
        .target(
            name: "RuleKitTooling",
            dependencies: [
                "RuleKitCore", "RuleKitYAML", "RuleKitRules", "RuleKitHub", "RuleKitXDM", "RuleKitSources", "RuleKitExtension",
            ],
            swiftSettings: strict),
        // `rulekit lsp`: the Language Server Protocol, framing included, on RuleKit's own JSON.
        .target(
            name: "RuleKitLSP",
            dependencies: ["RuleKitCore", "RuleKitRules", "RuleKitXDM", "RuleKitSources", "RuleKitTooling", "RuleKitYAML"],
            swiftSettings: strict),
        // Consequences that leave the host: postbacks (`pb`, `pii`) in a durable queue, sent in order, retried.
        .target(
            name: "RuleKitPostbacks",
            dependencies: [
                "RuleKitCore", .product(name: "Crypto", package: "swift-crypto"), .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        // Rules fetched from URLs, postbacks and outbound messages sent over AsyncHTTPClient: the transports
        // used when the host hands in none.
        .target(
            name: "RuleKitFetch",
            dependencies: [
                "RuleKitCore", "RuleKitSources", "RuleKitPostbacks", "RuleKitExtension",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict),
        // The enrichment service: the rules host behind HTTP, with metrics, reload and PostgreSQL history.
        .target(
            name: "RuleKitServe",
            dependencies: [
                "RuleKitCore", "RuleKitRules", "RuleKitHub", "RuleKitHistory", "RuleKitXDM", "RuleKitExtension", "RuleKitSources",
                "RuleKitPostbacks", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict),
        .executableTarget(
            name: "rulekit",
            dependencies: [
                "RuleKitCore", "RuleKitYAML", "RuleKitRules", "RuleKitXDM", "RuleKitHub", "RuleKitHistory", "RuleKitExtension",
                "RuleKitShared", "RuleKitServe", "RuleKitSources", "RuleKitTooling", "RuleKitLSP", "RuleKitFetch", "RuleKitPostbacks",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict,
            // A release tool carries the Swift runtime and Foundation in itself: a dozen shared libraries
            // resolved symbol by symbol cost every run a start-up far from free (`docs/performance.md`).
            // The static Foundation's own libraries are named (`swift build --static-swift-stdlib`
            // finds them through modules compiled for it; these are not); lld, because GNU ld warns about
            // a function the static Foundation contains. Debug builds (tests, sanitizers) link as usual.
            linkerSettings: [
                .unsafeFlags(
                    [
                        "-static-stdlib", "-use-ld=lld", "-lCoreFoundation", "-l_FoundationICU", "-l_FoundationCShims",
                        "-l_FoundationCollections",
                    ], .when(platforms: [.linux], configuration: .release))
            ]
        ),
        .executableTarget(
            name: "example-host",
            dependencies: ["RuleKitCore", "RuleKitHub", "RuleKitExtension"],
            path: "Examples/Host",
            swiftSettings: strict
        ),
        .target(
            name: "ReferralKit",
            dependencies: ["RuleKitCore", "RuleKitHub", "RuleKitShared", "RuleKitExtension", "RuleKitFetch"],
            path: "Examples/Referral/ReferralKit",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "referral-host",
            dependencies: ["ReferralKit", "RuleKitCore", "RuleKitHub", "RuleKitShared", "RuleKitExtension"],
            path: "Examples/Referral/Host",
            swiftSettings: strict
        ),
        .target(name: "RuleKitTestSupport", path: "Tests/Support", swiftSettings: strict),
        .testTarget(name: "RuleKitCoreTests", dependencies: ["RuleKitCore", "RuleKitTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "RuleKitYAMLTests", dependencies: ["RuleKitYAML", "RuleKitCore", "RuleKitTestSupport"],
            exclude: ["yaml-test-suite-expected-failures.tsv"], swiftSettings: strict),
        .testTarget(
            name: "RuleKitRulesTests",
            dependencies: [
                "RuleKitRules", "RuleKitCore", "RuleKitYAML", "RuleKitTestSupport", "RuleKitHub", "RuleKitExtension", "RuleKitSources",
            ],
            exclude: ["aep-rules-expected-failures.tsv", "aep-rules-hub-expected-failures.tsv", "Fixtures", "Golden"], swiftSettings: strict
        ),
        .testTarget(
            name: "RuleKitXDMTests", dependencies: ["RuleKitXDM", "RuleKitCore", "RuleKitTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "RuleKitExtensionTests",
            dependencies: [
                "RuleKitExtension", "RuleKitHub", "RuleKitHistory", "RuleKitRules", "RuleKitXDM", "RuleKitCore", "RuleKitShared",
                "RuleKitTestSupport", "RuleKitYAML", "RuleKitSources", "RuleKitFetch", "RuleKitPostbacks",
            ],
            exclude: ["Fixtures"], swiftSettings: strict),
        .testTarget(
            name: "RuleKitToolingTests",
            dependencies: ["RuleKitTooling", "RuleKitSources", "RuleKitXDM", "RuleKitYAML", "RuleKitCore", "RuleKitTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "RuleKitLSPTests",
            dependencies: ["RuleKitLSP", "RuleKitTooling", "RuleKitCore", "RuleKitSources", "RuleKitTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "RuleKitSourcesTests",
            dependencies: [
                "RuleKitSources", "RuleKitRules", "RuleKitCore", "RuleKitYAML", "RuleKitTestSupport",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "RuleKitSharedTests", dependencies: ["RuleKitShared", "RuleKitCore", "RuleKitTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "ReferralKitTests",
            dependencies: ["ReferralKit", "RuleKitCore", "RuleKitHub", "RuleKitShared", "RuleKitExtension", "RuleKitTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "RuleKitHubTests", dependencies: ["RuleKitHub", "RuleKitHistory", "RuleKitCore", "RuleKitTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "RuleKitHistoryTests",
            dependencies: [
                "RuleKitHistory", "RuleKitRules", "RuleKitCore", "RuleKitTestSupport", .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "RuleKitPostbacksTests", dependencies: ["RuleKitPostbacks", "RuleKitCore", "RuleKitTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "RuleKitServeTests",
            dependencies: ["RuleKitServe", "RuleKitHistory", "RuleKitCore", "RuleKitSources", "RuleKitTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "RulekitCLITests",
            dependencies: [
                "RuleKitCore", "RuleKitTestSupport", "rulekit", "example-host", "RuleKitSources", "RuleKitFetch", "RuleKitPostbacks",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            exclude: ["Fixtures", "Golden"], swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
