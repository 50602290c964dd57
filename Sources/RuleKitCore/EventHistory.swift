public import Foundation

/// One event-history search: events whose flattened data matches `mask`, within an optional time window.
/// Shared by the hub (which keeps history) and the rules engine (whose historical conditions query it).
public struct EventHistoryRequest: Sendable, Hashable {
    /// Flattened key → value pairs the recorded event must have.
    public var mask: ValueObject
    /// The earliest time an event may have been recorded, or no lower bound.
    public var from: Date?
    /// The latest time an event may have been recorded, or no upper bound.
    public var to: Date?

    /// A search for events matching `mask` recorded between `from` and `to`.
    public init(mask: ValueObject, from: Date? = nil, to: Date? = nil) {
        self.mask = mask
        self.from = from
        self.to = to
    }
}

/// The answer to one history search: how many matched, and when; `count` -1 means the store failed.
public struct EventHistoryResult: Sendable, Hashable {
    /// How many recorded events matched; -1 when the store failed.
    public var count: Int
    /// When the oldest match was recorded.
    public var oldest: Date?
    /// When the newest match was recorded.
    public var newest: Date?

    /// An answer of `count` matches between `oldest` and `newest`.
    public init(count: Int, oldest: Date? = nil, newest: Date? = nil) {
        self.count = count
        self.oldest = oldest
        self.newest = newest
    }

    /// What a failed store answers.
    public static let databaseError = EventHistoryResult(count: -1)
}

/// Whose history an evaluation reads and writes: the identity of the event being processed, set by the
/// hub around that event's preprocessing (rules) and recording when it is configured with one
/// (`EventHub.Options.identity`). Stores that keep history per identity read it; nil is the one shared
/// history of a device.
public enum HistoryIdentity {
    /// The identity of the event being processed on this task or thread, if any.
    @TaskLocal public static var current: String?

    /// The value at a dotted path of an event's data (`xdm.identityMap.ECID.0.id`), as text: how a
    /// service finds an event's identity. Objects are entered by key, arrays by index; numbers and
    /// booleans are written as JSON writes them.
    public static func value(at path: [String], in data: ValueObject?) -> String? {
        guard var node = data.map(Value.object) else { return nil }
        for step in path {
            switch node {
            case .object(let o):
                guard let next = o[step] else { return nil }
                node = next
            case .array(let a):
                guard let i = Int(step), i >= 0, i < a.count else { return nil }
                node = a[i]
            default: return nil
            }
        }
        switch node {
        case .string(let s): return s
        case .int, .double, .bool: return JSONWriter.string(node)
        default: return nil
        }
    }
}
