internal import Foundation
public import RuleKitCore
internal import Synchronization

/// The right side of a comparison; its type picks the conversion applied to the left side.
public enum Operand: Sendable, Hashable {
    /// A string, with its lowercased form for the case-insensitive operators.
    case string(String, lowered: String)
    case int(Int64)
    case double(Double)
    case bool(Bool)

    /// The operand's type, for explain (`string`, `int`, `double`, `bool`).
    public var typeName: String {
        switch self {
        case .string: "string"
        case .int: "int"
        case .double: "double"
        case .bool: "bool"
        }
    }

    /// The operand as a value.
    public var value: Value {
        switch self {
        case .string(let s, _): .string(s)
        case .int(let i): .int(i)
        case .double(let d): .double(d)
        case .bool(let b): .bool(b)
        }
    }
}

/// The search types of historical conditions.
public enum SearchType: String, Sendable, Hashable {
    case any, ordered, mostRecent
}

/// A planned condition tree: what the evaluator walks, nothing left to parse.
public enum PlannedCondition: Sendable, Hashable {
    case and([PlannedCondition])
    case or([PlannedCondition])
    /// A group with a logic other than `and`/`or`: always false (children kept for explain).
    case unknownLogic(String, [PlannedCondition])
    case comparison(key: SlotKey, operation: Operation, operand: Operand)
    /// `ex` (`negated` false) or `nx` (true) on the raw value.
    case existence(key: SlotKey, negated: Bool)
    case historical(Historical)

    /// A planned historical condition.
    public struct Historical: Sendable, Hashable {
        /// The event masks searched for, in order.
        public var masks: [ValueObject]
        /// How the count compares with `value`.
        public var operation: Operation
        /// The count compared with.
        public var value: Int64
        /// The window start, in milliseconds since 1970.
        public var from: Int64?
        /// The window end, in milliseconds since 1970.
        public var to: Int64?
        /// How the masks are searched.
        public var searchType: SearchType
        /// The searches the runtime runs, one per mask: flattened and with their window as dates once, at
        /// plan time, not for every event.
        public let requests: [HistoryRequest]

        /// A historical condition; its history requests are built here, once.
        ///
        /// - Parameters:
        ///   - masks: the event masks searched.
        ///   - operation: the comparison.
        ///   - value: the value compared with.
        ///   - from: the window's start (ms).
        ///   - to: its end (ms).
        ///   - searchType: how the searches combine.
        public init(masks: [ValueObject], operation: Operation, value: Int64, from: Int64?, to: Int64?, searchType: SearchType) {
            self.masks = masks
            self.operation = operation
            self.value = value
            self.from = from
            self.to = to
            self.searchType = searchType
            let fromDate = from.map { Date(timeIntervalSince1970: Double($0) / 1000) }
            let toDate = to.map { Date(timeIntervalSince1970: Double($0) / 1000) }
            requests = masks.map { HistoryRequest(mask: Flatten.object($0, arrays: true), from: fromDate, to: toDate) }
        }
    }
}

/// A condition key with its slot: the position of its value in the per-event cache, so each distinct
/// key is resolved at most once per event however many rules read it.
public struct SlotKey: Sendable, Hashable {
    /// The key.
    public var ref: KeyRef
    /// Its position in the per-event cache.
    public var slot: Int
    /// Whether the value may be cached for the pass (`~cachebust` is random at every read).
    public let cacheable: Bool

    /// `ref` at cache position `slot`.
    ///
    /// - Parameters:
    ///   - ref: the parsed key.
    ///   - slot: its cache position.
    public init(ref: KeyRef, slot: Int) {
        self.ref = ref
        self.slot = slot
        self.cacheable = ref != .cacheBust
    }
}

extension PlannedCondition {
    /// The same tree with every slot moved by `offset` (when rule sets are appended).
    func offsettingSlots(by offset: Int) -> PlannedCondition {
        switch self {
        case .and(let cs): .and(cs.map { $0.offsettingSlots(by: offset) })
        case .or(let cs): .or(cs.map { $0.offsettingSlots(by: offset) })
        case .unknownLogic(let l, let cs): .unknownLogic(l, cs.map { $0.offsettingSlots(by: offset) })
        case .comparison(var k, let op, let operand):
            {
                k.slot += offset
                return .comparison(key: k, operation: op, operand: operand)
            }()
        case .existence(var k, let n):
            {
                k.slot += offset
                return .existence(key: k, negated: n)
            }()
        case .historical: self
        }
    }
}

/// A consequence with its detail's strings parsed into templates.
public final class PlannedConsequence: Sendable, Hashable {
    /// What the engine does with a consequence (`other`: hands it to the host).
    public enum Kind: Sendable, Hashable {
        case add, mod, dispatch, schema, other
    }

    /// The consequence's id.
    public let id: String
    /// Its type as written.
    public let type: String
    /// Its type as the engine handles it.
    public let kind: Kind
    /// Its detail with strings parsed into templates.
    public let detail: TemplateValue
    /// The consequence as written.
    public let source: Consequence
    /// A number no other planned consequence of this process has: a resolver keeps its last rendering
    /// under it (`Renderings`). The fields are constants, so one serial always means one detail. Not part
    /// of equality: two plans of the same consequence are equal.
    let serial: Int
    /// The detail's templates, in `TemplateValue.forEachTemplate`'s order: a consequence renders on
    /// every event its rule matches, and reading its tokens from this list spares a walk of the detail's
    /// tree (and a retain and release of each of its nodes) each time. Derived from `detail`: not part of
    /// equality.
    let templates: [Template]

    private static let serials = Atomic<Int>(0)

    init(id: String, type: String, kind: Kind, detail: TemplateValue, source: Consequence) {
        self.id = id
        self.type = type
        self.kind = kind
        self.detail = detail
        self.source = source
        serial = Self.serials.wrappingAdd(1, ordering: .relaxed).newValue
        var templates: [Template] = []
        detail.forEachTemplate { templates.append($0) }
        self.templates = templates
    }

    /// Equality of everything but the serial.
    public static func == (a: PlannedConsequence, b: PlannedConsequence) -> Bool {
        a.id == b.id && a.type == b.type && a.kind == b.kind && a.detail == b.detail && a.source == b.source
    }

    /// Hashes everything but the serial.
    public func hash(into h: inout Hasher) {
        h.combine(id)
        h.combine(type)
        h.combine(kind)
        h.combine(detail)
        h.combine(source)
    }
}

/// A JSON value whose strings may hold tokens.
public enum TemplateValue: Sendable, Hashable {
    case literal(Value)
    case template(Template)
    case array([TemplateValue])
    case object([(String, TemplateValue)])

    /// Structural equality.
    public static func == (a: TemplateValue, b: TemplateValue) -> Bool {
        switch (a, b) {
        case (.literal(let x), .literal(let y)): x == y
        case (.template(let x), .template(let y)): x == y
        case (.array(let x), .array(let y)): x == y
        case (.object(let x), .object(let y)): x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    /// Calls `body` with each template, depth first and members in order: the one order in which tokens are
    /// read (`Evaluator.tokenTexts`, `PlannedConsequence.templates`) and filled (`Evaluator.fill`, which
    /// builds the value as it walks and so visits in this order too). Depth is bounded as the detail's
    /// reader bounds it.
    func forEachTemplate(_ body: (Template) -> Void) {
        switch self {
        case .literal: return
        case .template(let t): body(t)
        case .array(let a): for x in a { x.forEachTemplate(body) }
        case .object(let members): for (_, v) in members { v.forEachTemplate(body) }
        }
    }

    /// Hashes consistently with `==`.
    public func hash(into h: inout Hasher) {
        switch self {
        case .literal(let v): h.combine(v)
        case .template(let t): h.combine(t)
        case .array(let a): h.combine(a)
        case .object(let o):
            for (k, v) in o {
                h.combine(k)
                h.combine(v)
            }
        }
    }
}

/// One planned rule.
public struct PlannedRule: Sendable {
    /// Position in the planned set (evaluation order).
    public var index: Int
    /// The rule as written.
    public var rule: Rule
    /// Its condition, planned.
    public var condition: PlannedCondition
    /// Its consequences, planned.
    public var consequences: [PlannedConsequence]
    /// `meta.reEvaluate == true`.
    public var reEvaluate: Bool
    /// Its position in the rule set it was planned from (disabled and dropped rules counted): how the
    /// loader's, the planner's and the Check's messages name a rule without an id (`#3`).
    public var sourceIndex = 0
    /// Where its matchers are in the plan's table (`CompiledRuleSet.matchers(of:)`).
    var matcherRange: Range<Int> = 0..<0
    /// Its historical conditions as the planner read them, for the Check phase.
    public var historicalSources: [PlannedHistoricalSource] = []
    /// Whether it has a `schema` consequence (what reevaluation holds back).
    public var hasSchemaConsequence: Bool { consequences.contains { $0.kind == .schema } }
    /// A name for messages: the id, else the position.
    public var label: String { rule.id ?? "#\(index)" }
}

/// A rule set compiled once: immutable and `Sendable`, so any number of threads evaluate it at once.
public struct CompiledRuleSet: Sendable {
    /// The set's parts behind one reference: the engine takes the current set out of its lock for every
    /// event, and a copy is then one retain, not one for every array of the index and the program.
    private final class Parts: Sendable {
        let rules: [PlannedRule]
        let slotCount: Int
        let index: RuleIndex
        let program: Program
        let diagnostics: [Diagnostic]
        let historyQuestions: HistoryQuestions
        /// Each rule's `label`, made once: a service counts every match by it.
        let labels: [String]
        /// Every rule's matchers as the planner read them (`PlannedRule.matcherRange`), for the Check phase.
        let matchers: [PlannedMatcher]

        init(
            rules: [PlannedRule], matchers: [PlannedMatcher], slotCount: Int, index: RuleIndex, program: Program,
            diagnostics: [Diagnostic]
        ) {
            self.rules = rules
            self.matchers = matchers
            labels = rules.map(\.label)
            self.slotCount = slotCount
            self.index = index
            self.program = program
            self.diagnostics = diagnostics
            historyQuestions = Self.questions(program: program, rules: rules)
        }

        /// The hashes of every historical condition's searches; any hash when a history consequence
        /// searches before it inserts (`insertIfNotExists`: its content, and so its hash, may be a template).
        static func questions(program: Program, rules: [PlannedRule]) -> HistoryQuestions {
            var q = HistoryQuestions()
            for h in program.historicals {
                for r in h.requests {
                    q.hashes.insert(r.hash)
                    if r.from != nil || r.to != nil || h.searchType == .ordered { q.timed.insert(r.hash) }
                }
            }
            for rule in rules {
                for c in rule.consequences where c.kind == .schema {
                    guard case .string(let schema)? = c.source.detail["schema"], schema == RulesEventNames.historySchema,
                        case .object(let data)? = c.source.detail["data"], case .string(let op)? = data["operation"],
                        op == "insertIfNotExists"
                    else { continue }
                    q.anyHash = true
                }
            }
            return q
        }
    }

    private let parts: Parts

    /// The rules that survived planning, in evaluation order.
    public var rules: [PlannedRule] { parts.rules }
    /// The rules' labels (`PlannedRule.label`), in evaluation order.
    public var labels: [String] { parts.labels }
    /// How many distinct condition keys the rules read (the size of the per-event cache).
    public var slotCount: Int { parts.slotCount }
    var index: RuleIndex { parts.index }
    var program: Program { parts.program }
    /// What planning noticed (dropped conditions and rules, unknown matchers...), located.
    public var diagnostics: [Diagnostic] { parts.diagnostics }
    /// The history questions the rules can ask: what a block's prefetch reads (`HistoryWorkingSet`).
    public var historyQuestions: HistoryQuestions { parts.historyQuestions }

    /// The matchers of `rule`, one of this set's rules, as the planner read them: the key as written, what it
    /// reads, where it is (the Check phase's reading; the evaluator runs `rule.condition`).
    ///
    /// - Parameter rule: one of `rules`.
    /// - Returns: its matchers, in the order written.
    public func matchers(of rule: PlannedRule) -> ArraySlice<PlannedMatcher> {
        let r = rule.matcherRange
        guard r.lowerBound >= 0, r.upperBound <= parts.matchers.count else { return [] }
        return parts.matchers[r]
    }

    init(rules: [PlannedRule], matchers: [PlannedMatcher] = [], slotCount: Int, diagnostics: [Diagnostic], indexed: Bool = true) {
        parts = Parts(
            rules: rules, matchers: matchers, slotCount: slotCount,
            index: indexed ? RuleIndex(rules) : RuleIndex(unindexed: rules.count),
            program: Program(rules, slotCount: slotCount), diagnostics: diagnostics)
    }

    /// A set with no rules.
    public static let empty = CompiledRuleSet(rules: [], slotCount: 0, diagnostics: [])

    /// The same rules without the index (for measuring what the index gains).
    public func withoutIndex() -> CompiledRuleSet {
        CompiledRuleSet(rules: rules, matchers: parts.matchers, slotCount: slotCount, diagnostics: diagnostics, indexed: false)
    }

    /// This set followed by `other` (the engine's `addRules`).
    ///
    /// - Parameter other: the rules appended.
    /// - Returns: the combined plan.
    public func appending(_ other: CompiledRuleSet) -> CompiledRuleSet {
        // Appended to nothing, the other set is the answer as it is: building it again would plan its
        // program and index a second time (a third of loading 10,000 rules).
        if rules.isEmpty && slotCount == 0 && diagnostics.isEmpty { return other }
        var all = rules
        let offset = parts.matchers.count
        for var r in other.rules {
            r.index = all.count
            r.condition = r.condition.offsettingSlots(by: slotCount)
            r.matcherRange = (r.matcherRange.lowerBound + offset)..<(r.matcherRange.upperBound + offset)
            all.append(r)
        }
        return CompiledRuleSet(
            rules: all, matchers: parts.matchers + other.parts.matchers, slotCount: slotCount + other.slotCount,
            diagnostics: diagnostics + other.diagnostics)
    }
}
