// What the Check phase learns from outside the rules: the XDM schemas and the example events. The rules
// layer knows neither (it depends on RuleKitCore alone), so they come in through this protocol; the
// linter of RuleKitTooling is the context every consumer plugs in.
public import RuleKitCore

/// The schema checks plugged into the Check phase.
public protocol CheckContext: Sendable {
    /// Whether keys are checked against known keys at all (a schema catalog or example events are known).
    var checksKeys: Bool { get }
    /// The JSON Schema type(s) of the XDM leaf an event-data key reads (`number`, `string`, ...); nil when
    /// no schema has that leaf.
    ///
    /// - Parameter key: the event-data key, as a rule writes it.
    /// - Returns: the leaf's type, or nil.
    func xdmType(ofKey key: String) -> String?
    /// Whether `path` (as written, and with array indexes read as `[*]`) was seen in example events.
    ///
    /// - Parameter path: the key's path.
    /// - Returns: whether an example event has it.
    func isExampleKey(_ path: String) -> Bool
    /// What the schemas refuse in the XDM a consequence attaches: each problem's JSON pointer under `xdm`
    /// and message. Missing required fields are not a consequence's business and are left out.
    ///
    /// - Parameter xdm: the XDM the consequence attaches.
    /// - Returns: the problems, each with its JSON pointer under `xdm`.
    func xdmProblems(_ xdm: Value) -> [(pointer: String, message: String)]
}
