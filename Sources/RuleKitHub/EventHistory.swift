public import Foundation
public import RuleKitCore

/// Where the hub keeps event history: events recorded by the hash of their masked data. A store that keeps
/// one history per identity records and searches under `HistoryIdentity.current`.
public protocol EventHistoryStore: Sendable {
    func record(hash: UInt32, timestamp: Date) -> Bool
    /// One result per hash: matches in [from, to]; with `after`, only those at or after it.
    func query(hash: UInt32, from: Date?, to: Date?, after: Date?) -> EventHistoryResult
}

/// The hashing the reference uses for history: FNV-1a (32 bit) over the flattened data, keys sorted,
/// each pair written `key:value` with the value's description.
public enum EventHistoryHash {
    /// The history hash of `data` (restricted to the `mask` keys, when given); 0 for no data.
    public static func hash(_ data: ValueObject?, mask: [String]? = nil) -> UInt32 {
        guard let data else { return 0 }
        var flat: [(String, Value)] = []
        flatten(.object(data), prefix: nil, into: &flat)
        if let mask { flat = flat.filter { mask.contains($0.0) } }
        flat.sort { $0.0 < $1.0 }
        var h: UInt32 = 2_166_136_261
        for (k, v) in flat {
            for b in "\(k):\(describe(v))".utf8 { h = (h ^ UInt32(b)) &* 16_777_619 }
        }
        return flat.isEmpty ? 0 : h
    }

    static func describe(_ v: Value) -> String {
        switch v {
        case .string(let s): s
        case .null: "<null>"
        case .bool(let b): b ? "true" : "false"
        case .int(let i): String(i)
        case .double(let d): d.description
        default: JSONWriter.string(v)
        }
    }

    static func flatten(_ v: Value, prefix: String?, into out: inout [(String, Value)]) {
        switch v {
        case .object(let o): for (k, x) in o { flatten(x, prefix: prefix.map { "\($0).\(k)" } ?? k, into: &out) }
        case .array(let a): for (i, x) in a.enumerated() { flatten(x, prefix: prefix.map { "\($0).\(i)" } ?? "\(i)", into: &out) }
        default: if let p = prefix { out.append((p, v)) }
        }
    }
}

/// An in-memory history (the default; the rules extension brings a SQLite one).
public final class InMemoryEventHistory: EventHistoryStore {
    private let records = Locked<[(UInt32, Date, String?)]>([])

    /// An empty history.
    public init() {}

    /// Records one event's hash at `timestamp`, under `HistoryIdentity.current`; always succeeds.
    public func record(hash: UInt32, timestamp: Date) -> Bool {
        let identity = HistoryIdentity.current
        records.withLock { $0.append((hash, timestamp, identity)) }
        return true
    }

    /// Counts the records of `hash` within the window, among those of `HistoryIdentity.current`.
    public func query(hash: UInt32, from: Date?, to: Date?, after: Date?) -> EventHistoryResult {
        let identity = HistoryIdentity.current
        return records.withLock { all in
            let hits = all.filter { h, t, id in
                h == hash && id == identity && (from.map { t >= $0 } ?? true) && (to.map { t <= $0 } ?? true)
                    && (after.map { t >= $0 } ?? true)
            }.map(\.1)
            return EventHistoryResult(count: hits.count, oldest: hits.min(), newest: hits.max())
        }
    }
}
