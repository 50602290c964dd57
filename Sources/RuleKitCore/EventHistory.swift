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
