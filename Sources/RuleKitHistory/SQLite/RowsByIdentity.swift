// Where each identity's records sit in the SQLite log (their `seq`, the rowid), kept in memory beside the
// index: an erasure deletes a person's rows by the primary key instead of scanning the whole log, which has
// no index on identity because one would be paid on every write (docs/serving.md, "Privacy").
internal import RuleKitCore

/// Each identity's rows in the log, in the order they were written; keyed as the index keys its series
/// (`InMemoryEventHistory.Who`: the text's comparison was a cold read per record written).
final class RowsByIdentity: Sendable {
    typealias Who = InMemoryEventHistory.Who
    private let rows = Locked<[Who: [Int64]]>([:])
    /// The index whose keys these are.
    private let index: InMemoryEventHistory

    init(keyedAs index: InMemoryEventHistory) {
        self.index = index
    }

    /// Adds rows just written (or read at open), in `seq` order.
    func add(_ written: [(identity: String, seq: Int64)]) {
        add(written.map { (index.who($0.identity), $0.seq) })
    }

    /// Adds rows just written, their identities' keys made already.
    func add(_ written: [(who: Who, seq: Int64)]) {
        guard !written.isEmpty else { return }
        rows.withLock { rows in
            for w in written { rows[w.who, default: []].append(w.seq) }
        }
    }

    /// The rows of `identity`, oldest first.
    func of(_ identity: String) -> [Int64] {
        let who = index.who(identity)
        return rows.withLock { $0[who] ?? [] }
    }

    /// Forgets rows deleted from the log (retention, an erasure).
    func remove(_ gone: [(identity: String, seq: Int64)]) {
        guard !gone.isEmpty else { return }
        var byIdentity: [Who: Set<Int64>] = [:]
        for g in gone { byIdentity[index.who(g.identity), default: []].insert(g.seq) }
        rows.withLock { rows in
            for (who, seqs) in byIdentity {
                rows[who]?.removeAll { seqs.contains($0) }
                if rows[who]?.isEmpty == true { rows[who] = nil }
            }
        }
    }

    /// Rows known, over every identity (tests).
    var count: Int { rows.withLock { $0.values.reduce(0) { $0 + $1.count } } }
}
