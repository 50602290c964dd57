// Where each identity's records sit in the SQLite log (their `seq`, the rowid), kept in memory beside the
// index: an erasure deletes a person's rows by the primary key instead of scanning the whole log, which has
// no index on identity because one would be paid on every write (docs/serving.md, "Privacy").
internal import RuleKitCore

/// Each identity's rows in the log, in the order they were written.
final class RowsByIdentity: Sendable {
    private let rows = Locked<[String: [Int64]]>([:])

    /// Adds rows just written (or read at open), in `seq` order.
    func add(_ written: [(identity: String, seq: Int64)]) {
        guard !written.isEmpty else { return }
        rows.withLock { rows in
            for w in written { rows[w.identity, default: []].append(w.seq) }
        }
    }

    /// The rows of `identity`, oldest first.
    func of(_ identity: String) -> [Int64] { rows.withLock { $0[identity] ?? [] } }

    /// Forgets rows deleted from the log (retention, an erasure).
    func remove(_ gone: [(identity: String, seq: Int64)]) {
        guard !gone.isEmpty else { return }
        var byIdentity: [String: Set<Int64>] = [:]
        for g in gone { byIdentity[g.identity, default: []].insert(g.seq) }
        rows.withLock { rows in
            for (identity, seqs) in byIdentity {
                rows[identity]?.removeAll { seqs.contains($0) }
                if rows[identity]?.isEmpty == true { rows[identity] = nil }
            }
        }
    }

    /// Rows known, over every identity (tests).
    var count: Int { rows.withLock { $0.values.reduce(0) { $0 + $1.count } } }
}
