import Foundation
import RuleKitCore
import RuleKitTestSupport
import RuleKitYAML
import Testing

@testable import RuleKitRules

/// The rules in `Rules/` load without findings and do what their descriptions say on `Examples/`.
@Suite struct ShippedRulesTests {
    static func load(_ name: String) throws -> RuleSet {
        let url = SharedCorpus.repositoryRoot.appendingPathComponent("Rules").appendingPathComponent(name)
        let doc = try YAMLReader.read(try #require(SharedCorpus.bytes(url)), file: "Rules/\(name)")
        let result = RuleSetLoader.load(doc)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        return try result.get()
    }

    static func examples() throws -> [Event] {
        let url = SharedCorpus.repositoryRoot.appendingPathComponent("Examples/events.jsonl")
        return try JSONLinesReader(path: url.path).map { r in
            let v = try r.get()
            return Event(
                name: v["name"]?.stringValue ?? "", type: v["type"]?.stringValue ?? "",
                source: v["source"]?.stringValue ?? "", data: v["data"]?.objectValue)
        }
    }

    @Test func everyShippedRulesFileLoadsCleanlyAndPlansWithoutWarnings() throws {
        let files = try FileManager.default.contentsOfDirectory(
            atPath: SharedCorpus.repositoryRoot.appendingPathComponent("Rules").path
        ).filter { $0.hasSuffix(".yaml") && !$0.contains(".test.") }
        #expect(files.count >= 2)
        for f in files {
            let set = try Self.load(f)
            let plan = Planner().plan(set)
            #expect(plan.diagnostics.isEmpty, "\(f): \(plan.diagnostics)")
            #expect(plan.rules.count == set.rules.count)
        }
    }

    @Test func commerceRulesEnrichTheExampleEvents() throws {
        let runtime = StaticRulesRuntime(states: ["com.adobe.module.configuration": ["global.privacy": "optedout"]])
        let engine = RulesEngine(runtime: runtime)
        engine.setRules(Planner().plan(try Self.load("commerce.yaml")))
        let events = try Self.examples()
        let purchase = engine.process(events[0])
        #expect(purchase.data?["data"]?["customerTier"] == "gold")
        #expect(purchase.data?["data"]?["orderBand"] == "GBP 959.45")
        #expect(purchase.data?["xdm"]?["marketing"] == nil)
        _ = engine.process(events[1])
        let sent = runtime.dispatched()
        #expect(sent.map(\.type) == ["com.adobe.eventType.messaging"])
        #expect(sent.first?.data == ["reason": "cart-abandon", "sku": "p0041725"])
        let small = engine.process(events[3])
        #expect(small.data?["data"]?["customerTier"] == nil)
    }
}
