public import Foundation

/// One event-history search: events whose flattened data matches `mask`, within an optional time window.
/// Shared by the hub (which keeps history) and the rules engine (whose historical conditions query it).
public struct EventHistoryRequest: Sendable, Hashable {
    /// Flattened key → value pairs the recorded event must have.
    public var mask: ValueObject
    public var from: Date?
    public var to: Date?

    public init(mask: ValueObject, from: Date? = nil, to: Date? = nil) {
        self.mask = mask
        self.from = from
        self.to = to
    }
}

/// The answer to one history search: how many matched, and when; `count` -1 means the store failed.
public struct EventHistoryResult: Sendable, Hashable {
    public var count: Int
    public var oldest: Date?
    public var newest: Date?

    public init(count: Int, oldest: Date? = nil, newest: Date? = nil) {
        self.count = count
        self.oldest = oldest
        self.newest = newest
    }

    /// What a failed store answers.
    public static let databaseError = EventHistoryResult(count: -1)
}
