public import Foundation
public import RuleKitCore

/// Resolves keys against one event for one evaluation pass, like the reference's token finder: the clock
/// is read once, shared states are fetched once per extension.
public struct Resolver {
    public let event: EngineEvent
    let runtime: any RulesRuntime
    public let now: Date
    private var states: [String: ValueObject?] = [:]
    private var xdmStates: [String: ValueObject?] = [:]

    public init(event: EngineEvent, runtime: any RulesRuntime) {
        self.event = event
        self.runtime = runtime
        self.now = runtime.now()
    }

    /// The value of `key`, or nil when it does not exist. Event-data keys of an event with nil data
    /// resolve to "" (not nil), as in the reference.
    public mutating func resolve(_ key: KeyRef) -> Value? {
        switch key {
        case .type: return .string(event.type)
        case .source: return .string(event.source)
        case .timestampU: return .int(Int64(now.timeIntervalSince1970.rounded(.down)))
        case .timestampZ: return .string(Timestamps.iso8601Local(now))
        case .timestampP: return .string(Timestamps.iso8601UTCMillis(now))
        case .sdkVersion: return .string(runtime.sdkVersion)
        case .cacheBust: return .string(String(Int.random(in: 1..<100_000_000)))
        case .allURL: return .string(event.data.map(AllURL.queryString) ?? "")
        case .allJSON: return .string(event.data.map { JSONWriter.string(.object($0)) } ?? "")
        case .nothing: return nil
        case .state(let ext, let path):
            if states[ext] == nil { states[ext] = .some(runtime.sharedState(ext, at: event)) }
            guard let data = states[ext]!, let v = FlatLookup.leaf(path, in: data) else { return nil }
            return v
        case .xdm(let ext, let path):
            if xdmStates[ext] == nil { xdmStates[ext] = .some(runtime.xdmSharedState(ext, at: event)) }
            guard let data = xdmStates[ext]!, let v = FlatLookup.leaf(path, in: data) else { return nil }
            return v
        case .data(let path):
            guard let data = event.data else { return .string("") }
            return FlatLookup.leaf(path, in: data)
        }
    }
}

/// Finds the leaf the reference's flattened map holds under a dotted key, without flattening.
enum FlatLookup {
    static func leaf(_ path: FlatPath, in root: ValueObject) -> Value? {
        // Fast path: every dot is a nesting step.
        var current = Value.object(root)
        var ok = true
        for seg in path.segments {
            switch current {
            case .object(let o):
                guard let next = o[seg] else { ok = false; break }
                current = next
            case .array(let a):
                guard let i = arrayIndex(seg), i < a.count else { ok = false; break }
                current = a[i]
            default:
                ok = false
            }
            if !ok { break }
        }
        if ok { return isLeaf(current) ? current : nil }
        guard path.segments.count > 1 else { return nil }
        // Keys with dots in them: try every split.
        return search(.object(root), Substring(path.raw))
    }

    static func isLeaf(_ v: Value) -> Bool {
        switch v {
        case .object, .array: false
        default: true
        }
    }

    /// Flatten writes array indexes as plain decimals.
    static func arrayIndex<S: StringProtocol>(_ s: S) -> Int? {
        guard !s.isEmpty, s.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        if s.utf8.count > 1 && s.utf8.first == 0x30 { return nil }
        return Int(s)
    }

    static func search(_ v: Value, _ rest: Substring) -> Value? {
        func child(_ name: Substring) -> Value? {
            switch v {
            case .object(let o): return o[String(name)]
            case .array(let a):
                guard let i = arrayIndex(name), i < a.count else { return nil }
                return a[i]
            default: return nil
            }
        }
        if let whole = child(rest), isLeaf(whole) { return whole }
        var i = rest.startIndex
        while let dot = rest[i...].firstIndex(of: ".") {
            if let c = child(rest[..<dot]), !isLeaf(c), let found = search(c, rest[rest.index(after: dot)...]) {
                return found
            }
            i = rest.index(after: dot)
        }
        return nil
    }
}

/// `~all_url`: the event data as a query string.
enum AllURL {
    static func queryString(_ data: ValueObject) -> String {
        var pairs: [String] = []
        flatten(.object(data), prefix: "", into: &pairs)
        return pairs.joined(separator: "&")
    }

    /// Objects are flattened, arrays are not: an array value joins its elements' descriptions with ",".
    static func flatten(_ v: Value, prefix: String, into pairs: inout [String]) {
        switch v {
        case .object(let o):
            for (k, x) in o { flatten(x, prefix: prefix.isEmpty ? k : prefix + "." + k, into: &pairs) }
        case .array(let a):
            let text = a.map(SwiftDescription.describe).joined(separator: ",")
            pairs.append(URLEncoding.queryEncode(prefix + "=" + text))
        default:
            pairs.append(URLEncoding.queryEncode(prefix + "=" + SwiftDescription.describe(v)))
        }
    }
}

/// The reference's timestamp formats.
enum Timestamps {
    static func iso8601Local(_ d: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone.current
        f.dateFormat = "yyyy-MM-dd'T'HH:mm:ssXX"
        return f.string(from: d)
    }

    static func iso8601UTCMillis(_ d: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'"
        return f.string(from: d)
    }
}
