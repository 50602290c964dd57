// Parse+check+plan benchmarks on ../shared/bench: rules-1000.json (Launch JSON), and rules-10k.yaml next to
// the bare libyaml pull of the same file (the floor for any YAML loader). A process of its own: the match
// benchmarks hold 10k parsed events (about 40 MB), and planning in that heap measures the heap.
import BenchData
import Benchmark
import RuleKitCore
import RuleKitRules
import RuleKitYAML

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock], maxDuration: .seconds(5), maxIterations: 30)
    let rules1000 = BenchData.load("bench/rules-1000.json")
    Benchmark("plan.rules-1000.json parse+load+plan") { b in
        for _ in b.scaledIterations {
            blackHole(Planner().plan(try LaunchRulesLoader.load(json: rules1000, file: "rules-1000.json").get()))
        }
    }
    let yaml = BenchData.load("bench/rules-10k.yaml")
    Benchmark("plan.bare-libyaml-pull rules-10k.yaml") { b in
        for _ in b.scaledIterations { blackHole(YAMLReader.bareEventPull(yaml)) }
    }
    Benchmark("plan.rules-10k.yaml parse+load+plan") { b in
        for _ in b.scaledIterations {
            let doc = try YAMLReader.read(yaml, file: "rules-10k.yaml")
            blackHole(Planner().plan(try RuleSetLoader.load(doc).get()))
        }
    }
}
