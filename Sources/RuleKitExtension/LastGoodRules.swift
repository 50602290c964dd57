internal import Foundation
internal import RuleKitCore
internal import RuleKitRules
internal import RuleKitShared
internal import RuleKitSources

/// The last rules set that loaded, kept in a shared container as Launch JSON (one entry per file, in file
/// order), so a restart with broken sources runs what ran before instead of nothing.
enum LastGoodRules {
    static let collection = "rulekit.rules.last-good"

    static func save(_ snapshot: RuleSnapshot, in container: SharedContainer) throws {
        let sets: [Value] = snapshot.files.sets.map { entry in
            ["path": .string(entry.path), "rules": LaunchRulesWriter.value(entry.set)]
        }
        try container.write(collection, ["sources": .array(snapshot.sources.map(Value.string)), "sets": .array(sets)])
    }

    /// The kept set, planned, and the sources it came from; nil when none was kept.
    static func restore(from container: SharedContainer) throws -> (CompiledRuleSet, [String])? {
        guard let kept = try container.read(collection) else { return nil }
        var plans: [CompiledRuleSet] = []
        for entry in kept["sets"]?.arrayValue ?? [] {
            let result = LaunchRulesLoader.load(Document(value: entry["rules"] ?? .null))
            guard let set = result.ruleSet else {
                throw SharedContainerError.corrupt(
                    path: container.path(of: collection),
                    reason: "the kept rules of \(entry["path"]?.stringValue ?? "?") do not load")
            }
            plans.append(Planner().plan(set))
        }
        return (RuleSnapshot.append(plans), kept["sources"]?.arrayValue?.compactMap(\.stringValue) ?? [])
    }
}
