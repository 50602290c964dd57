// The linter: everything knowable about a rule set offline, judged as a rule author would. `rulekit lint`
// prints it; the report and the service show the same findings.
internal import Foundation
public import RuleKitCore
public import RuleKitRules
public import RuleKitSources
public import RuleKitXDM

/// The severities lint gives (`CheckSeverity`, the Check phase's), under the name this module gave them first.
public typealias LintSeverity = CheckSeverity

/// Everything `rulekit lint` can know without running: the loaders' and planner's findings plus the
/// Launch traps, key checks against the XDM catalog and example events, and rules that cannot fire.
public struct Linter: Sendable {
    /// The XDM paths keys are checked against (nil: no XDM checks).
    public var catalog: XDMPathCatalog?
    /// The ExperienceEvent schema attached XDM is checked against.
    public var xdmValidator: JSONSchemaValidator?
    /// Flattened keys seen in example events (`Examples/events.jsonl`).
    public var exampleKeys: Set<String> = []
    /// Whether a key that no schema, data element or example event knows is a finding: lint's question; a
    /// host that runs rules (with no example events to know keys by) leaves it off.
    public var checksUnknownKeys = true

    /// A linter with no schemas and no known keys beyond the rules' own.
    public init() {}

    /// The schema checks a host that runs rules needs (a host's XDM alignment has the validator): the XDM
    /// a consequence attaches, whose misfit is an error that refuses the rules. Keys and their types are
    /// lint's warnings, not asked about at every load.
    ///
    /// - Parameter validator: the ExperienceEvent schema attached XDM is checked against.
    public init(validator: JSONSchemaValidator) {
        xdmValidator = validator
        checksUnknownKeys = false
    }

    /// The XDM leaf an event-data key reads: under `xdm.` (or, for a key without it, the key itself), array
    /// indexes read as `[*]` (nil: no catalog, or no such leaf). The one mapping from a rule's key to the
    /// schemas, for lint and the report.
    public func xdmLeaf(_ key: String) -> XDMPath? {
        guard let catalog else { return nil }
        return catalog.leaf(XDMPathCatalog.normalize(key.hasPrefix("xdm.") ? String(key.dropFirst(4)) : key))
    }

    /// Every finding of the loaded files, with lint's severities (`LintSeverity`): the Check phase run with
    /// this linter's schemas, for the engines of `target` (`RuleTarget`).
    public func lint(_ sources: RuleSnapshot, target: RuleTarget = .mobile) -> [Diagnostic] {
        sources.check(self, target: target)
    }
}

extension Linter: CheckContext {
    /// Whether keys are checked: schemas or example events are known.
    public var checksKeys: Bool { checksUnknownKeys && (catalog != nil || !exampleKeys.isEmpty) }

    /// The XDM type of the leaf `key` reads (see `xdmLeaf`).
    public func xdmType(ofKey key: String) -> String? { xdmLeaf(key)?.type }

    /// Whether `path` (or its form with `[*]` indexes) was seen in the example events.
    public func isExampleKey(_ path: String) -> Bool {
        exampleKeys.contains(path) || exampleKeys.contains(XDMPathCatalog.normalize(path))
    }

    /// What the ExperienceEvent schema refuses in attached XDM, missing required fields left out.
    public func xdmProblems(_ xdm: Value) -> [(pointer: String, message: String)] {
        guard let xdmValidator else { return [] }
        return xdmValidator.validate(xdm).filter { !$0.schemaPath.hasSuffix("/required") }.map { ($0.instancePath, $0.message) }
    }
}
