// Rules oracle: a rules file in either syntax and format is loaded, planned and evaluated on events built
// from its own keys and values. Every way of evaluating must agree: the interpreter's fast paths and its
// traced run (each comparison by the general path), the rule index and a scan of every rule, batches and
// event by event. Converting the set to
// RuleKit YAML (and a Launch set to Launch JSON) and loading it again gives the same rules. YAML rules
// loaded from a tape give what the document gives.
import Foundation
import RuleKitCore
import RuleKitYAML

@testable import RuleKitRules

/// The rules oracle: fast and traced evaluation, index, batch matching and round trips agree on generated events.
public enum RulesOracle {
    static let name = "fuzz-rules"

    /// Checks one input; traps (a finding for libFuzzer) on any disagreement.
    public static func check(_ bytes: [UInt8]) {
        let isJSON = bytes.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) == UInt8(ascii: "{")
        let result: RulesLoadResult
        do {
            if isJSON {
                result = try RuleSetLoader.load(json: bytes, file: "r.json", limits: Oracle.limits)
            } else {
                let document = try YAMLReader.read(bytes, file: "r.yaml", limits: Oracle.limits)
                result = RuleSetLoader.load(document)
                sameFromTape(bytes, document, result)
            }
        } catch {
            Oracle.checkLocations(name, error, in: bytes, yaml: !isJSON)
            return
        }
        Oracle.checkLocations(name, DiagnosticError(result.diagnostics), in: bytes, yaml: !isJSON)
        guard let set = result.ruleSet else { return }
        let compiled = Planner().plan(set)
        Oracle.checkLocations(name, DiagnosticError(compiled.diagnostics), in: bytes, yaml: !isJSON)
        evaluate(set, compiled, bytes)
        roundTrip(set, bytes)
    }

    /// YAML rules loaded from a tape (as `RuleFiles` loads them when the tape holds the text) against the
    /// same loaders over the document: the same rules and findings, to the column and the pointer.
    static func sameFromTape(_ bytes: [UInt8], _ document: Document, _ reference: RulesLoadResult) {
        guard let (tape, warnings) = YAMLReader.tape(bytes, file: "r.yaml", limits: Oracle.limits) else { return }
        guard let fromTape = RuleSetLoader.load(tape: tape, file: "r.yaml") else {
            Oracle.fail(name, "a YAML tape without positions", input: bytes)
        }
        if fromTape.ruleSet != reference.ruleSet || fromTape.diagnostics != reference.diagnostics || warnings != document.warnings {
            Oracle.fail(name, "YAML rules loaded from a tape differ from the document's", input: bytes)
        }
    }

    // MARK: evaluation

    static func evaluate(_ set: RuleSet, _ compiled: CompiledRuleSet, _ input: [UInt8]) {
        var keys: [String: [Value]] = [:]
        for r in set.rules { collect(r.condition, into: &keys, depth: 0) }
        // `~cachebust` is a fresh random number on every read: two evaluations cannot be compared.
        if keys.keys.contains(where: { $0.lowercased().contains("cachebust") }) { return }
        var random = SplitMix(seed: fnv(input))
        let (events, runtime) = EventMaker.events(keys: keys, count: 6, &random)
        let plain = compiled.withoutIndex()
        var perEvent: [[Int]] = []
        for e in events {
            var r1 = Resolver(event: e, runtime: runtime, slotCount: compiled.slotCount)
            let indexed = Evaluator.matchingRules(compiled, &r1).map(\.index)
            var r2 = Resolver(event: e, runtime: runtime, slotCount: compiled.slotCount)
            let scanned = Evaluator.matchingRules(plain, &r2).map(\.index)
            // Each rule by the interpreter's fast paths, and traced (the general path of every comparison).
            var each: [Int] = []
            for rule in compiled.rules {
                var r3 = Resolver(event: e, runtime: runtime, slotCount: compiled.slotCount)
                let fast = Evaluator.matches(compiled, rule: rule.index, &r3)
                var r4 = Resolver(event: e, runtime: runtime, slotCount: compiled.slotCount)
                let traced = Evaluator.trace(compiled, rule: rule.index, &r4).result
                if fast != traced {
                    Oracle.fail(name, "rule \(rule.label): fast path \(fast), traced \(traced) on \(describe(e))", input: input)
                }
                if fast { each.append(rule.index) }
            }
            if indexed != scanned || scanned != each {
                Oracle.fail(name, "indexed \(indexed), scanned \(scanned), rule by rule \(each) on \(describe(e))", input: input)
            }
            // The same event with its data read into a tape, as `rulekit run` reads it.
            if let taped = taped(e) {
                var rt = Resolver(event: taped, runtime: runtime, slotCount: compiled.slotCount)
                let fromTape = Evaluator.matchingRules(compiled, &rt).map(\.index)
                if fromTape != indexed {
                    Oracle.fail(name, "with the data in a tape \(fromTape), as a tree \(indexed) on \(describe(e))", input: input)
                }
            }
            perEvent.append(indexed)
        }
        var batched = Array(repeating: [Int](), count: events.count)
        var r = Resolver(event: events[0], runtime: runtime, slotCount: compiled.slotCount)
        Evaluator.forEachMatch(compiled, events: events, &r) { e, rule in batched[e].append(rule) }
        if batched != perEvent {
            Oracle.fail(name, "batched \(batched) vs event by event \(perEvent)", input: input)
        }
    }

    /// `e` with its data read back from its JSON text into a tape; nil when the tape does not take it.
    static func taped(_ e: Event) -> Event? {
        guard let data = e.data, let tape = JSONTape.of(data) else { return nil }
        var out = e
        out.setDocument(tape)
        return out
    }

    /// Every key a condition reads, with the values it is compared with.
    static func collect(_ c: Condition, into keys: inout [String: [Value]], depth: Int) {
        guard depth < 100 else { return }
        if let k = c.definition.key { keys[k, default: []] += c.definition.values ?? [] }
        for sub in c.definition.conditions ?? [] { collect(sub, into: &keys, depth: depth + 1) }
    }

    static func describe(_ e: Event) -> String {
        "event \(e.type)/\(e.source) \(e.data.map { JSONWriter.string(.object($0)) }.map { String($0.prefix(300)) } ?? "nil")"
    }

    // MARK: conversion

    static func roundTrip(_ set: RuleSet, _ input: [UInt8]) {
        let yaml = RuleKitFormatWriter.yaml(set)
        let back: RulesLoadResult
        do {
            back = RuleSetLoader.load(try YAMLReader.read(Array(yaml.utf8), file: "back.yaml"))
        } catch {
            let line =
                error.diagnostics.first?.location.map { l in
                    yaml.split(separator: "\n", omittingEmptySubsequences: false).dropFirst(l.line - 1).first.map(String.init) ?? ""
                } ?? ""
            Oracle.fail(
                name, "the YAML written for a loaded set does not read: \(error)\nat: \(line.debugDescription)\n\(yaml.prefix(600))",
                input: input)
        }
        guard let again = back.ruleSet else {
            Oracle.fail(name, "the YAML written for a loaded set does not load: \(back.diagnostics)\n\(yaml.prefix(600))", input: input)
        }
        if again.withoutLocations() != set.withoutLocations() {
            Oracle.fail(name, "YAML round trip changed the rules:\n\(yaml.prefix(600))", input: input)
        }
        // Launch JSON says what Launch has: no data elements, ids, names, descriptions or disabled rules.
        // JSON has no NaN or infinity (YAML has): such sets are refused by the converter, not written.
        guard LaunchRulesWriter.unwritableNumbers(set).isEmpty, set.dataElements.isEmpty,
            set.rules.allSatisfy({ $0.id == nil && $0.name == nil && $0.description == nil && $0.enabled })
        else { return }
        let json = LaunchRulesWriter.text(set)
        do {
            let launch = try LaunchRulesLoader.load(json: Array(json.utf8), file: "back.json")
            guard let set2 = launch.ruleSet else {
                Oracle.fail(
                    name, "the Launch JSON written for a loaded set does not load: \(launch.diagnostics)\n\(json.prefix(600))", input: input
                )
            }
            if set2.withoutLocations() != set.withoutLocations() {
                Oracle.fail(name, "Launch JSON round trip changed the rules:\n\(json.prefix(600))", input: input)
            }
        } catch {
            Oracle.fail(name, "the Launch JSON written for a loaded set does not read: \(error)", input: input)
        }
    }
}

/// FNV-1a of the input: the events of one input are the same on every run.
func fnv(_ bytes: [UInt8]) -> UInt64 {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
    return h
}

/// A small deterministic generator (SplitMix64).
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
