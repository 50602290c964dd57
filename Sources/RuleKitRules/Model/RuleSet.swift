// RuleKitRules is RuleKit's rules engine: the Launch rule model, the loaders that build it from Launch
// `rules.json` or RuleKit's YAML format (given as parsed `Document`s: this module has no parser of its
// own), the planner that compiles a rule set once into an immutable `CompiledRuleSet`, and the one
// interpreter and stateful engine that apply it to events with the exact semantics of the Launch rules
// engine (`docs/rules-semantics.md` lists every decision). It depends only on RuleKitCore: events,
// shared states, history and the clock come in through the `RulesRuntime` protocol.
public import RuleKitCore

/// A set of rules as written: the common model of Launch `rules.json` and RuleKit's YAML format.
///
/// It keeps everything the source said, valid or not (an unknown matcher stays a string), so a rule set
/// converts between the formats without loss; the planner decides what the engine does with it.
public struct RuleSet: Sendable, Hashable {
    /// The format version (Launch's `version`).
    public var version: Int64
    /// The rules, in evaluation order.
    public var rules: [Rule]
    /// Named references to paths (`%orderTotal%`), declared once per rule set (RuleKit extension).
    public var dataElements: [DataElement]

    /// A rule set of these rules and data elements.
    ///
    /// - Parameters:
    ///   - version: the format's version.
    ///   - rules: the rules.
    ///   - dataElements: the data elements.
    public init(version: Int64 = 1, rules: [Rule] = [], dataElements: [DataElement] = []) {
        self.version = version
        self.rules = rules
        self.dataElements = dataElements
    }
}

/// One rule: a condition and the consequences that run when it holds.
public struct Rule: Sendable, Hashable {
    /// RuleKit's identifier (Launch rules have none; exported as `meta.id`).
    public var id: String?
    /// A short name for people.
    public var name: String?
    /// What the rule is for.
    public var description: String?
    /// A disabled rule is kept in the set but never planned.
    public var enabled: Bool
    /// Launch `meta` (its only key with meaning is `reEvaluate`).
    public var meta: ValueObject?
    /// The condition that must hold for the consequences to run.
    public var condition: Condition
    /// What runs when the condition holds, in order.
    public var consequences: [Consequence]
    /// Where the rule starts in its source.
    public var location: SourceLocation?

    /// A rule; enabled, with no consequences, unless told otherwise.
    ///
    /// - Parameters:
    ///   - id: the rule's id.
    ///   - name: its name.
    ///   - description: what it is for.
    ///   - enabled: whether it runs.
    ///   - meta: anything else the author keeps on it.
    ///   - condition: when it matches.
    ///   - consequences: what it does.
    ///   - location: where it is written.
    public init(
        id: String? = nil, name: String? = nil, description: String? = nil, enabled: Bool = true,
        meta: ValueObject? = nil, condition: Condition, consequences: [Consequence] = [],
        location: SourceLocation? = nil
    ) {
        self.id = id
        self.name = name
        self.description = description
        self.enabled = enabled
        self.meta = meta
        self.condition = condition
        self.consequences = consequences
        self.location = location
    }

    /// `meta.reEvaluate == true`.
    public var reEvaluate: Bool { meta?["reEvaluate"] == .bool(true) }

    /// A name for messages: the id, else the position.
    ///
    /// - Parameter index: the rule's position.
    /// - Returns: the label.
    public func label(index: Int) -> String { id ?? "#\(index)" }
}

/// A condition node exactly as Launch defines it: a type and a definition whose fields are all optional.
public struct Condition: Sendable, Hashable {
    /// The Launch condition types.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case group, matcher, historical
    }

    /// The condition's Launch type.
    public var kind: Kind
    /// Its fields, as written.
    public var definition: Definition
    /// Where the condition starts in its source.
    public var location: SourceLocation?

    /// A condition of `kind` with `definition`.
    ///
    /// - Parameters:
    ///   - kind: group, matcher or historical.
    ///   - definition: its fields.
    ///   - location: where it is written.
    public init(kind: Kind, definition: Definition, location: SourceLocation? = nil) {
        self.kind = kind
        self.definition = definition
        self.location = location
    }

    /// The Launch `definition` object.
    ///
    /// Its ten optional fields live in one copy-on-write box: a condition is copied many times while
    /// rule sets are loaded and planned, and a copy then costs one retain instead of one per field.
    public struct Definition: Sendable, Hashable {
        final class Storage: @unchecked Sendable {
            // Mutated only while uniquely referenced (copy-on-write), so sharing it is safe.
            var logic: String?
            var conditions: [Condition]?
            var key: String?
            var matcher: String?
            var values: [Value]?
            var events: [ValueObject]?
            var value: Value?
            var from: Int64?
            var to: Int64?
            var searchType: String?

            init() {}

            func copy() -> Storage {
                let s = Storage()
                s.logic = logic
                s.conditions = conditions
                s.key = key
                s.matcher = matcher
                s.values = values
                s.events = events
                s.value = value
                s.from = from
                s.to = to
                s.searchType = searchType
                return s
            }
        }

        private var storage = Storage()

        /// Makes `storage` this definition's own before a field is set. It returns nothing: handing the box
        /// back would cost a retain and a release for every field a loader sets.
        private mutating func makeUnique() {
            if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        }

        /// A group's logic (`and`, `or`).
        public var logic: String? {
            get { storage.logic }
            set {
                makeUnique()
                storage.logic = newValue
            }
        }
        /// A group's children.
        public var conditions: [Condition]? {
            get { storage.conditions }
            set {
                makeUnique()
                storage.conditions = newValue
            }
        }
        /// A matcher's key path.
        public var key: String? {
            get { storage.key }
            set {
                makeUnique()
                storage.key = newValue
            }
        }
        /// A matcher's code (`eq`, `gt`, ...).
        public var matcher: String? {
            get { storage.matcher }
            set {
                makeUnique()
                storage.matcher = newValue
            }
        }
        /// A matcher's values (any one may match; all must for `ne` and `nc`).
        public var values: [Value]? {
            get { storage.values }
            set {
                makeUnique()
                storage.values = newValue
            }
        }
        /// A historical condition's event masks.
        public var events: [ValueObject]? {
            get { storage.events }
            set {
                makeUnique()
                storage.events = newValue
            }
        }
        /// A historical condition's count to compare with.
        public var value: Value? {
            get { storage.value }
            set {
                makeUnique()
                storage.value = newValue
            }
        }
        /// A historical condition's window start, in milliseconds since 1970.
        public var from: Int64? {
            get { storage.from }
            set {
                makeUnique()
                storage.from = newValue
            }
        }
        /// A historical condition's window end, in milliseconds since 1970.
        public var to: Int64? {
            get { storage.to }
            set {
                makeUnique()
                storage.to = newValue
            }
        }
        /// A historical condition's search type (`any`, `ordered`, `mostRecent`).
        public var searchType: String? {
            get { storage.searchType }
            set {
                makeUnique()
                storage.searchType = newValue
            }
        }

        /// A definition with the given fields; the others are absent.
        ///
        /// - Parameters:
        ///   - logic: a group's `and`/`or`.
        ///   - conditions: a group's conditions.
        ///   - key: a matcher's key.
        ///   - matcher: a matcher's code.
        ///   - values: a matcher's values.
        ///   - events: a historical condition's event masks.
        ///   - value: a historical condition's value.
        ///   - from: a historical window's start (ms).
        ///   - to: its end (ms).
        ///   - searchType: a historical search's type.
        public init(
            logic: String? = nil, conditions: [Condition]? = nil, key: String? = nil, matcher: String? = nil,
            values: [Value]? = nil, events: [ValueObject]? = nil, value: Value? = nil, from: Int64? = nil,
            to: Int64? = nil, searchType: String? = nil
        ) {
            let s = storage
            s.logic = logic
            s.conditions = conditions
            s.key = key
            s.matcher = matcher
            s.values = values
            s.events = events
            s.value = value
            s.from = from
            s.to = to
            s.searchType = searchType
        }

        /// Equal when every field is.
        public static func == (a: Definition, b: Definition) -> Bool {
            if a.storage === b.storage { return true }
            return a.logic == b.logic && a.conditions == b.conditions && a.key == b.key && a.matcher == b.matcher
                && a.values == b.values && a.events == b.events && a.value == b.value && a.from == b.from
                && a.to == b.to && a.searchType == b.searchType
        }

        /// Hashes every field, consistently with `==`.
        public func hash(into h: inout Hasher) {
            h.combine(logic)
            h.combine(conditions)
            h.combine(key)
            h.combine(matcher)
            h.combine(values)
            h.combine(events)
            h.combine(value)
            h.combine(from)
            h.combine(to)
            h.combine(searchType)
        }
    }

    /// A group condition of `logic` over `conditions`.
    ///
    /// - Parameters:
    ///   - logic: `and` or `or`.
    ///   - conditions: the conditions.
    ///   - location: where it is written.
    /// - Returns: the condition.
    public static func group(_ logic: String, _ conditions: [Condition], at location: SourceLocation? = nil) -> Condition {
        Condition(kind: .group, definition: Definition(logic: logic, conditions: conditions), location: location)
    }

    /// A matcher condition comparing `key` with `values` through `matcher`.
    ///
    /// - Parameters:
    ///   - key: the key.
    ///   - matcher: the matcher's code.
    ///   - values: the values.
    ///   - location: where it is written.
    /// - Returns: the condition.
    public static func matcher(_ key: String, _ matcher: String, _ values: [Value], at location: SourceLocation? = nil)
        -> Condition
    {
        Condition(kind: .matcher, definition: Definition(key: key, matcher: matcher, values: values), location: location)
    }
}

/// One consequence: `id`, `type` and a `detail` object, as in Launch.
public struct Consequence: Sendable, Hashable {
    /// The consequence's id.
    public var id: String
    /// Its type (`add`, `mod`, `dispatch`, `schema`, or another the host handles).
    public var type: String
    /// Its detail, with `{% %}` tokens in strings.
    public var detail: ValueObject
    /// Where the consequence starts in its source.
    public var location: SourceLocation?

    /// A consequence with these fields.
    ///
    /// - Parameters:
    ///   - id: the consequence's id.
    ///   - type: its type.
    ///   - detail: its detail.
    ///   - location: where it is written.
    public init(id: String, type: String, detail: ValueObject, location: SourceLocation? = nil) {
        self.id = id
        self.type = type
        self.detail = detail
        self.location = location
    }

    /// The JSON form `{"id","type","detail"}` (what rules-consequence events carry).
    public var value: Value {
        .object(
            ValueObject(members: [
                .init(key: "id", value: .string(id)), .init(key: "type", value: .string(type)),
                .init(key: "detail", value: .object(detail)),
            ]))
    }
}

/// A named, typed reference to a key path (RuleKit extension): `%orderTotal%` in matcher keys and tokens.
public struct DataElement: Sendable, Hashable {
    /// The type a data element's value is converted to (`any`: kept as found).
    public enum ValueType: String, Sendable, Hashable, CaseIterable {
        case string, int, double, bool, any
    }

    /// The name used as `%name%`.
    public var name: String
    /// A Launch key path: `commerce.order.priceTotal`, `~state.ext/path`, `~xdm.ext/path`, `~type`, ...
    public var path: String
    /// The type the value is converted to.
    public var type: ValueType
    /// What the element holds, for people.
    public var description: String?
    /// Where the element is declared.
    public var location: SourceLocation?

    /// A data element naming `path`.
    ///
    /// - Parameters:
    ///   - name: the element's name (`%name%`).
    ///   - path: the path it reads.
    ///   - type: the type it is read as.
    ///   - description: what it is.
    ///   - location: where it is written.
    public init(
        name: String, path: String, type: ValueType = .any, description: String? = nil,
        location: SourceLocation? = nil
    ) {
        self.name = name
        self.path = path
        self.type = type
        self.description = description
        self.location = location
    }
}

extension RuleSet {
    /// The same rules with source locations cleared: what stays equal when a set is converted between
    /// formats and read back (locations differ by nature).
    public func withoutLocations() -> RuleSet {
        var s = self
        s.rules = rules.map { r in
            var r = r
            r.location = nil
            r.condition = r.condition.withoutLocations()
            r.consequences = r.consequences.map { q in
                var q = q
                q.location = nil
                return q
            }
            return r
        }
        s.dataElements = dataElements.map { e in
            var e = e
            e.location = nil
            return e
        }
        return s
    }
}

extension Condition {
    /// The condition with every location cleared (its depth is bounded by the readers' nesting limit).
    public func withoutLocations() -> Condition {
        var c = self
        c.location = nil
        c.definition.conditions = c.definition.conditions?.map { $0.withoutLocations() }
        return c
    }
}
