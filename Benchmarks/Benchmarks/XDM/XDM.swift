// XDM validation: the bundled ExperienceEvent schema against the 10,000 payloads of xdm-events-10k.jsonl.
// Every verdict is checked against expectValid once before timing. One iteration = all 10,000 payloads.
// Reference on this machine type: python-jsonschema ~180/s, fastjsonschema ~1,590/s (bench_xdm_validate.py).
import BenchData
import Benchmark
import Foundation
import RuleKitCore
import RuleKitXDM

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock], maxDuration: .seconds(10), maxIterations: 20)
    let schema = try! JSONReader.read(BenchData.load("bench/xdm-experienceevent.bundled.json")).value
    let validator = try! JSONSchemaValidator(schema: schema)
    let records = BenchData.load("bench/xdm-events-10k.jsonl").split(separator: 0x0A).map { try! JSONReader.read(Array($0)).value }
    let payloads = records.map { $0["xdm"]! }
    let invalid = records.filter { $0["expectValid"] == false }.map { $0["xdm"]! }
    for r in records {
        precondition(validator.isValid(r["xdm"]!) == (r["expectValid"] == true), "verdict differs for seq \(r["seq"]!)")
    }

    Benchmark("xdm.isValid x10k payloads") { b in
        for _ in b.scaledIterations {
            for p in payloads { blackHole(validator.isValid(p)) }
        }
    }
    // The issue's workload: a verdict for every payload, and every error (with its path) for the invalid ones.
    Benchmark("xdm.isValid + full errors for invalid x10k payloads") { b in
        for _ in b.scaledIterations {
            for p in payloads where !validator.isValid(p) { blackHole(validator.validate(p)) }
        }
    }
    Benchmark("xdm.validate (full errors) x10k payloads") { b in
        for _ in b.scaledIterations {
            for p in payloads { blackHole(validator.validate(p)) }
        }
    }
    Benchmark("xdm.validate invalid only x1007 payloads") { b in
        for _ in b.scaledIterations {
            for p in invalid { blackHole(validator.validate(p)) }
        }
    }
}
