// History kept in memory: the hub's default store, the index of a SQLite file, and a service's history
// when it keeps none.
public import Foundation
public import RuleKitCore

/// An in-memory history (the default; the rules extension brings a SQLite one), indexed by identity and
/// hash: a question is two bisections however long the history grows.
public final class InMemoryEventHistory: EventHistoryStore, HistoryBackend {
    /// An identity as the series are keyed: two 64-bit keyed hashes of its text (`who(_:)`). A question
    /// looked the series up by the text, and comparing the stored text (a cold heap block per identity)
    /// was a third of the question's cost; these 128 bits sit in the table's own slot. Two identities
    /// share a key with a chance of about n²/2¹²⁹ among n identities, and an input cannot aim at one
    /// without the store's random seeds.
    package struct Who: Hashable, Sendable {
        var hi: UInt64
        var lo: UInt64
    }

    /// One identity's records of one hash.
    private struct Series: Hashable {
        var who: Who
        var hash: UInt32
    }

    private struct State {
        /// The times of each identity's records of each hash: one lookup per record or question.
        var series: [Series: SortedTimes] = [:]
        /// The hashes each identity has records of (a read of every hash lists them).
        var hashesOf: [Who: [UInt32]] = [:]
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
        /// The erasures of each identity, by its digest (`HistoryErasure.digest`; a tombstone keeps no
        /// identity in clear): a record one covers is not kept, whenever it arrives.
        var tombstones: [String: [HistoryErasure]] = [:]
        /// Each identity seen since something was erased: its digest when it has tombstones, "" when it has
        /// none. A digest is then made once per identity, not once per record under the lock every hub
        /// shares (which cost serve half again its CPU per event with one erasure a second). Bounded: emptied
        /// past `digestsBound` identities.
        var digests: [String: String] = [:]
        static let digestsBound = 1 << 20

        /// Whether an erasure covers a record: nothing to compute while nothing was erased.
        mutating func buried(_ identity: String, _ hash: UInt32, _ ms: Double) -> Bool {
            guard !tombstones.isEmpty else { return false }
            let digest: String
            if let known = digests[identity] {
                digest = known
            } else {
                let d = HistoryErasure.digest(identity)
                digest = tombstones[d] == nil ? "" : d
                if digests.count >= Self.digestsBound { digests.removeAll() }
                digests[identity] = digest
            }
            guard !digest.isEmpty, let erasures = tombstones[digest] else { return false }
            return erasures.contains { $0.covers(hash: hash, ms: ms) }
        }

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

        mutating func insert(identity: String, who: Who, hash: UInt32, ms: Double) {
            guard !buried(identity, hash, ms) else { return }
            let key = Series(who: who, hash: hash)
            if let i = series.index(forKey: key) {
                series.values[i].insert(ms)
            } else {
                series[key] = SortedTimes(sorted: [ms])
                hashesOf[who, default: []].append(hash)
            }
            count += 1
        }

        mutating func remove(who: Who, hash: UInt32, ms: Double) {
            let key = Series(who: who, hash: hash)
            guard let i = series.index(forKey: key), series.values[i].remove(ms) else { return }
            count -= 1
            guard series.values[i].count == 0 else { return }
            series.remove(at: i)
            hashesOf[who]?.removeAll { $0 == hash }
            if hashesOf[who]?.isEmpty == true { hashesOf[who] = nil }
        }
    }

    private let state = Locked(State())
    /// The seeds of `who(_:)`, this store's own.
    private let seeds = (UInt64.random(in: .min ... .max), UInt64.random(in: .min ... .max))

    /// The key of `identity`'s series: made before the lock is taken, so that the hashing is not done
    /// while every hub waits.
    func who(_ identity: String) -> Who {
        var a = Hasher()
        a.combine(seeds.0)
        a.combine(identity)
        var b = Hasher()
        b.combine(seeds.1)
        b.combine(identity)
        return Who(hi: UInt64(bitPattern: Int64(a.finalize())), lo: UInt64(bitPattern: Int64(b.finalize())))
    }
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
    ///
    /// - Parameters:
    ///   - rememberedKeys: the newest records whose keys are remembered (at least).
    ///   - keyed: whether the hub's records are keyed too.
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
        let who = who(identity)
        let bound = rememberedKeys
        state.withLock { s in
            let n: Int
            if s.ordinals.count >= Self.maxOrdinals {
                n = s.ordinals[cause] ?? 0
                s.ordinals = EventIDTable()
                s.ordinals[cause] = n + 1
            } else {
                n = s.ordinals.postIncrement(cause)
            }
            let key = RecordKey(cause: cause, ordinal: n)
            if s.remember(key, bound: bound) {
                let ms = timestamp.timeIntervalSince1970 * 1000
                s.insert(identity: identity, who: who, hash: hash, ms: ms)
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
        let who = who(identity)
        state.withLock { s in s.insert(identity: identity, who: who, hash: hash, ms: timestamp.timeIntervalSince1970 * 1000) }
        return true
    }

    /// Counts the records of `hash` within the window, among those of `HistoryIdentity.current`.
    public func query(hash: UInt32, from: Date?, to: Date?, after: Date?) -> EventHistoryResult {
        let who = who(HistoryIdentity.current ?? "")
        let (low, high) = SortedTimes.bounds(from: from, to: to, after: after)
        return state.withLock { s in
            s.series[Series(who: who, hash: hash)]?.count(low: low, high: high) ?? EventHistoryResult(count: 0)
        }
    }

    /// Records kept.
    public var count: Int { state.withLock { $0.count } }

    // MARK: HistoryBackend

    /// Each identity's count, oldest and newest per hash among `hashes` (every hash when nil), with the
    /// newest `limit` times of the `timed` hashes.
    public func prefetch(identities: [String], hashes: Set<UInt32>?, timed: Set<UInt32>, limit: Int) async throws -> [HistorySlice] {
        let whos = identities.map(who)
        return state.withLock { s in
            var out: [HistorySlice] = []
            for (identity, who) in zip(identities, whos) {
                guard let kept = s.hashesOf[who] else { continue }
                for hash in kept where hashes?.contains(hash) ?? true {
                    guard let times = s.series[Series(who: who, hash: hash)], let first = times.times.first,
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
        let whos = records.map { who($0.identity) }
        return state.withLock { s in
            var kept = 0
            for (r, who) in zip(records, whos) where r.key.isEmpty || s.remember(r.key, bound: bound) {
                s.insert(identity: r.identity, who: who, hash: r.hash, ms: r.ms)
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
                    if !s.buried(r.identity, r.hash, r.ms) { out.append((r, nil, true)) }
                    continue
                }
                let k = RecordKey(r.key)
                guard seen.insert(k).inserted else { continue }
                if s.buried(r.identity, r.hash, r.ms) {
                    // Erased since it was made: never written; a journaled copy is no longer owed.
                    s.unwritten.remove(k)
                    continue
                }
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
    ///
    /// - Parameters:
    ///   - plan: what `toWrite` gave, now written.
    ///   - whos: the records' identities' keys (`who(_:)`), when the caller made them already.
    package func written(_ plan: [(record: HistoryRecord, key: RecordKey?, new: Bool)], whos: [Who]? = nil) {
        let bound = rememberedKeys
        let whos = whos ?? plan.map { who($0.record.identity) }
        state.withLock { s in
            for (p, who) in zip(plan, whos) {
                if let k = p.key {
                    if p.new {
                        guard s.remember(k, bound: bound) else { continue }
                    } else {
                        s.unwritten.remove(k)
                        continue
                    }
                }
                s.insert(identity: p.record.identity, who: who, hash: p.record.hash, ms: p.record.ms)
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

    /// Erases what `erasure` covers and keeps its tombstone: what a store that indexes its file here does
    /// once the file has done the same. Returns how many records were forgotten here.
    @discardableResult
    package func bury(_ erasure: HistoryErasure) -> Int {
        let digest = erasure.identityDigest
        var tombstone = erasure
        tombstone.identity = digest
        return bury(tombstone, digest: digest, clear: erasure.identity)
    }

    /// Keeps a tombstone read back from a file (its identity is the digest already).
    package func buryDigest(_ tombstone: HistoryErasure) {
        state.withLock {
            $0.tombstones[tombstone.identity, default: []].append(tombstone)
            $0.digests.removeAll()
        }
    }

    private func bury(_ tombstone: HistoryErasure, digest: String, clear identity: String) -> Int {
        let erasure = HistoryErasure(identity: identity, hashes: tombstone.hashes, from: tombstone.from, to: tombstone.to, at: tombstone.at)
        let who = who(identity)
        return state.withLock { s in
            var gone = 0
            for hash in s.hashesOf[who] ?? [] where erasure.hashes?.contains(hash) ?? true {
                let times = s.series[Series(who: who, hash: hash)]?.times ?? []
                for ms in times where erasure.covers(hash: hash, ms: ms) {
                    s.remove(who: who, hash: hash, ms: ms)
                    gone += 1
                }
            }
            s.tombstones[digest, default: []].append(tombstone)
            s.digests[identity] = digest
            return gone
        }
    }

    /// Whether an erasure kept here covers `record`.
    package func buried(_ record: HistoryRecord) -> Bool {
        state.withLock { $0.buried(record.identity, record.hash, record.ms) }
    }

    /// Forgets one record of each (identity, hash, time) given (retention). Their keys stay remembered.
    package func remove(_ records: [(identity: String, hash: UInt32, ms: Double)]) {
        let whos = records.map { who($0.identity) }
        state.withLock { s in
            for (r, who) in zip(records, whos) { s.remove(who: who, hash: r.hash, ms: r.ms) }
        }
    }
}

extension InMemoryEventHistory: HistoryExporting {
    /// The identity's records, from its series: hash and time (the memory store keeps no keys per record).
    public func export(identity: String) async throws -> [HistoryRecord] {
        let who = who(identity)
        return state.withLock { s in
            var out: [HistoryRecord] = []
            for hash in s.hashesOf[who] ?? [] {
                for ms in s.series[Series(who: who, hash: hash)]?.times ?? [] {
                    out.append(HistoryRecord(identity: identity, hash: hash, ms: ms, key: ""))
                }
            }
            return out.sorted { ($0.ms, $0.hash) < ($1.ms, $1.hash) }
        }
    }

    /// Erases the records `erasure` covers; later records it covers are not kept.
    public func erase(_ erasure: HistoryErasure) async throws -> Int {
        bury(erasure)
    }

    /// Records, identities, oldest and newest, from the series.
    public func stats() async throws -> HistoryStats {
        state.withLock { s in
            var records = 0
            var oldest: Double?
            var newest: Double?
            for times in s.series.values {
                records += times.times.count
                if let f = times.times.first { oldest = min(oldest ?? f, f) }
                if let l = times.times.last { newest = max(newest ?? l, l) }
            }
            let identities = s.hashesOf.values.filter { !$0.isEmpty }.count
            return HistoryStats(records: records, identities: identities, oldest: oldest, newest: newest)
        }
    }
}
