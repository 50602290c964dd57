// Reader benchmarks: YAML and JSON to `Value`, each next to its baseline measured in the same run.
//   yaml: rules-10k.yaml → Value   vs  the bare libyaml event pull (the floor; target ≤ 2×)
//   json: events-10k.jsonl → Value vs  Foundation JSONSerialization + conversion (target ≥ 3× faster)
import BenchData
import Benchmark
import Foundation
import RuleKitCore
import RuleKitYAML

func load(_ relative: String) -> [UInt8] { BenchData.load(relative) }

func lines(_ bytes: [UInt8]) -> [[UInt8]] {
    bytes.split(separator: 0x0A).map(Array.init)
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .peakMemoryResident],
        maxDuration: .seconds(10), maxIterations: 20
    )

    let yaml = load("bench/rules-10k.yaml")
    Benchmark("yaml.bare-libyaml-pull rules-10k.yaml") { b in
        for _ in b.scaledIterations { blackHole(YAMLReader.bareEventPull(yaml)) }
    }
    Benchmark("yaml.to-Value rules-10k.yaml") { b in
        for _ in b.scaledIterations { blackHole(try YAMLReader.readAll(yaml, file: "rules-10k.yaml")) }
    }

    let events = lines(load("bench/events-10k.jsonl"))
    Benchmark("json.foundation+convert events-10k.jsonl", configuration: .init(maxIterations: 10)) { b in
        for _ in b.scaledIterations {
            for e in events {
                let obj = try JSONSerialization.jsonObject(with: Data(e))
                blackHole(try Value(foundation: obj))
            }
        }
    }
    Benchmark("json.rulekit events-10k.jsonl") { b in
        for _ in b.scaledIterations {
            for e in events { blackHole(try JSONReader.read(e).value) }
        }
    }
}
