// What a store keeps of one person, on request (`rulekit history export`, `delete`, `stats`): every store
// answers the same questions. An erasure leaves a tombstone — the identity, the erasure's time, its masks
// and window — and a record it covers that arrives later (a spool replayed, a journal written, a client's
// retried batch, another server's late block) is dropped on write, so no erased record comes back.
internal import Crypto
internal import Foundation
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

/// What to erase of one identity: every record, or those of some masks' hashes, or within a window.
public struct HistoryErasure: Sendable, Hashable {
    /// The identity, as events carry it.
    public var identity: String
    /// The hashes of the masked data whose records go (nil: every hash).
    public var hashes: Set<UInt32>?
    /// The window's start, in milliseconds since 1970, inclusive (nil: from the first record).
    public var from: Double?
    /// The window's end, inclusive (nil: up to the erasure).
    public var to: Double?
    /// When the erasure was asked, in milliseconds since 1970: records timestamped at or before it are
    /// covered, whenever they arrive.
    public var at: Double

    /// An erasure as given.
    ///
    /// - Parameters:
    ///   - identity: the identity.
    ///   - hashes: the hashes to erase (nil: all).
    ///   - from: the window's start (ms, inclusive).
    ///   - to: the window's end (ms, inclusive).
    ///   - at: when it was asked (ms).
    public init(identity: String, hashes: Set<UInt32>? = nil, from: Double? = nil, to: Double? = nil, at: Double) {
        self.identity = identity
        self.hashes = hashes
        self.from = from
        self.to = to
        self.at = at
    }

    /// The identity as a tombstone keeps it: SHA-256, hexadecimal — never the identity in clear.
    public var identityDigest: String { Self.digest(identity) }

    /// SHA-256 of `identity`'s UTF-8, hexadecimal: how tombstones name an identity.
    ///
    /// - Parameter identity: the identity.
    /// - Returns: its digest.
    public static func digest(_ identity: String) -> String {
        Hex.lowercase(SHA256.hash(data: Array(identity.utf8)))
    }

    /// Whether the erasure covers a record of its identity of `hash` at `ms`.
    ///
    /// - Parameters:
    ///   - hash: the record's hash.
    ///   - ms: the record's time, in milliseconds since 1970.
    /// - Returns: whether the erasure removes it.
    public func covers(hash: UInt32, ms: Double) -> Bool {
        ms <= at && (hashes?.contains(hash) ?? true) && ms >= (from ?? -Double.infinity) && ms <= (to ?? Double.infinity)
    }
}

/// A store that can say what it keeps of one identity, and erase it.
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
    /// Erases the records `erasure` covers and keeps its tombstone, in one step.
    ///
    /// - Parameter erasure: what to erase.
    /// - Returns: how many records were erased (0 for an identity the store does not know).
    /// - Throws: the store's error; nothing was erased then.
    func erase(_ erasure: HistoryErasure) async throws -> Int
}

extension HistoryErasure {
    /// How long a tombstone is kept: 90 days, far beyond any spool's or retried batch's delay (a record made
    /// before an erasure and delivered more than 90 days after it would be kept). Stores drop older ones
    /// when they open (SQLite) or start (PostgreSQL's migration step).
    public static let tombstoneLifetime: Double = 90 * 86_400_000

    /// The erasure time before which tombstones are dropped, now.
    public static var tombstoneCutoff: Double { Date().timeIntervalSince1970 * 1000 - tombstoneLifetime }

    /// Milliseconds since 1970 from ISO 8601 (`2026-12-01T10:00:00Z`, with or without fractions, or a date
    /// alone) or from a number of milliseconds; nil for anything else. How the CLI and the service read a
    /// window's ends.
    ///
    /// - Parameter text: the time as a person wrote it.
    /// - Returns: the time, or nil when it is not one.
    public static func milliseconds(_ text: String) -> Double? {
        if let ms = Double(text) { return ms.isFinite ? ms : nil }
        let f = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [
            [.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime], [.withFullDate],
        ] {
            f.formatOptions = options
            if let d = f.date(from: text) { return d.timeIntervalSince1970 * 1000 }
        }
        return nil
    }

    /// The hash of a history mask given as the data it matches (`{"visit.page": "home"}`), as the engine
    /// hashes the events a rule records: what an erasure by mask names.
    ///
    /// - Parameter mask: the masked data, a JSON object.
    /// - Returns: its hash.
    public static func maskHash(_ mask: ValueObject) -> UInt32 { EventHistoryHash.hash(mask) }
}

extension HistoryRecord {
    /// The record as an export line holds it: identity, hash, ISO 8601 time, milliseconds and key (the
    /// one shape of `rulekit history export` and `GET /v1/history/{identity}`).
    public var exported: Value {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return [
            "identity": .string(identity), "hash": .int(Int64(hash)),
            "timestamp": .string(f.string(from: Date(timeIntervalSince1970: ms / 1000))), "ms": .double(ms), "key": .string(key),
        ]
    }
}
