public import Foundation
public import RuleKitCore

/// Where the hub keeps event history: events recorded by the hash of their masked data. A store that keeps
/// one history per identity records and searches under `HistoryIdentity.current`.
///
/// The hub asks these questions synchronously, one event at a time, on its own queue: a store answers
/// from memory or a local file. A service whose history is remote reads it per block instead
/// (`HistoryBackend`, through a `HistoryWorkingSet` that answers the hub from memory).
public protocol EventHistoryStore: Sendable {
    func record(hash: UInt32, timestamp: Date) -> Bool
    /// One result per hash: matches in [from, to]; with `after`, only those at or after it.
    func query(hash: UInt32, from: Date?, to: Date?, after: Date?) -> EventHistoryResult
    /// Records as `record(hash:timestamp:)` does, naming the event that caused the record (the event a
    /// rule recorded on, or the masked event itself): stores that keep each record once key it by its
    /// cause. The default ignores the cause.
    func record(hash: UInt32, timestamp: Date, cause: UUID) -> Bool
    /// The events `causes` and everything they caused have been delivered: a store that numbers each
    /// cause's records (to key them) may forget those numbers, so the same events sent again are numbered
    /// from the start, and their records keyed as before. The default does nothing.
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

/// Timestamps (milliseconds) kept sorted, with the window questions the reference asks of them.
struct SortedTimes: Sendable {
    private(set) var times: [Double] = []

    init() {}

    /// Times already in ascending order.
    init(sorted: [Double]) { times = sorted }

    var count: Int { times.count }

    /// Inserts `t` in order (records mostly arrive in time order: an append).
    mutating func insert(_ t: Double) {
        if let last = times.last, last > t {
            times.insert(t, at: lowerBound(t))
        } else {
            times.append(t)
        }
    }

    /// The first index whose time is >= `t`.
    func lowerBound(_ t: Double) -> Int {
        var lo = 0
        var hi = times.count
        while lo < hi {
            let mid = lo + (hi - lo) / 2
            if times[mid] < t { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The first index whose time is > `t`.
    func upperBound(_ t: Double) -> Int {
        var lo = 0
        var hi = times.count
        while lo < hi {
            let mid = lo + (hi - lo) / 2
            if times[mid] <= t { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// Removes one `t` if it is kept; whether it was.
    mutating func remove(_ t: Double) -> Bool {
        let i = lowerBound(t)
        guard i < times.count, times[i] == t else { return false }
        times.remove(at: i)
        return true
    }

    /// How many times fall in [low, high], and the oldest and newest of them: two bisections.
    func count(low: Double, high: Double) -> EventHistoryResult {
        let a = lowerBound(low)
        let b = upperBound(high)
        guard a < b else { return EventHistoryResult(count: 0) }
        return EventHistoryResult(
            count: b - a, oldest: Date(timeIntervalSince1970: times[a] / 1000), newest: Date(timeIntervalSince1970: times[b - 1] / 1000))
    }

    /// The window of a question as the bounds of `count(low:high:)`: `from` and `after` both bound it
    /// below.
    static func bounds(from: Date?, to: Date?, after: Date?) -> (low: Double, high: Double) {
        // Asked once per historical condition per event: no array for the two lower bounds.
        var low = -Double.infinity
        if let from { low = from.timeIntervalSince1970 * 1000 }
        if let after { low = max(low, after.timeIntervalSince1970 * 1000) }
        let high = to.map { $0.timeIntervalSince1970 * 1000 } ?? Double.infinity
        return (low, high)
    }
}

/// An in-memory history (the default; the rules extension brings a SQLite one), indexed by identity and
/// hash: a question is two bisections however long the history grows.
public final class InMemoryEventHistory: EventHistoryStore, HistoryBackend {
    /// One identity's records of one hash.
    private struct Series: Hashable {
        var identity: String
        var hash: UInt32
    }

    private struct State {
        /// The times of each identity's records of each hash: one lookup per record or question.
        var series: [Series: SortedTimes] = [:]
        /// The hashes each identity has records of (a read of every hash lists them).
        var hashesOf: [String: [UInt32]] = [:]
        /// The keys of the records kept, in two generations: `keys` until it holds `rememberedKeys`, then
        /// `older` while `keys` fills again. A key is known while it is in either.
        var keys = KeySet()
        var older = KeySet()
        var count = 0
        /// How many records each cause made so far (a keyed store's, until `release`). The hub's id table,
        /// not a `Dictionary`: each record reads and sets it under the lock all hubs share.
        var ordinals = EventIDTable()
        /// A journaled store's records made on the hubs and not yet written to its file, in the order
        /// they were made; those a write gave back go first. `unwritten` holds their keys (and the keys of
        /// records spooled since), so that a write of them is not passed over as a key already kept.
        var journal = RecordJournal()
        var unwritten: Set<RecordKey> = []

        /// Whether `key` is new (and now known).
        mutating func remember(_ key: String, bound: Int) -> Bool {
            remember(RecordKey(key), bound: bound)
        }

        mutating func remember(_ k: RecordKey, bound: Int) -> Bool {
            // Room for the whole generation at once, made when the first key comes (a hub that records
            // event by event keeps no keys): a set that grows doubles, and rehashing hundreds of thousands
            // of keys under the lock held every block up for tens of milliseconds (serve's p99). Its pages
            // are touched only as keys fill them.
            if keys.capacity < bound { keys.reserveCapacity(bound) }
            guard !older.contains(k), keys.insert(k) else { return false }
            if keys.count >= bound {
                older = keys
                keys = KeySet()
                keys.reserveCapacity(bound)
            }
            return true
        }

        mutating func insert(identity: String, hash: UInt32, ms: Double) {
            let key = Series(identity: identity, hash: hash)
            if let i = series.index(forKey: key) {
                series.values[i].insert(ms)
            } else {
                series[key] = SortedTimes(sorted: [ms])
                hashesOf[identity, default: []].append(hash)
            }
            count += 1
        }

        mutating func remove(identity: String, hash: UInt32, ms: Double) {
            let key = Series(identity: identity, hash: hash)
            guard let i = series.index(forKey: key), series.values[i].remove(ms) else { return }
            count -= 1
            guard series.values[i].count == 0 else { return }
            series.remove(at: i)
            hashesOf[identity]?.removeAll { $0 == hash }
            if hashesOf[identity]?.isEmpty == true { hashesOf[identity] = nil }
        }
    }

    private let state = Locked(State())
    /// How many keys of the newest records are surely remembered: a record sent again after that many
    /// others may be kept twice. A client retries within seconds; a service that never stops would
    /// otherwise hold every key it ever saw.
    public let rememberedKeys: Int
    /// Whether records made on the hub (`record(hash:timestamp:cause:)`) are keyed by their cause and
    /// kept once, as `commit` keeps records: a service whose hubs record here directly.
    public let keyed: Bool
    /// Whether records made on the hub are also journaled for a store that indexes its file here
    /// (`SQLiteEventHistory`): kept here at once, taken by `takePending()` to be written.
    public let journaled: Bool
    /// Past this many causes not released, their numbers are forgotten (causes no block delivered).
    static let maxOrdinals = 1 << 16

    /// An empty history that remembers the keys of at least the newest `rememberedKeys` records (at most
    /// twice as many); with `keyed`, the records the hub makes are keyed too.
    public convenience init(rememberedKeys: Int = 500_000, keyed: Bool = false) {
        self.init(rememberedKeys: rememberedKeys, keyed: keyed, journaled: false)
    }

    /// A keyed history whose records made on the hub wait in a journal (`takePending()`) to be written to
    /// a file; `commit` then writes through `toWrite` and `written`.
    package init(rememberedKeys: Int, keyed: Bool, journaled: Bool) {
        self.rememberedKeys = max(1, rememberedKeys)
        self.keyed = keyed || journaled
        self.journaled = journaled
    }

    /// Records as `record(hash:timestamp:)` does; when `keyed`, under the key of the cause's next record
    /// (`HistoryRecord.key(cause:ordinal:)`), and only if no record with that key is kept: the same events
    /// evaluated again (a batch retried) record nothing new.
    public func record(hash: UInt32, timestamp: Date, cause: UUID) -> Bool {
        guard keyed else { return record(hash: hash, timestamp: timestamp) }
        let identity = HistoryIdentity.current ?? ""
        let bound = rememberedKeys
        state.withLock { s in
            let n = s.ordinals[cause] ?? 0
            if s.ordinals.count >= Self.maxOrdinals { s.ordinals = EventIDTable() }
            s.ordinals[cause] = n + 1
            let key = RecordKey(cause: cause, ordinal: n)
            if s.remember(key, bound: bound) {
                let ms = timestamp.timeIntervalSince1970 * 1000
                s.insert(identity: identity, hash: hash, ms: ms)
                if journaled {
                    s.journal.append(MadeRecord(identity: identity, hash: hash, ms: ms, cause: cause, ordinal: n))
                    s.unwritten.insert(key)
                }
            }
        }
        return true
    }

    /// Whether `release` is wanted: a keyed store's.
    public var numbersCauses: Bool { keyed }

    /// Forgets how many records `causes` made (a keyed store).
    public func release(causes: [UUID]) {
        guard keyed, !causes.isEmpty else { return }
        state.withLock { s in
            guard !s.ordinals.isEmpty else { return }
            for c in causes { s.ordinals[c] = nil }
        }
    }

    /// Records one event's hash at `timestamp`, under `HistoryIdentity.current`; always succeeds.
    public func record(hash: UInt32, timestamp: Date) -> Bool {
        let identity = HistoryIdentity.current ?? ""
        state.withLock { s in s.insert(identity: identity, hash: hash, ms: timestamp.timeIntervalSince1970 * 1000) }
        return true
    }

    /// Counts the records of `hash` within the window, among those of `HistoryIdentity.current`.
    public func query(hash: UInt32, from: Date?, to: Date?, after: Date?) -> EventHistoryResult {
        let identity = HistoryIdentity.current ?? ""
        let (low, high) = SortedTimes.bounds(from: from, to: to, after: after)
        return state.withLock { s in
            s.series[Series(identity: identity, hash: hash)]?.count(low: low, high: high) ?? EventHistoryResult(count: 0)
        }
    }

    /// Records kept.
    public var count: Int { state.withLock { $0.count } }

    // MARK: HistoryBackend

    /// Each identity's count, oldest and newest per hash among `hashes` (every hash when nil), with the
    /// newest `limit` times of the `timed` hashes.
    public func prefetch(identities: [String], hashes: Set<UInt32>?, timed: Set<UInt32>, limit: Int) async throws -> [HistorySlice] {
        state.withLock { s in
            var out: [HistorySlice] = []
            for identity in identities {
                guard let kept = s.hashesOf[identity] else { continue }
                for hash in kept where hashes?.contains(hash) ?? true {
                    guard let times = s.series[Series(identity: identity, hash: hash)], let first = times.times.first,
                        let last = times.times.last
                    else { continue }
                    out.append(
                        HistorySlice(
                            identity: identity, hash: hash, count: times.count, oldest: first, newest: last,
                            times: timed.contains(hash) ? Array(times.times.suffix(limit)) : nil))
                }
            }
            return out
        }
    }

    /// Keeps each record whose key it has not kept among the newest `rememberedKeys` (records without a
    /// key: each kept).
    public func commit(_ records: [HistoryRecord]) async throws {
        keep(records)
    }

    /// What `commit` does, at once: returns how many records were kept.
    @discardableResult
    package func keep(_ records: [HistoryRecord]) -> Int {
        let bound = rememberedKeys
        return state.withLock { s in
            var kept = 0
            for r in records where r.key.isEmpty || s.remember(r.key, bound: bound) {
                s.insert(identity: r.identity, hash: r.hash, ms: r.ms)
                kept += 1
            }
            return kept
        }
    }

    /// What a write of `records` to the file this indexes must add, in their order, each key once: the
    /// records whose keys it has not kept (`new`), and those it kept on the hub and has not seen written
    /// (`unwritten`); a record already written is passed over. Records without a key: each new.
    package func toWrite(_ records: [HistoryRecord]) -> [(record: HistoryRecord, key: RecordKey?, new: Bool)] {
        state.withLock { s in
            var seen = Set<RecordKey>(minimumCapacity: records.count)
            var out: [(record: HistoryRecord, key: RecordKey?, new: Bool)] = []
            out.reserveCapacity(records.count)
            for r in records {
                guard !r.key.isEmpty else {
                    out.append((r, nil, true))
                    continue
                }
                let k = RecordKey(r.key)
                guard seen.insert(k).inserted else { continue }
                if s.unwritten.contains(k) {
                    out.append((r, k, false))
                } else if !s.keys.contains(k) && !s.older.contains(k) {
                    out.append((r, k, true))
                }
            }
            return out
        }
    }

    /// `toWrite`'s records are in the file now: the new ones are kept here, the others are written.
    package func written(_ plan: [(record: HistoryRecord, key: RecordKey?, new: Bool)]) {
        let bound = rememberedKeys
        state.withLock { s in
            for p in plan {
                if let k = p.key {
                    if p.new {
                        guard s.remember(k, bound: bound) else { continue }
                    } else {
                        s.unwritten.remove(k)
                        continue
                    }
                }
                s.insert(identity: p.record.identity, hash: p.record.hash, ms: p.record.ms)
            }
        }
    }

    /// The journal's records (made on the hub since the last call, after those given back), to be
    /// written; their keys stay unwritten until `written` says otherwise.
    package func takePending() -> [HistoryRecord] {
        RecordJournal.spelled(state.withLock { $0.journal.take() })
    }

    /// Gives back records a write could not make durable, to go first in the next.
    package func restorePending(_ records: [HistoryRecord]) {
        guard !records.isEmpty else { return }
        state.withLock { $0.journal.restore(records) }
    }

    /// Forgets one record of each (identity, hash, time) given (retention). Their keys stay remembered.
    package func remove(_ records: [(identity: String, hash: UInt32, ms: Double)]) {
        state.withLock { s in
            for r in records { s.remove(identity: r.identity, hash: r.hash, ms: r.ms) }
        }
    }
}

/// A history read and written a block at a time: what a service's store does for `HistoryWorkingSet`.
/// Both calls are asynchronous and may fail (the database is down); the working set bounds them in time.
public protocol HistoryBackend: Sendable {
    /// What the store holds for `identities` and `hashes` (every hash when nil): per identity and hash,
    /// the count, oldest and newest, and for the `timed` hashes the times of the newest `limit` records.
    /// One round trip, whose size does not grow with the history's.
    func prefetch(identities: [String], hashes: Set<UInt32>?, timed: Set<UInt32>, limit: Int) async throws -> [HistorySlice]
    /// Keeps `records`, all or none, each key at most once however often it is sent. One round trip.
    func commit(_ records: [HistoryRecord]) async throws
    /// Makes the store ready (a database's migration) or checks that it answers: called at start and
    /// before a spool is replayed. The default does nothing.
    func ready() async throws
}

extension HistoryBackend {
    /// Nothing to prepare.
    public func ready() async throws {}
}

/// The keys of records, in two sets: most keys in 16 bytes, every other as it is. A key whose cause carries
/// the RFC variant bits (`10`, the two top bits of its ninth byte: every id RuleKit makes, and every UUID
/// clients send as such) and whose ordinal is under 4 (a cause rarely makes more than one record) is kept
/// as the cause's 128 bits with the ordinal in place of those two bits. Exact: among such keys the variant
/// bits are the same, so the two bits they give up are free, and no key of the other kind is ever looked
/// for among these. A set of a million keys is half the size (32 MB against 64) and a look-up touches
/// half the memory.
struct KeySet: Sendable {
    private struct Compact: Hashable, Sendable {
        var hi: UInt64
        var lo: UInt64
    }

    private var compact: Set<Compact> = []
    private var wide: Set<RecordKey> = []

    var count: Int { compact.count + wide.count }
    /// How many keys fit before the compact set grows.
    var capacity: Int { compact.capacity }

    mutating func reserveCapacity(_ n: Int) {
        compact.reserveCapacity(n)
    }

    private static func compact(_ k: RecordKey) -> Compact? {
        guard case .cause(let hi, let lo, let ordinal) = k, ordinal >= 0, ordinal < 4, lo >> 62 == 0b10 else { return nil }
        return Compact(hi: hi, lo: (lo & 0x3FFF_FFFF_FFFF_FFFF) | UInt64(ordinal) << 62)
    }

    func contains(_ k: RecordKey) -> Bool {
        if let c = Self.compact(k) { return compact.contains(c) }
        return wide.contains(k)
    }

    /// Whether `k` was new (and is now kept).
    mutating func insert(_ k: RecordKey) -> Bool {
        if let c = Self.compact(k) { return compact.insert(c).inserted }
        return wide.insert(k).inserted
    }
}
