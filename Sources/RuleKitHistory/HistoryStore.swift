// The three ways a history is asked and written: `EventHistoryStore` (the hub's, one event at a time, in
// memory or a local file), `HistoryBackend` (a remote store, read and written a block at a time) and
// `IndexedHistoryBackend` (a file every record of which is indexed in this process).
public import Foundation
public import RuleKitCore

/// Where the hub keeps event history: events recorded by the hash of their masked data. A store that keeps
/// one history per identity records and searches under `HistoryIdentity.current`.
///
/// The hub asks these questions synchronously, one event at a time, on its own queue: a store answers
/// from memory or a local file. A service whose history is remote reads it per block instead
/// (`HistoryBackend`, through a `HistoryWorkingSet` that answers the hub from memory).
public protocol EventHistoryStore: Sendable {
    /// Records one event.
    ///
    /// - Parameters:
    ///   - hash: the hash of the event's masked data.
    ///   - timestamp: when the event happened.
    /// - Returns: false when it could not be recorded.
    func record(hash: UInt32, timestamp: Date) -> Bool
    /// One result per hash: matches in [from, to]; with `after`, only those at or after it.
    ///
    /// - Parameters:
    ///   - hash: the hash asked about.
    ///   - from: the window's start (nil: open).
    ///   - to: the window's end (nil: open).
    ///   - after: only records at or after it count (nil: all in the window).
    /// - Returns: the count, oldest and newest of the matches, or a database error.
    func query(hash: UInt32, from: Date?, to: Date?, after: Date?) -> EventHistoryResult
    /// Records as `record(hash:timestamp:)` does, naming the event that caused the record (the event a
    /// rule recorded on, or the masked event itself): stores that keep each record once key it by its
    /// cause. The default ignores the cause.
    ///
    /// - Parameters:
    ///   - hash: the hash of the event's masked data.
    ///   - timestamp: when the event happened.
    ///   - cause: the event that caused the record.
    /// - Returns: false when it could not be recorded.
    func record(hash: UInt32, timestamp: Date, cause: UUID) -> Bool
    /// The events `causes` and everything they caused have been delivered: a store that numbers each
    /// cause's records (to key them) may forget those numbers, so the same events sent again are numbered
    /// from the start, and their records keyed as before. The default does nothing.
    ///
    /// - Parameter causes: the events delivered.
    func release(causes: [UUID])
    /// Whether the store numbers causes' records and wants `release` (the host then lists each block's
    /// events for it). The default is false.
    var numbersCauses: Bool { get }
}

extension EventHistoryStore {
    /// Ignores the cause: `record(hash:timestamp:)`.
    public func record(hash: UInt32, timestamp: Date, cause: UUID) -> Bool {
        record(hash: hash, timestamp: timestamp)
    }

    /// Nothing to forget.
    public func release(causes: [UUID]) {}

    /// No numbers kept.
    public var numbersCauses: Bool { false }
}

/// A history read and written a block at a time: what a service's store does for `HistoryWorkingSet`.
/// Both calls are asynchronous and may fail (the database is down); the working set bounds them in time.
public protocol HistoryBackend: Sendable {
    /// What the store holds for `identities` and `hashes` (every hash when nil): per identity and hash,
    /// the count, oldest and newest, and for the `timed` hashes the times of the newest `limit` records.
    /// One round trip, whose size does not grow with the history's.
    ///
    /// - Parameters:
    ///   - identities: whose history.
    ///   - hashes: the hashes asked about (nil: every one).
    ///   - timed: the hashes whose newest records' times are wanted.
    ///   - limit: how many newest times per timed hash.
    /// - Returns: one slice per identity and hash held.
    /// - Throws: the store's error when it cannot be read.
    func prefetch(identities: [String], hashes: Set<UInt32>?, timed: Set<UInt32>, limit: Int) async throws -> [HistorySlice]
    /// Keeps `records`, all or none, each key at most once however often it is sent. One round trip.
    ///
    /// - Parameter records: the records, each with its key and identity.
    /// - Throws: the store's error; nothing was kept then.
    func commit(_ records: [HistoryRecord]) async throws
    /// Makes the store ready (a database's migration) or checks that it answers: called at start and
    /// before a spool is replayed. The default does nothing.
    func ready() async throws
}

extension HistoryBackend {
    /// Nothing to prepare.
    public func ready() async throws {}
}

/// A store whose every record is indexed in this process (a SQLite file): `BlockHistory` reads nothing
/// before a block, the hubs ask and record on `index` directly, and a block's records are taken from the
/// index's journal and written with `commit`, which writes each key once (`InMemoryEventHistory.toWrite`).
/// With the breaker open, questions are still answered from the index: it holds every record, spooled
/// ones included.
public protocol IndexedHistoryBackend: HistoryBackend {
    /// The index, journaled (`InMemoryEventHistory.journaled`).
    var index: InMemoryEventHistory { get }
}
