// What the planner read of a rule's conditions, kept beside the planned condition for the Check phase. The
// planned condition is what the evaluator runs: keys as slots, data elements resolved, a matcher of several
// values split into comparisons. A finding quotes what the author wrote and points where it is written, so
// the planner keeps that too, as it reads it: the matchers of every rule in one table of the plan
// (`CompiledRuleSet.matchers(of:)`), each rule's historical conditions with it. The Check phase reads the
// plan alone, and the evaluator never reads these.
public import RuleKitCore

/// A matcher as the planner read it.
public struct PlannedMatcher: Sendable, Hashable {
    /// The key as written (`%orderTotal%`, `xdm.commerce.order.priceTotal`).
    public var key: String
    /// The path of the data element the key names (nil: the key is no data element).
    public var elementPath: String?
    /// The declared type of the data element the key names (nil: the key is no data element).
    public var declaredType: DataElement.ValueType?
    /// The matcher's operation.
    public var operation: Operation
    /// Its values as written.
    public var values: [Value]
    /// Where it is written.
    public var location: SourceLocation?
    /// The keys an enclosing `and` requires to exist (an `ex` matcher beside it, or beside a group it is
    /// in): a comparison a missing key satisfies cannot spring on them.
    public var guarded: Set<String>

    /// What the key reads: a data element's path for `%name%`, else the key.
    public var path: String { elementPath ?? key }
    /// The matcher's code (`ne`): the code written, since only the reference's codes are read.
    public var code: String { operation.code }
}

/// A historical condition as the planner read it.
public struct PlannedHistoricalSource: Sendable, Hashable {
    /// Its event masks as written.
    public var masks: [ValueObject]
    /// Where it is written.
    public var location: SourceLocation?
}
