// Rule tests (`*.test.yaml`): a typed model read with located diagnostics — an unknown or misspelled key
// is an error, so a case can never pass by testing nothing — and the runner `rulekit test` (and later
// the report) use. `RuleTestSchema.json` is the JSON Schema of the same format, for editors.
internal import Foundation
public import RuleKitCore
internal import RuleKitRules
internal import RuleKitSources
internal import RuleKitYAML

/// What an event, or a whole case, is expected to do.
public struct RuleTestExpectation: Sendable, Hashable {
    /// The rules that fire, in order (for a case: every rule that fired on any of its events, once, in
    /// the order they first fired).
    public var fired: [String]?
    /// Rules that must not fire.
    public var notFired: [String] = []
    /// The event's data after the rules ran (for a case: the last event's).
    public var data: Value?
    /// Data the event must contain (objects by key, recursively).
    public var dataContains: Value?
    /// The events the rules dispatched (for an event: those it caused; for a case: all).
    public var dispatched: [Dispatch]?

    /// One expected dispatched event; a nil field matches anything.
    public struct Dispatch: Sendable, Hashable {
        /// Its type.
        public var type: String?
        /// Its source.
        public var source: String?
        /// Data it must contain (objects by key, recursively).
        public var data: Value?
    }
}

/// One event of a case.
public struct RuleTestEvent: Sendable {
    /// The event sent to the rules.
    public var event: Event
    /// What this event must do, if anything.
    public var expect: RuleTestExpectation?
    /// Where the event is written.
    public var location: SourceLocation?
}

/// An earlier event in history, `ageSeconds` before the case.
public struct RuleTestHistory: Sendable {
    /// The event's name.
    public var name: String
    /// The event's type.
    public var type: String
    /// The event's source.
    public var source: String
    /// The event's data.
    public var data: ValueObject?
    /// How long before the case the event was recorded.
    public var ageSeconds: Double
}

/// One case: its events, sent in order to a fresh engine, and what they must do.
public struct RuleTestCase: Sendable {
    /// The case's name, for results.
    public var name: String
    /// Shared states for this case (nil: the file's).
    public var states: [String: ValueObject]?
    /// XDM shared states for this case (nil: the file's).
    public var xdmStates: [String: ValueObject]?
    /// Earlier events in history for this case (nil: the file's).
    public var history: [RuleTestHistory]?
    /// The events, in order.
    public var events: [RuleTestEvent]
    /// What the case as a whole must do, if anything.
    public var expect: RuleTestExpectation?
    /// Where the case is written.
    public var location: SourceLocation?
}

/// A `*.test.yaml` file.
public struct RuleTestFile: Sendable {
    /// The file's path.
    public var path: String
    /// The rules under test, relative to the file's folder (nil: the rules file of the same name, else
    /// every rules file in the folder).
    public var rules: [String]?
    /// Shared states every case starts with, by extension name.
    public var states: [String: ValueObject] = [:]
    /// XDM shared states every case starts with, by extension name.
    public var xdmStates: [String: ValueObject] = [:]
    /// History every case starts with.
    public var history: [RuleTestHistory] = []
    /// The cases, in file order.
    public var cases: [RuleTestCase] = []

    static let fileKeys: Set<String> = ["rules", "states", "xdmStates", "history", "cases"]
    static let caseKeys: Set<String> = ["name", "states", "xdmStates", "history", "events", "expect"]
    static let eventKeys: Set<String> = ["name", "type", "source", "data", "mask", "expect"]
    static let expectKeys: Set<String> = ["fired", "notFired", "data", "dataContains", "dispatched"]
    static let dispatchKeys: Set<String> = ["type", "source", "data"]
    static let historyKeys: Set<String> = ["name", "type", "source", "data", "ageSeconds"]

    /// Reads `path`; every problem is a located error (a file with any is not run).
    public static func load(path: String) -> (RuleTestFile?, [Diagnostic]) {
        let bytes: [UInt8]
        do { bytes = try ByteInput.readAll(path) } catch { return (nil, error.diagnostics) }
        return load(bytes, path: path)
    }

    /// Reads test-file text (an editor's unsaved text) as the file at `path`.
    public static func load(_ bytes: [UInt8], path: String) -> (RuleTestFile?, [Diagnostic]) {
        let doc: Document
        do { doc = try YAMLReader.read(bytes, file: path) } catch {
            return (nil, error.diagnostics)
        }
        var r = Reader()
        let file = r.file(doc.root, path: path)
        return (r.diagnostics.hasErrors ? nil : file, doc.warnings + r.diagnostics.sorted)
    }

    /// The rules files the tests run against (`RuleProject.rules(forTest:named:)`).
    public func rulesPaths() -> [String] { RuleProject.rules(forTest: path, named: rules) }

    /// Reads the YAML of a test file into the model, collecting located errors.
    struct Reader {
        var diagnostics = Diagnostics(cap: 200)

        mutating func error(_ message: String, _ at: ValueCursor) {
            diagnostics.append(.error(.rulesStructure, message, at: at.location, pointer: at.pointer))
        }

        mutating func keys(_ c: ValueCursor, _ known: Set<String>, _ what: String) -> Bool {
            guard case .object = c.value else {
                error("\(what) must be a mapping", c)
                return false
            }
            for (k, v) in c.members where !known.contains(k) {
                // Sorted first: of keys as close, the same one every run (a set's order changes between runs).
                let distance = { (c: String) in editDistance(k.lowercased(), c.lowercased()) }
                let hint = known.sorted().min { distance($0) < distance($1) }.flatMap { distance($0) <= 2 ? $0 : nil }
                diagnostics.append(
                    .error(
                        .rulesUnknownKey,
                        "unknown key '\(k)' in \(what)\(hint.map { " (did you mean '\($0)'?)" } ?? ""); known: \(known.sorted().joined(separator: ", "))",
                        at: v.keyLocation, pointer: v.pointer
                    ).suggesting(hint))
            }
            return true
        }

        mutating func file(_ root: ValueCursor, path: String) -> RuleTestFile {
            var f = RuleTestFile(path: path)
            if case .null = root.value {
                error("the test file is empty: it needs 'cases' (a list)", root)
                return f
            }
            guard keys(root, RuleTestFile.fileKeys, "a test file") else { return f }
            if let r = root["rules"] {
                switch r.value {
                case .string(let s): f.rules = [s]
                case .array(let a) where a.allSatisfy({ $0.stringValue != nil }): f.rules = a.compactMap(\.stringValue)
                default: error("'rules' must be a path or a list of paths", r)
                }
            }
            f.states = states(root["states"]) ?? [:]
            f.xdmStates = states(root["xdmStates"]) ?? [:]
            f.history = history(root["history"]) ?? []
            guard let cases = root["cases"] else {
                error("a test file needs 'cases' (a list); is this a rules file?", root)
                return f
            }
            guard case .array(let list) = cases.value, !list.isEmpty else {
                error("'cases' must be a list of at least one case", cases)
                return f
            }
            for (i, c) in cases.elements.enumerated() {
                if let tc = testCase(c, index: i) { f.cases.append(tc) }
            }
            return f
        }

        mutating func testCase(_ c: ValueCursor, index: Int) -> RuleTestCase? {
            guard keys(c, RuleTestFile.caseKeys, "a case") else { return nil }
            var name = "case \(index + 1)"
            if let n = c["name"] {
                if let s = n.value.stringValue { name = s } else { error("'name' must be a string", n) }
            }
            guard let evs = c["events"], case .array(let list) = evs.value, !list.isEmpty else {
                error("case '\(name)' needs 'events' (a list of at least one event)", c["events"] ?? c)
                return nil
            }
            var events: [RuleTestEvent] = []
            for e in evs.elements { if let te = event(e) { events.append(te) } }
            let expect = c["expect"].flatMap { expectation($0, what: "the expectations of a case") }
            if expect == nil && events.allSatisfy({ $0.expect == nil }) {
                error("case '\(name)' expects nothing: give 'expect' for the case or its events", c)
            }
            return RuleTestCase(
                name: name, states: states(c["states"]), xdmStates: states(c["xdmStates"]),
                history: history(c["history"]), events: events, expect: expect, location: c.location)
        }

        mutating func event(_ e: ValueCursor) -> RuleTestEvent? {
            guard keys(e, RuleTestFile.eventKeys, "an event") else { return nil }
            var event = Event(
                name: string(e["name"]) ?? "event", type: string(e["type"]) ?? "",
                source: string(e["source"]) ?? "", data: object(e["data"]))
            if let m = e["mask"] {
                if case .array(let a) = m.value, a.allSatisfy({ $0.stringValue != nil }) {
                    event.mask = a.compactMap(\.stringValue)
                } else {
                    error("'mask' must be a list of keys", m)
                }
            }
            return RuleTestEvent(
                event: event, expect: e["expect"].flatMap { expectation($0, what: "the expectations of an event") },
                location: e.location)
        }

        mutating func expectation(_ c: ValueCursor, what: String) -> RuleTestExpectation? {
            guard keys(c, RuleTestFile.expectKeys, what) else { return nil }
            var x = RuleTestExpectation()
            x.fired = c["fired"].flatMap { names($0, "fired") }
            x.notFired = c["notFired"].flatMap { names($0, "notFired") } ?? []
            x.data = c["data"]?.value
            x.dataContains = c["dataContains"]?.value
            if let d = c["dispatched"] {
                if case .array = d.value {
                    x.dispatched = d.elements.compactMap { w in
                        guard keys(w, RuleTestFile.dispatchKeys, "an expected dispatched event") else { return nil }
                        return .init(type: string(w["type"]), source: string(w["source"]), data: w["data"]?.value)
                    }
                } else {
                    error("'dispatched' must be a list of events", d)
                }
            }
            return x
        }

        mutating func names(_ c: ValueCursor, _ key: String) -> [String]? {
            guard case .array(let a) = c.value, a.allSatisfy({ $0.stringValue != nil }) else {
                error("'\(key)' must be a list of rule ids", c)
                return nil
            }
            return a.compactMap(\.stringValue)
        }

        mutating func string(_ c: ValueCursor?) -> String? {
            guard let c else { return nil }
            switch c.value {
            case .string(let s): return s
            default:
                error("expected a string", c)
                return nil
            }
        }

        mutating func object(_ c: ValueCursor?) -> ValueObject? {
            guard let c else { return nil }
            if case .object(let o) = c.value { return o }
            if case .null = c.value { return nil }
            error("'data' must be a mapping", c)
            return nil
        }

        mutating func states(_ c: ValueCursor?) -> [String: ValueObject]? {
            guard let c else { return nil }
            guard case .object = c.value else {
                error("states must be a mapping of extension name → state", c)
                return nil
            }
            var out: [String: ValueObject] = [:]
            for (k, v) in c.members {
                if case .object(let o) = v.value { out[k] = o } else { error("the state of '\(k)' must be a mapping", v) }
            }
            return out
        }

        mutating func history(_ c: ValueCursor?) -> [RuleTestHistory]? {
            guard let c else { return nil }
            guard case .array = c.value else {
                error("'history' must be a list of earlier events", c)
                return nil
            }
            return c.elements.compactMap { h in
                guard keys(h, RuleTestFile.historyKeys, "a history event") else { return nil }
                var age = 0.0
                if let a = h["ageSeconds"] {
                    if let n = a.value.numberValue, n >= 0, n.isFinite {
                        age = n
                    } else {
                        error("'ageSeconds' must be a number of seconds, 0 or more", a)
                    }
                }
                return RuleTestHistory(
                    name: string(h["name"]) ?? "history", type: string(h["type"]) ?? "",
                    source: string(h["source"]) ?? "", data: object(h["data"]), ageSeconds: age)
            }
        }
    }
}
