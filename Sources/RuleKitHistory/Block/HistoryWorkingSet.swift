public import Foundation
public import RuleKitCore

/// The history a service's hubs ask while blocks are evaluated: for each identity of the blocks in flight,
/// what was read from the store before its block started (`HistoryBackend.prefetch`) plus what the blocks
/// recorded since, answered from memory, so no question waits on a database.
///
/// A block holds its identities from `hold` to `release`. An identity already held by another block in
/// flight is not read again: both blocks see one history, each other's records included, as one device
/// would. Records wait in `takePending()` until a block writes them (`HistoryBackend.commit`), each
/// keyed by the event that caused it and its place among that event's records, so a retried block writes
/// the same keys.
///
/// Questions for an identity that no block holds, or whose read failed, answer the reference's error
/// value (count -1): that history is not known here.
public final class HistoryWorkingSet: EventHistoryStore {
    /// One hash of one identity: what the store held when it was read, and what was recorded since.
    struct Known {
        var count = 0
        var oldest = Double.infinity
        var newest = -Double.infinity
        /// The store's newest times (for hashes asked within windows) with the records since merged in.
        var times: SortedTimes?
        var local = SortedTimes()

        init() {}

        init(_ slice: HistorySlice) {
            count = slice.count
            oldest = slice.oldest
            newest = slice.newest
            times = slice.times.map { SortedTimes(sorted: $0) }
        }

        mutating func record(_ ms: Double) {
            local.insert(ms)
            times?.insert(ms)
        }

        /// The answer for a window: from the counts when it is unbounded (or holds all the store had, or
        /// none of it), from the times when they were read; unknown (nil) otherwise.
        func answer(low: Double, high: Double) -> EventHistoryResult? {
            let mine = local.count(low: low, high: high)
            if let times { return times.count(low: low, high: high) }
            let all = count == 0 || (oldest >= low && newest <= high)
            let none = count == 0 || newest < low || oldest > high
            if all {
                let n = count + mine.count
                guard n > 0 else { return EventHistoryResult(count: 0) }
                let lo = min(oldest, mine.oldest.map { $0.timeIntervalSince1970 * 1000 } ?? .infinity)
                let hi = max(newest, mine.newest.map { $0.timeIntervalSince1970 * 1000 } ?? -.infinity)
                return EventHistoryResult(
                    count: n, oldest: Date(timeIntervalSince1970: lo / 1000), newest: Date(timeIntervalSince1970: hi / 1000))
            }
            return none ? mine : nil
        }
    }

    private struct Entry {
        var holders: Int
        var failed: Bool
        var hashes: [UInt32: Known]
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// The records waiting for a write.
        var journal = RecordJournal()
        /// How many records each cause made so far: the hub's id table, not a `Dictionary` (each record
        /// reads and sets it, and each block's release removes its causes, under the lock every hub shares).
        var ordinals = EventIDTable()
    }

    private let state = Locked(State())
    /// Past this many causes remembered, the ordinals are forgotten (records of hub events no block owns).
    private static let maxOrdinals = 1 << 16

    /// An empty working set.
    public init() {}

    // MARK: EventHistoryStore

    /// Records with a cause of its own (no other record shares its key).
    public func record(hash: UInt32, timestamp: Date) -> Bool {
        record(hash: hash, timestamp: timestamp, cause: EventID.next())
    }

    /// Records `hash` for `HistoryIdentity.current`: seen at once by later questions of that identity, and
    /// pending until a block writes it.
    public func record(hash: UInt32, timestamp: Date, cause: UUID) -> Bool {
        let identity = HistoryIdentity.current ?? ""
        let ms = timestamp.timeIntervalSince1970 * 1000
        state.withLock { s in
            let n = s.ordinals[cause] ?? 0
            s.ordinals[cause] = n + 1
            s.journal.append(MadeRecord(identity: identity, hash: hash, ms: ms, cause: cause, ordinal: n))
            s.entries[identity]?.hashes[hash, default: Known()].record(ms)
        }
        return true
    }

    /// Counts what the identity's block read and what was recorded since; the error value for an identity
    /// not held or whose read failed, and for a window the read cannot answer (times not read).
    public func query(hash: UInt32, from: Date?, to: Date?, after: Date?) -> EventHistoryResult {
        let identity = HistoryIdentity.current ?? ""
        let (low, high) = SortedTimes.bounds(from: from, to: to, after: after)
        return state.withLock { s in
            guard let e = s.entries[identity], !e.failed else { return .databaseError }
            guard let known = e.hashes[hash] else { return EventHistoryResult(count: 0) }
            return known.answer(low: low, high: high) ?? .databaseError
        }
    }

    // MARK: blocks

    /// Holds `identities` for a block: those already held are shared; the others are returned, to be read
    /// and then installed (`install`).
    ///
    /// - Parameter identities: the block's identities.
    /// - Returns: those no block held: to be read and installed.
    public func hold(_ identities: Set<String>) -> [String] {
        state.withLock { s in
            var missing: [String] = []
            for id in identities {
                if s.entries[id] != nil { s.entries[id]?.holders += 1 } else { missing.append(id) }
            }
            return missing.sorted()
        }
    }

    /// Installs what was read for `identities` (returned by `hold`), or marks them failed. An identity
    /// another block installed meanwhile keeps that history (with its records), and is shared.
    ///
    /// - Parameters:
    ///   - slices: what was read.
    ///   - identities: the identities it was read for.
    ///   - failed: the read failed: their questions answer the error value.
    public func install(_ slices: [HistorySlice], for identities: [String], failed: Bool) {
        var read: [String: [UInt32: Known]] = .init(minimumCapacity: identities.count)
        for slice in slices { read[slice.identity, default: [:]][slice.hash] = Known(slice) }
        state.withLock { s in
            for id in identities {
                if s.entries[id] != nil {
                    s.entries[id]?.holders += 1
                } else {
                    s.entries[id] = Entry(holders: 1, failed: failed, hashes: failed ? [:] : read[id] ?? [:])
                }
            }
        }
    }

    /// Lets go of a block's identities (forgotten when no block holds them) and of the ordinals of the
    /// events it produced.
    ///
    /// - Parameters:
    ///   - identities: the block's identities.
    ///   - causes: the events the block produced.
    public func release(_ identities: [String], causes: [UUID]) {
        // What is let go of is freed after the lock (each entry's tables and times): the hubs wait on it.
        let gone = state.withLock { s -> [Entry] in
            var gone: [Entry] = []
            for id in identities {
                guard let i = s.entries.index(forKey: id) else { continue }
                if s.entries.values[i].holders <= 1 {
                    gone.append(s.entries.remove(at: i).value)
                } else {
                    s.entries.values[i].holders -= 1
                }
            }
            if !s.ordinals.isEmpty {
                for c in causes { s.ordinals[c] = nil }
            }
            if s.ordinals.count > Self.maxOrdinals { s.ordinals = EventIDTable() }
            return gone
        }
        _ = gone
    }

    /// The records made since the last call, in the order they were made.
    public func takePending() -> [HistoryRecord] {
        RecordJournal.spelled(state.withLock { $0.journal.take() })
    }

    /// Puts records a write could not make durable back in front of those made since, to be written
    /// with the next block's.
    ///
    /// - Parameter records: the records not made durable.
    public func restorePending(_ records: [HistoryRecord]) {
        guard !records.isEmpty else { return }
        state.withLock { $0.journal.restore(records) }
    }

    /// Identities held now (tests, metrics).
    public var heldIdentities: Int { state.withLock { $0.entries.count } }
}

/// A record made on a hub, its key not spelled yet: the hub's thread, the busiest, does not spell keys;
/// the write that takes the record does.
package struct MadeRecord: Sendable {
    var identity: String
    var hash: UInt32
    var ms: Double
    var cause: UUID
    var ordinal: Int

    var record: HistoryRecord {
        HistoryRecord(identity: identity, hash: hash, ms: ms, key: HistoryRecord.key(cause: cause, ordinal: ordinal))
    }
}

/// Records waiting to be written: those a write gave back, then those made since, in the order they were
/// made (a working set's, or a journaled index's).
package struct RecordJournal: Sendable {
    private var restored: [HistoryRecord] = []
    private var made: [MadeRecord] = []

    package init() {}

    mutating func append(_ record: MadeRecord) {
        made.append(record)
    }

    /// Empties the journal (under the owner's lock); `spelled` makes the records of what it gave outside it.
    mutating func take() -> (restored: [HistoryRecord], made: [MadeRecord]) {
        defer {
            restored = []
            made.removeAll(keepingCapacity: true)
        }
        return (restored, made)
    }

    static func spelled(_ taken: (restored: [HistoryRecord], made: [MadeRecord])) -> [HistoryRecord] {
        taken.restored + taken.made.map(\.record)
    }

    /// Puts records a write could not make durable back in front, to go with the next write.
    mutating func restore(_ records: [HistoryRecord]) {
        restored = records + restored
    }
}
