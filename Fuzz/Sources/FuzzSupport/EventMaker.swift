// Events for the rules oracle, made from the keys and values the rules themselves read, so conditions
// hit and miss in every way: the value itself, its text, another type, a near miss, nothing at all.
import Foundation
import RuleKitCore

@testable import RuleKitRules

enum EventMaker {
    static func events(keys: [String: [Value]], count: Int, _ random: inout SplitMix)
        -> ([Event], StaticRulesRuntime)
    {
        let sorted = keys.keys.sorted()
        var states: [String: ValueObject] = [:]
        var xdm: [String: ValueObject] = [:]
        var events: [Event] = []
        for n in 0..<count {
            var data = ValueObject()
            var type = "com.adobe.eventType.generic.track"
            var source = "com.adobe.eventSource.requestContent"
            for key in sorted {
                guard random.next() % 4 != 0 else { continue }  // a quarter of the keys are missing
                let value = pick(keys[key] ?? [], &random)
                switch key.lowercased() {
                case "~type": if case .string(let s) = value { type = s }
                case "~source": if case .string(let s) = value { source = s }
                default:
                    if key.hasPrefix("~state") || key.hasPrefix("~xdm.") {
                        // `~state.EXT/path` and `~xdm.EXT/path`: states are fixed for the run, set from the
                        // first event that names them.
                        guard let slash = key.firstIndex(of: "/") else { continue }
                        let prefix = key.hasPrefix("~xdm.") ? "~xdm." : "~state."
                        guard key.count > prefix.count, key.index(key.startIndex, offsetBy: prefix.count) <= slash else { continue }
                        let ext = String(key[key.index(key.startIndex, offsetBy: prefix.count)..<slash])
                        let path = String(key[key.index(after: slash)...])
                        if prefix == "~xdm." {
                            var o = xdm[ext] ?? ValueObject()
                            put(value, at: path, in: &o, &random)
                            xdm[ext] = o
                        } else {
                            var o = states[ext] ?? ValueObject()
                            put(value, at: path, in: &o, &random)
                            states[ext] = o
                        }
                    } else if !key.hasPrefix("~") {
                        put(value, at: key, in: &data, &random)
                    }
                }
            }
            events.append(
                Event(
                    name: "e\(n)", type: type, source: source,
                    data: random.next() % 8 == 0 ? nil : data,
                    timestamp: Date(timeIntervalSince1970: 1_700_000_000 + Double(n))))
        }
        let runtime = StaticRulesRuntime(states: states, xdmStates: xdm, clock: { Date(timeIntervalSince1970: 1_700_000_100) })
        return (events, runtime)
    }

    /// One of the values, or a variation of one.
    static func pick(_ values: [Value], _ random: inout SplitMix) -> Value {
        if values.isEmpty { return [.string("x"), .int(1), .bool(true), .null][Int(random.next() % 4)] }
        let v = values[Int(random.next() % UInt64(values.count))]
        switch random.next() % 7 {
        case 0: return .string(JSONWriter.string(v).trimmingCharacters(in: CharacterSet(charactersIn: "\"")))
        case 1: return .string(JSONWriter.string(v).uppercased())
        case 2:
            if case .int(let i) = v { return .double(Double(i)) }
            return v
        case 3:
            if case .string(let s) = v { return .string(s + "z") }
            return v
        case 4:
            if case .int(let i) = v { return .int(i &+ 1) }
            return v
        case 5: return .array([v])
        default: return v
        }
    }

    /// Puts `value` at a dotted path, as nested objects (or, for some paths, as one dotted key).
    static func put(_ value: Value, at path: String, in object: inout ValueObject, _ random: inout SplitMix) {
        let parts = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        if parts.count > 1, random.next() % 5 == 0 {
            object[path] = value
            return
        }
        object = set(value, parts[...], in: object)
    }

    static func set(_ value: Value, _ parts: ArraySlice<String>, in object: ValueObject) -> ValueObject {
        var o = object
        guard let first = parts.first else { return o }
        if parts.count == 1 {
            o[first] = value
        } else {
            let inner = o[first]?.objectValue ?? ValueObject()
            o[first] = .object(set(value, parts.dropFirst(), in: inner))
        }
        return o
    }
}
