// What a store keeps of one person, on request (`rulekit history export`, `stats`): every store answers
// the same two questions, read-only. Erasing (with the tombstones that keep erased records from coming
// back through a spool, a journal or a retried batch) is not built yet.
public import RuleKitCore

/// How much a store holds.
public struct HistoryStats: Sendable, Hashable {
    /// Records kept.
    public var records: Int
    /// Identities with at least one record.
    public var identities: Int
    /// The oldest and newest record's time, in milliseconds since 1970 (nil when there is none).
    public var oldest: Double?
    /// See `oldest`.
    public var newest: Double?

    /// Figures as given.
    ///
    /// - Parameters:
    ///   - records: records kept.
    ///   - identities: identities with a record.
    ///   - oldest: the oldest record's time (ms).
    ///   - newest: the newest record's time (ms).
    public init(records: Int, identities: Int, oldest: Double?, newest: Double?) {
        self.records = records
        self.identities = identities
        self.oldest = oldest
        self.newest = newest
    }
}

/// A store that can say what it keeps of one identity.
public protocol HistoryExporting: Sendable {
    /// Every record kept for `identity`, oldest first (a key is "" where the store keeps none).
    ///
    /// - Parameter identity: the identity, as events carry it.
    /// - Returns: the records; empty for an identity the store does not know.
    /// - Throws: the store's error when it cannot be read.
    func export(identity: String) async throws -> [HistoryRecord]
    /// How much the store holds.
    ///
    /// - Returns: the figures.
    /// - Throws: the store's error when it cannot be read.
    func stats() async throws -> HistoryStats
}
