public import Foundation

/// One event-history search: events whose flattened data matches `mask`, within an optional time window.
/// Shared by the hub (which keeps history) and the rules engine (whose historical conditions query it).
public struct EventHistoryRequest: Sendable, Hashable {
    /// Flattened key → value pairs the recorded event must have.
    public var mask: ValueObject {
        didSet { hash = EventHistoryHash.hash(mask) }
    }
    /// The history hash of `mask` (`EventHistoryHash.hash`), computed when the mask is set: a planned
    /// condition asks the same question for every event, so its hash is made once, not per question.
    public private(set) var hash: UInt32
    /// The earliest time an event may have been recorded, or no lower bound.
    public var from: Date?
    /// The latest time an event may have been recorded, or no upper bound.
    public var to: Date?

    /// A search for events matching `mask` recorded between `from` and `to`.
    public init(mask: ValueObject, from: Date? = nil, to: Date? = nil) {
        self.mask = mask
        self.hash = EventHistoryHash.hash(mask)
        self.from = from
        self.to = to
    }
}

/// One record of event history as a store keeps it: whose, which hash, when, and the key that makes it
/// exactly once (`docs/serving.md`: a retried block writes the same keys, and a store keeps a key once).
public struct HistoryRecord: Sendable, Hashable {
    /// The identity whose history it is ("" for the one history of a device).
    public var identity: String
    /// The hash of the recorded event's (masked) data.
    public var hash: UInt32
    /// When it was recorded, in milliseconds since 1970.
    public var ms: Double
    /// Unique per record: the id of the event that caused it and the record's place among that event's.
    public var key: String

    /// A record of `hash` for `identity` at `ms`, kept once per `key`.
    public init(identity: String, hash: UInt32, ms: Double, key: String) {
        self.identity = identity
        self.hash = hash
        self.ms = ms
        self.key = key
    }

    /// The key of the `ordinal`th record `cause` made: its id, a slash, the ordinal (`"9E86…43D8/0"`),
    /// spelled in one buffer (a record is made for every event a history rule records).
    public static func key(cause: UUID, ordinal: Int) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(48)
        JSONWriter.writeUUID(cause, to: &bytes)
        bytes.append(0x2F)
        bytes.append(contentsOf: String(ordinal).utf8)
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// A record's key as an in-memory store keeps it: the cause's 128 bits and the ordinal when the key is
/// spelled as `HistoryRecord.key(cause:ordinal:)` spells keys, its text otherwise. Three words in place of
/// a heap string of 38 bytes, hashed and compared as such: a service that keeps its history in memory
/// remembers one per record.
///
/// Exact: only the one spelling `key(cause:ordinal:)` writes (upper-case hex, dashes in place, a decimal
/// ordinal without leading zeros) is read as a cause, so two keys are equal exactly when their texts are.
package enum RecordKey: Hashable, Sendable {
    case cause(UInt64, UInt64, Int)
    case text(String)

    package init(_ key: String) {
        // The contiguous bytes, not the UTF-8 view's iterator: a SQLite write parses every key it is given.
        var text = key
        self = text.withUTF8 { Self.parse($0) }.map { .cause($0.0, $0.1, $0.2) } ?? .text(key)
    }

    /// The key `HistoryRecord.key(cause:ordinal:)` spells, without spelling it: equal to `RecordKey` of
    /// that text.
    package init(cause: UUID, ordinal: Int) {
        // The id's 16 bytes as two big-endian words, as `parse` reads its 32 hex digits, shifted in place:
        // no array (this runs per record on the hub's thread).
        let u = cause.uuid
        func word(_ b: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)) -> UInt64 {
            var w = UInt64(b.0) << 56 | UInt64(b.1) << 48 | UInt64(b.2) << 40 | UInt64(b.3) << 32
            w |= UInt64(b.4) << 24 | UInt64(b.5) << 16 | UInt64(b.6) << 8 | UInt64(b.7)
            return w
        }
        self = .cause(word((u.0, u.1, u.2, u.3, u.4, u.5, u.6, u.7)), word((u.8, u.9, u.10, u.11, u.12, u.13, u.14, u.15)), ordinal)
    }

    private static func parse(_ u: some Collection<UInt8>) -> (UInt64, UInt64, Int)? {
        // 36 characters of cause, a slash, 1 to 18 digits.
        guard u.count >= 38, u.count <= 55 else { return nil }
        var words: (UInt64, UInt64) = (0, 0)
        var nibbles = 0
        var i = 0
        var ordinal = 0
        var digits = 0
        for c in u {
            defer { i += 1 }
            if i < 36 {
                if i == 8 || i == 13 || i == 18 || i == 23 {
                    guard c == UInt8(ascii: "-") else { return nil }
                    continue
                }
                let v: UInt8
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): v = c &- UInt8(ascii: "0")
                case UInt8(ascii: "A")...UInt8(ascii: "F"): v = c &- UInt8(ascii: "A") &+ 10
                default: return nil
                }
                if nibbles < 16 { words.0 = words.0 << 4 | UInt64(v) } else { words.1 = words.1 << 4 | UInt64(v) }
                nibbles += 1
            } else if i == 36 {
                guard c == UInt8(ascii: "/") else { return nil }
            } else {
                guard c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9"), !(digits == 1 && ordinal == 0) else { return nil }
                ordinal = ordinal * 10 + Int(c &- UInt8(ascii: "0"))
                digits += 1
            }
        }
        return (words.0, words.1, ordinal)
    }
}

/// The hashing the reference uses for history: FNV-1a (32 bit) over the flattened data, keys sorted,
/// each pair written `key:value` with the value's description.
public enum EventHistoryHash {
    /// The history hash of `data` (restricted to the `mask` keys, when given); 0 for no data.
    public static func hash(_ data: ValueObject?, mask: [String]? = nil) -> UInt32 {
        guard let data else { return 0 }
        var flat: [(String, Value)] = []
        flat.reserveCapacity(data.count)
        flatten(.object(data), prefix: nil, into: &flat)
        if let mask { flat = flat.filter { mask.contains($0.0) } }
        if flat.count > 1 { flat.sort { $0.0 < $1.0 } }
        // Each pair's `key:value` fed to the hash piece by piece, from the strings' contiguous bytes: the
        // same bytes as the text spelled whole, without spelling it (a hub hashes every event it records).
        var h: UInt32 = 2_166_136_261
        for (k, v) in flat {
            fnv1a(k, &h)
            h = (h ^ UInt32(UInt8(ascii: ":"))) &* 16_777_619
            fnv1a(describe(v), &h)
        }
        return flat.isEmpty ? 0 : h
    }

    /// FNV-1a's step over `text`'s UTF-8 bytes.
    private static func fnv1a(_ text: String, _ h: inout UInt32) {
        var text = text
        text.withUTF8 { bytes in
            for b in bytes { h = (h ^ UInt32(b)) &* 16_777_619 }
        }
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

    /// Flattens to dotted keys. Recursion is bounded by the reader's depth limit on the data.
    static func flatten(_ v: Value, prefix: String?, into out: inout [(String, Value)]) {
        switch v {
        case .object(let o): for (k, x) in o { flatten(x, prefix: prefix.map { "\($0).\(k)" } ?? k, into: &out) }
        case .array(let a): for (i, x) in a.enumerated() { flatten(x, prefix: prefix.map { "\($0).\(i)" } ?? "\(i)", into: &out) }
        default: if let p = prefix { out.append((p, v)) }
        }
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
        guard !path.isEmpty else { return nil }
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

/// The history questions a planned rule set can ask: the hashes of its historical conditions' masks (and
/// which of them are asked within a time window or in order, which needs each record's time rather than a
/// count), and whether some question's hash is only known at evaluation (an `insertIfNotExists` whose
/// content is a template), so that a block's history must be read for every hash of its identities.
public struct HistoryQuestions: Sendable, Hashable {
    /// The hashes the conditions search for.
    public var hashes: Set<UInt32>
    /// Those searched within a window (`from`/`to`) or in order (`ordered`): their records' times are read.
    public var timed: Set<UInt32>
    /// Whether a question may ask any other hash (its count only).
    public var anyHash: Bool

    /// Questions of `hashes` (`timed` of them with windows), and of any hash with `anyHash`.
    public init(hashes: Set<UInt32> = [], timed: Set<UInt32> = [], anyHash: Bool = false) {
        self.hashes = hashes
        self.timed = timed
        self.anyHash = anyHash
    }

    /// No question at all: a block needs no history read.
    public var isEmpty: Bool { hashes.isEmpty && !anyHash }

    /// The hashes a prefetch reads: nil for every hash.
    public var prefetched: Set<UInt32>? { anyHash ? nil : hashes }

    /// The questions of both.
    public func union(_ other: HistoryQuestions) -> HistoryQuestions {
        HistoryQuestions(hashes: hashes.union(other.hashes), timed: timed.union(other.timed), anyHash: anyHash || other.anyHash)
    }
}

/// What a store holds for one identity and hash, as a block's prefetch reads it: how many records, the
/// oldest and newest, and, for a hash asked within a window or in order, the times of the newest records.
public struct HistorySlice: Sendable, Hashable {
    /// Whose.
    public var identity: String
    /// Which hash.
    public var hash: UInt32
    /// How many records the store holds (all of them).
    public var count: Int
    /// The oldest record's time, in milliseconds since 1970.
    public var oldest: Double
    /// The newest record's time.
    public var newest: Double
    /// The newest records' times (at most the prefetch's limit), ascending; nil when only counted.
    public var times: [Double]?

    /// A slice of `count` records between `oldest` and `newest`, with their `times` when read.
    public init(identity: String, hash: UInt32, count: Int, oldest: Double, newest: Double, times: [Double]? = nil) {
        self.identity = identity
        self.hash = hash
        self.count = count
        self.oldest = oldest
        self.newest = newest
        self.times = times
    }
}
