internal import Foundation
internal import RuleKitCore

/// Hands reevaluable rules to the host before their `schema` consequences run (the reference's
/// `RuleReevaluationInterceptor`). Call `completion(true)` to re-evaluate and run them, `false` to drop them.
public protocol RuleReevaluationInterceptor: AnyObject, Sendable {
    func onReevaluationTriggered(
        event: EngineEvent, reevaluableRules: [PlannedRule],
        completion: @escaping @Sendable (Bool) -> Void)
}

/// The stateful Launch rules engine: rules, the dispatch-chain counts, the waiting-events cache and
/// reevaluation, exactly as the reference's `LaunchRulesEngine` behaves.
///
/// Thread-safe: every entry point runs under one lock, as the reference runs on one serial queue;
/// events it produces are handed to the runtime after the lock is released, in order.
///
/// ```swift
/// let engine = RulesEngine(name: "rules", runtime: hub)
/// engine.replaceRules(with: Planner().plan(ruleSet))   // dispatches the reset event
/// let delivered = engine.process(event)
/// ```
public final class RulesEngine: Sendable {
    /// The engine's name, in its reset and consequence events.
    public let name: String
    let runtime: any RulesRuntime

    struct State {
        var rules = CompiledRuleSet.empty
        /// Events seen before the first reset event came back; nil once replayed.
        var waiting: [EngineEvent]? = []
        var chainCounts: [UUID: Int] = [:]
        weak var interceptor: (any RuleReevaluationInterceptor)?
        /// The resolver of every pass, reset for each event: its caches keep their storage (a fresh one
        /// per event would allocate and zero them, sized by the rule set, every time).
        var resolver: Resolver?
    }

    private let state = Locked(State())

    /// The dispatch chain limit: events made by `dispatch` consequences may not dispatch again.
    public static let maxChainedConsequenceCount = 1

    /// An engine with no rules, reading from and dispatching to `runtime`.
    public init(name: String = RulesEventNames.defaultEngineName, runtime: any RulesRuntime) {
        self.name = name
        self.runtime = runtime
    }

    /// The rules in force.
    public var rules: CompiledRuleSet { state.withLock { $0.rules } }

    /// Replaces all rules and dispatches the reset event (the "rules loaded" signal).
    public func replaceRules(with set: CompiledRuleSet) {
        state.withLock { $0.rules = set }
        runtime.dispatch(resetEvent())
    }

    /// Appends rules without a reset event.
    public func addRules(_ set: CompiledRuleSet) {
        state.withLock { $0.rules = $0.rules.appending(set) }
    }

    /// Installs rules without a reset event (what the reference's tests do directly).
    public func setRules(_ set: CompiledRuleSet) {
        state.withLock { $0.rules = set }
    }

    /// Sets (or with nil, clears) the interceptor that may hold events for re-evaluation; held weakly.
    public func setReevaluationInterceptor(_ interceptor: (any RuleReevaluationInterceptor)?) {
        state.withLock { $0.interceptor = interceptor }
    }

    /// The reset event this engine dispatches on `replaceRules`.
    public func resetEvent() -> EngineEvent {
        EngineEvent(
            name: name, type: RulesEventNames.rulesEngineType, source: RulesEventNames.requestReset,
            data: ["name": .string(name)])
    }

    func isOwnReset(_ e: EngineEvent) -> Bool {
        e.type == RulesEventNames.rulesEngineType && e.source == RulesEventNames.requestReset
            && e.data?["name"] == .string(name)
    }

    /// Processes an event: evaluates every rule against it, applies the consequences in order, and returns
    /// the event listeners should receive (the same event when nothing matched).
    public func process(_ event: EngineEvent) -> EngineEvent {
        var out: [EngineEvent] = []
        var reevaluation: (any RuleReevaluationInterceptor, EngineEvent, [PlannedRule], EngineEvent)?
        let result = state.withLock { s -> EngineEvent in
            if s.waiting != nil {
                if isOwnReset(event) {
                    let cached = s.waiting!
                    s.waiting = nil
                    for e in cached {
                        let chain = s.chainCounts.removeValue(forKey: e.id) ?? 0
                        _ = apply(
                            event: e, rules: s.rules, chain: chain, chainCounts: &s.chainCounts, out: &out,
                            interceptor: nil, reevaluation: &reevaluation, resolver: &s.resolver)
                    }
                } else {
                    s.waiting!.append(event)
                }
            }
            let chain = s.chainCounts.removeValue(forKey: event.id) ?? 0
            return apply(
                event: event, rules: s.rules, chain: chain, chainCounts: &s.chainCounts, out: &out,
                interceptor: s.interceptor, reevaluation: &reevaluation, resolver: &s.resolver)
        }
        for e in out { runtime.dispatch(e) }
        if let (interceptor, processed, rules, original) = reevaluation {
            interceptor.onReevaluationTriggered(event: processed, reevaluableRules: rules) { [self] ok in
                guard ok else { return }
                self.reevaluate(original: original, processed: processed, skipping: Set(rules.flatMap { $0.consequences.map(\.id) }))
            }
        }
        return result
    }

    /// Matches and renders without side effects: the consequences of every matching rule, or nil when
    /// no rule matched.
    public func evaluate(_ event: EngineEvent) -> [Consequence]? {
        let rules = self.rules
        var r = Resolver(event: event, runtime: runtime, slotCount: rules.slotCount)
        let matched = Evaluator.matchingRules(rules, &r)
        if matched.isEmpty { return nil }
        return matched.flatMap { rule in rule.consequences.map { Evaluator.render($0, &r) } }
    }

    /// Re-runs all current rules against the original event after the interceptor approved, skipping
    /// consequences already processed; results are dispatched, the returned event discarded.
    func reevaluate(original: EngineEvent, processed: EngineEvent, skipping done: Set<String>) {
        var out: [EngineEvent] = []
        state.withLock { s in
            var r = Resolver(event: original, runtime: runtime, slotCount: s.rules.slotCount)
            let matched = Evaluator.matchingRules(s.rules, &r)
            let rest = matched.filter { rule in !rule.consequences.contains { done.contains($0.id) } }
            var current = processed
            for rule in rest {
                for c in rule.consequences {
                    current = Consequences.run(
                        c, on: current, trigger: original, resolver: &r, chain: 0,
                        chainCounts: &s.chainCounts, runtime: runtime, out: &out)
                }
            }
        }
        for e in out { runtime.dispatch(e) }
    }

    private func apply(
        event: EngineEvent, rules: CompiledRuleSet, chain: Int, chainCounts: inout [UUID: Int],
        out: inout [EngineEvent], interceptor: (any RuleReevaluationInterceptor)?,
        reevaluation: inout (any RuleReevaluationInterceptor, EngineEvent, [PlannedRule], EngineEvent)?,
        resolver: inout Resolver?
    )
        -> EngineEvent
    {
        if resolver == nil {
            resolver = Resolver(event: event, runtime: runtime, slotCount: rules.slotCount)
        } else {
            resolver!.reset(event: event)
        }
        return apply(
            event: event, rules: rules, chain: chain, chainCounts: &chainCounts, out: &out,
            interceptor: interceptor, reevaluation: &reevaluation, r: &resolver!)
    }

    private func apply(
        event: EngineEvent, rules: CompiledRuleSet, chain: Int, chainCounts: inout [UUID: Int],
        out: inout [EngineEvent], interceptor: (any RuleReevaluationInterceptor)?,
        reevaluation: inout (any RuleReevaluationInterceptor, EngineEvent, [PlannedRule], EngineEvent)?,
        r: inout Resolver
    ) -> EngineEvent {
        let matched = Evaluator.matchingRules(rules, &r)
        if matched.isEmpty { return event }
        var processed = event
        if let interceptor {
            let reevaluable = matched.filter { $0.reEvaluate && $0.hasSchemaConsequence }
            if !reevaluable.isEmpty {
                let held = matched.filter { $0.hasSchemaConsequence }
                let heldIDs = Set(held.flatMap { $0.consequences.map(\.id) })
                let immediate = matched.filter { !$0.consequences.contains { heldIDs.contains($0.id) } }
                for rule in immediate {
                    for c in rule.consequences {
                        processed = Consequences.run(
                            c, on: processed, trigger: event, resolver: &r, chain: chain,
                            chainCounts: &chainCounts, runtime: runtime, out: &out)
                    }
                }
                reevaluation = (interceptor, processed, reevaluable, event)
                return processed
            }
        }
        for rule in matched {
            for c in rule.consequences {
                processed = Consequences.run(
                    c, on: processed, trigger: event, resolver: &r, chain: chain,
                    chainCounts: &chainCounts, runtime: runtime, out: &out)
            }
        }
        return processed
    }
}
