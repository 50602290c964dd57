internal import Foundation
public import RuleKitCore

/// Hands reevaluable rules to the host before their `schema` consequences run (the reference's
/// `RuleReevaluationInterceptor`). Call `completion(true)` to re-evaluate and run them, `false` to drop them.
public protocol RuleReevaluationInterceptor: AnyObject, Sendable {
    ///
    /// - Parameters:
    ///   - event: the event that triggered the re-evaluation.
    ///   - reevaluableRules: the rules waiting.
    ///   - completion: called once: true to re-evaluate and run them, false to drop them.
    func onReevaluationTriggered(
        event: Event, reevaluableRules: [PlannedRule],
        completion: @escaping @Sendable (Bool) -> Void)
}

/// The stateful Launch rules engine: rules, the dispatch-chain counts, the waiting-events cache and
/// reevaluation, exactly as the reference's `LaunchRulesEngine` behaves.
///
/// Thread-safe. Lock order: the engine's lock is the innermost of all — it guards only bookkeeping (the
/// rules in force, the waiting cache, chain counts), and no runtime (host) method is ever called while it
/// is held; the resolver pool's lock is held only to take or return a resolver. Events the engine produces
/// are handed to the runtime in order, after their chain counts are recorded.
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
        var waiting: [Event]? = []
        var chainCounts: [UUID: Int] = [:]
        weak var interceptor: (any RuleReevaluationInterceptor)?
    }

    private let state = Locked(State())
    /// Resolvers between passes: their caches keep their storage (a fresh one per event would allocate
    /// and zero them, sized by the rule set, every time). One per evaluation in flight.
    private let resolvers = ResolverPool()

    /// The dispatch chain limit: events made by `dispatch` consequences may not dispatch again.
    public static let maxChainedConsequenceCount = 1

    /// Told the labels (`PlannedRule.label`) of the rules that matched each processed event (a service's
    /// per-rule counts); not under any lock. Labels, not the rules: a rule is copied part by part, and
    /// copying each match for the count was 5% of a service's hub time when rules record history.
    let onMatch: (@Sendable (Event, [String]) -> Void)?

    /// An engine with no rules, reading from and dispatching to `runtime`; `onMatch` hears the labels of
    /// the rules that matched each event it processes.
    ///
    /// - Parameters:
    ///   - name: the engine's name, in its reset and consequence events.
    ///   - runtime: where states, history and dispatch go.
    ///   - onMatch: hears each processed event with the labels of the rules that matched it.
    public init(
        name: String = RulesEventNames.defaultEngineName, runtime: any RulesRuntime,
        onMatch: (@Sendable (Event, [String]) -> Void)? = nil
    ) {
        self.name = name
        self.runtime = runtime
        self.onMatch = onMatch
    }

    /// The rules in force.
    public var rules: CompiledRuleSet { state.withLock { $0.rules } }

    /// Replaces all rules and dispatches the reset event (the "rules loaded" signal).
    ///
    /// - Parameter set: the planned rules.
    public func replaceRules(with set: CompiledRuleSet) {
        state.withLock { $0.rules = set }
        runtime.dispatch(resetEvent())
    }

    /// Appends rules without a reset event.
    ///
    /// - Parameter set: the planned rules to append.
    public func addRules(_ set: CompiledRuleSet) {
        state.withLock { $0.rules = $0.rules.appending(set) }
    }

    /// Installs rules without a reset event (what the reference's tests do directly).
    ///
    /// - Parameter set: the planned rules.
    public func setRules(_ set: CompiledRuleSet) {
        state.withLock { $0.rules = set }
    }

    /// Sets (or with nil, clears) the interceptor that may hold events for re-evaluation; held weakly.
    ///
    /// - Parameter interceptor: the interceptor, or nil.
    public func setReevaluationInterceptor(_ interceptor: (any RuleReevaluationInterceptor)?) {
        state.withLock { $0.interceptor = interceptor }
    }

    /// The reset event this engine dispatches on `replaceRules`.
    public func resetEvent() -> Event {
        Event(
            name: name, type: RulesEventNames.rulesEngineType, source: RulesEventNames.requestReset,
            data: ["name": .string(name)])
    }

    func isOwnReset(_ e: Event) -> Bool {
        e.type == RulesEventNames.rulesEngineType && e.source == RulesEventNames.requestReset
            && e.data?["name"] == .string(name)
    }

    /// Processes an event: evaluates every rule against it, applies the consequences in order, and returns
    /// the event listeners should receive (the same event when nothing matched).
    ///
    /// The lock covers bookkeeping only (the waiting cache, chain counts, the rules in force): rules are
    /// evaluated and the runtime is called with no lock held, so a host's state and history reads never
    /// run under the engine's lock and different events may be evaluated at once.
    ///
    /// - Parameter event: the event.
    /// - Returns: the event as the rules leave it.
    public func process(_ event: Event) -> Event {
        let (rules, interceptor, replay, chain) = state.withLock {
            s -> (CompiledRuleSet, (any RuleReevaluationInterceptor)?, [(Event, Int)], Int) in
            var replay: [(Event, Int)] = []
            if s.waiting != nil {
                if isOwnReset(event) {
                    replay = s.waiting!.map { ($0, s.chainCounts.removeValue(forKey: $0.id) ?? 0) }
                    s.waiting = nil
                } else {
                    s.waiting!.append(event)
                }
            }
            // Nearly always empty (only events rules dispatched are counted): no hash of the id then.
            let chain = s.chainCounts.isEmpty ? 0 : s.chainCounts.removeValue(forKey: event.id) ?? 0
            return (s.rules, s.interceptor, replay, chain)
        }
        var out: [Event] = []
        var chains: [UUID: Int] = [:]
        var reevaluation: (any RuleReevaluationInterceptor, Event, [PlannedRule], Event)?
        let slot = resolvers.take(event: event, runtime: runtime, slotCount: rules.slotCount)
        for (e, c) in replay {
            slot.resolver.reset(event: e)
            _ = apply(
                event: e, rules: rules, chain: c, chainCounts: &chains, out: &out, interceptor: nil,
                reevaluation: &reevaluation, r: &slot.resolver)
        }
        if !replay.isEmpty { slot.resolver.reset(event: event) }
        let result = apply(
            event: event, rules: rules, chain: chain, chainCounts: &chains, out: &out, interceptor: interceptor,
            reevaluation: &reevaluation, r: &slot.resolver)
        resolvers.give(slot)
        // Chain counts are known before the events they count are dispatched.
        if !chains.isEmpty { state.withLock { s in s.chainCounts.merge(chains) { $1 } } }
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
    ///
    /// - Parameter event: the event.
    /// - Returns: the consequences, or nil when no rule matched.
    public func evaluate(_ event: Event) -> [Consequence]? {
        let rules = self.rules
        var r = Resolver(event: event, runtime: runtime, slotCount: rules.slotCount)
        let matched = Evaluator.matchingRules(rules, &r)
        if matched.isEmpty { return nil }
        return matched.flatMap { rule in rule.consequences.map { Evaluator.render($0, &r) } }
    }

    /// Re-runs all current rules against the original event after the interceptor approved, skipping
    /// consequences already processed; results are dispatched, the returned event discarded.
    func reevaluate(original: Event, processed: Event, skipping done: Set<String>) {
        let rules = self.rules
        var out: [Event] = []
        var chains: [UUID: Int] = [:]
        var r = Resolver(event: original, runtime: runtime, slotCount: rules.slotCount)
        let matched = Evaluator.matchingRules(rules, &r)
        let rest = matched.filter { rule in !rule.consequences.contains { done.contains($0.id) } }
        var current = processed
        for rule in rest {
            for c in rule.consequences {
                current = Consequences.run(
                    c, on: current, trigger: original, resolver: &r, chain: 0, chainCounts: &chains,
                    runtime: runtime, out: &out)
            }
        }
        if !chains.isEmpty { state.withLock { s in s.chainCounts.merge(chains) { $1 } } }
        for e in out { runtime.dispatch(e) }
    }

    private func apply(
        event: Event, rules: CompiledRuleSet, chain: Int, chainCounts: inout [UUID: Int],
        out: inout [Event], interceptor: (any RuleReevaluationInterceptor)?,
        reevaluation: inout (any RuleReevaluationInterceptor, Event, [PlannedRule], Event)?,
        r: inout Resolver
    ) -> Event {
        let positions = Evaluator.matchingPositions(rules, &r)
        if positions.isEmpty { return event }
        let all = rules.rules
        if let onMatch {
            let labels = rules.labels
            onMatch(event, positions.map { labels[$0] })
        }
        var processed = event
        if let interceptor {
            let matched = positions.map { all[$0] }
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
        for i in positions {
            for c in all[i].consequences {
                processed = Consequences.run(
                    c, on: processed, trigger: event, resolver: &r, chain: chain,
                    chainCounts: &chainCounts, runtime: runtime, out: &out)
            }
        }
        return processed
    }
}

/// Resolvers kept between passes, one per evaluation in flight.
final class ResolverPool: Sendable {
    /// A resolver, in a box so that taking it from the pool and giving it back moves a reference, not the
    /// resolver's dozen buffers (each copy of the struct retains every one, and each drop releases them).
    /// Used by one thread at a time: the one that took it, until it gives it back.
    final class Slot: @unchecked Sendable {
        var resolver: Resolver
        init(_ resolver: Resolver) { self.resolver = resolver }
    }

    private let free = Locked<[Slot]>([])

    func take(event: Event, runtime: any RulesRuntime, slotCount: Int) -> Slot {
        if let slot = free.withLock({ $0.popLast() }) {
            slot.resolver.reset(event: event)
            return slot
        }
        return Slot(Resolver(event: event, runtime: runtime, slotCount: slotCount))
    }

    func give(_ slot: Slot) {
        // A few are enough: one per thread that evaluates at once.
        free.withLock { if $0.count < 8 { $0.append(slot) } }
    }
}
