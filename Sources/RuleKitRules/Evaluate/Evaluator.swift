internal import Foundation
public import RuleKitCore

/// Evaluates planned conditions and renders consequences against one event.
///
/// Stateless apart from the per-pass `Resolver`; the stateful parts of the reference (dispatch chains,
/// the waiting-events cache, reevaluation) live in `RulesEngine`.
public enum Evaluator {
    /// Whether rule `rule` of `set` holds for the resolver's event (the index is not consulted).
    ///
    /// - Parameters:
    ///   - set: the plan.
    ///   - rule: the rule's index in it.
    ///   - r: the resolver of the event.
    /// - Returns: whether the rule holds.
    public static func matches(_ set: CompiledRuleSet, rule: Int, _ r: inout Resolver) -> Bool {
        r.borrowingData { r in Interpreter.matches(set.program, rule: rule, &r) }
    }

    /// The rules of `set` whose condition holds for `event`, in order.
    ///
    /// - Parameters:
    ///   - set: the plan.
    ///   - r: the resolver of the event.
    /// - Returns: the matching rules.
    public static func matchingRules(_ set: CompiledRuleSet, _ r: inout Resolver) -> [PlannedRule] {
        let rules = set.rules
        return matchingPositions(set, &r).map { rules[$0] }
    }

    /// The positions in `set.rules` of the rules whose condition holds, in order. The engine runs the
    /// matched rules' consequences through these: a copy of a `PlannedRule` retains each of its parts, and
    /// copying every matched rule was 3% of a run whose rules record history.
    static func matchingPositions(_ set: CompiledRuleSet, _ r: inout Resolver) -> [Int] {
        var out: [Int] = []
        r.borrowingData { r in
            set.index.forEachCandidate(&r, slots: set.program.slots) { i, r in
                if Interpreter.matches(set.program, rule: i, &r) { out.append(i) }
            }
        }
        return out
    }

    /// How many rules of `set` match (no allocation for the matches themselves).
    ///
    /// - Parameters:
    ///   - set: the plan.
    ///   - r: the resolver of the event.
    /// - Returns: the count.
    public static func matchCount(_ set: CompiledRuleSet, _ r: inout Resolver) -> Int {
        var n = 0
        r.borrowingData { r in
            set.index.forEachCandidate(&r, slots: set.program.slots) { i, r in
                if Interpreter.matches(set.program, rule: i, &r) { n += 1 }
            }
        }
        return n
    }

    // MARK: history

    static func historyOperand(_ h: PlannedCondition.Historical, _ r: inout Resolver) -> Int {
        let results = r.runtime.queryHistory(h.requests, enforceOrder: h.searchType == .ordered)
        switch h.searchType {
        case .mostRecent: return HistoryOperand.mostRecent(results)
        default: return HistoryOperand.count(results, searchType: h.searchType)
        }
    }

    // MARK: rendering

    /// A consequence with its tokens replaced, as `{"id","type","detail"}` parts. The consequence made
    /// last time is handed out again when every token renders as it did then (`Renderings`).
    ///
    /// - Parameters:
    ///   - c: the planned consequence.
    ///   - r: the resolver of the event.
    /// - Returns: the rendered consequence.
    public static func render(_ c: PlannedConsequence, _ r: inout Resolver) -> Consequence {
        var tokens: [String] = []
        for t in c.templates { tokenTexts(t, &r, into: &tokens) }
        if let kept = r.renderings.kept(c.serial, tokens: tokens) { return kept }
        var next = 0
        let rendered = consequence(c, detail: fill(c.detail, tokens, &next))
        r.renderings.keep(c.serial, tokens: tokens, consequence: rendered)
        return rendered
    }

    /// The plain rendering, every template filled in place: what `render` is compared against.
    static func renderAfresh(_ c: PlannedConsequence, _ r: inout Resolver) -> Consequence {
        var tokens: [String] = []
        tokenTexts(c.detail, &r, into: &tokens)
        var next = 0
        return consequence(c, detail: fill(c.detail, tokens, &next))
    }

    private static func consequence(_ c: PlannedConsequence, detail: Value) -> Consequence {
        guard case .object(let detail) = detail else {
            return Consequence(id: c.id, type: c.type, detail: [:], location: c.source.location)
        }
        return Consequence(id: c.id, type: c.type, detail: detail, location: c.source.location)
    }

    /// Renders a template: missing values render "", every value renders as its Swift description.
    ///
    /// - Parameters:
    ///   - t: the template.
    ///   - r: the resolver of the event.
    /// - Returns: the text.
    public static func render(_ t: Template, _ r: inout Resolver) -> String {
        var tokens: [String] = []
        tokenTexts(t, &r, into: &tokens)
        var next = 0
        return fill(t, tokens, &next)
    }

    /// The text of each token of `t`'s templates, in order (an unclosed template renders "" and reads none).
    static func tokenTexts(_ t: TemplateValue, _ r: inout Resolver, into out: inout [String]) {
        t.forEachTemplate { tokenTexts($0, &r, into: &out) }
    }

    static func tokenTexts(_ t: Template, _ r: inout Resolver, into out: inout [String]) {
        if t.unclosed { return }
        for case .token(let tok) in t.segments {
            if tok.isEmpty {
                out.append("")
                continue
            }
            var v = r.resolve(tok.key)
            if let f = tok.function { v = Conversion.apply(f, to: v ?? .string("")) }
            out.append(v.map(SwiftDescription.describe) ?? "")
        }
    }

    /// `t` with its tokens' texts taken from `tokens`, from `next` on (in `TemplateValue.forEachTemplate`'s
    /// order, which this walk keeps: depth first, members in order).
    static func fill(_ t: TemplateValue, _ tokens: [String], _ next: inout Int) -> Value {
        switch t {
        case .literal(let v): return v
        case .template(let tpl): return .string(fill(tpl, tokens, &next))
        case .array(let a): return .array(a.map { fill($0, tokens, &next) })
        case .object(let members):
            var o = ValueObject(minimumCapacity: members.count)
            for (k, v) in members { o.appendNew(key: k, value: fill(v, tokens, &next)) }
            return .object(o)
        }
    }

    static func fill(_ t: Template, _ tokens: [String], _ next: inout Int) -> String {
        if t.unclosed { return "" }
        var out = ""
        for s in t.segments {
            switch s {
            case .text(let text): out += text
            case .token:
                out += tokens[next]
                next += 1
            }
        }
        return out
    }
}

/// The historical-condition operand functions.
public enum HistoryOperand {
    /// `any`: the sum of counts; `ordered`: 1 when every search found something, else 0; -1 on a
    /// database error; -1 for `mostRecent` (which has its own function).
    ///
    /// - Parameters:
    ///   - results: one result per search.
    ///   - searchType: how they combine.
    /// - Returns: the count.
    public static func count(_ results: [HistoryResult], searchType: SearchType) -> Int {
        if results.contains(where: { $0.count < 0 }) { return -1 }
        switch searchType {
        case .any: return results.reduce(0) { $0 + $1.count }
        case .ordered: return results.allSatisfy { $0.count > 0 } ? 1 : 0
        case .mostRecent: return -1
        }
    }

    /// The index of the search whose newest occurrence is latest (ties: the first); -1 when none has a
    /// date or on error.
    ///
    /// - Parameter results: one result per search.
    /// - Returns: the index, or -1.
    public static func mostRecent(_ results: [HistoryResult]) -> Int {
        if results.contains(where: { $0.count < 0 }) { return -1 }
        var best: (Int, Date)?
        for (i, r) in results.enumerated() {
            guard let d = r.newest else { continue }
            if best == nil || d > best!.1 { best = (i, d) }
        }
        return best?.0 ?? -1
    }
}

/// The reference's flattening (`a.b.0.c` keys), for history masks, `~all_url` and test suites.
public enum Flatten {
    /// Flattens an object; arrays become numeric segments when `arrays` is true, else stay values.
    /// Empty objects and arrays vanish; a later key wins on a collision.
    ///
    /// - Parameters:
    ///   - o: the object.
    ///   - arrays: whether arrays are flattened too.
    /// - Returns: the flat object.
    public static func object(_ o: ValueObject, arrays: Bool) -> ValueObject {
        var out = ValueObject()
        add(.object(o), prefix: nil, arrays: arrays, into: &out)
        return out
    }

    /// Flattens an array root: its elements become `0`, `1`, ... keys.
    ///
    /// - Parameters:
    ///   - a: the array.
    ///   - arrays: whether nested arrays are flattened too.
    /// - Returns: the flat object.
    public static func array(_ a: [Value], arrays: Bool) -> ValueObject {
        var out = ValueObject()
        add(.array(a), prefix: nil, arrays: true, into: &out, nestedArrays: arrays)
        return out
    }

    static func add(_ v: Value, prefix: String?, arrays: Bool, into out: inout ValueObject, nestedArrays: Bool? = nil) {
        switch v {
        case .object(let o):
            for (k, x) in o {
                add(x, prefix: prefix.map { $0 + "." + k } ?? k, arrays: nestedArrays ?? arrays, into: &out)
            }
        case .array(let a) where arrays:
            for (i, x) in a.enumerated() {
                add(x, prefix: prefix.map { $0 + "." + String(i) } ?? String(i), arrays: nestedArrays ?? arrays, into: &out)
            }
        default:
            if let p = prefix { out[p] = v }
        }
    }
}
