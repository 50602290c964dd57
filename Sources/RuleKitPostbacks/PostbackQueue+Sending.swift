// Taking hits to send from the lines in memory (PostbackLines), and removing delivered ones from the file
// in groups: the part of the queue that runs once per postback.
public import Foundation
internal import GRDB
internal import RuleKitCore

extension PostbackQueue {
    /// The receivers whose line has a hit due at `now` and no worker, now claimed for one (each is then
    /// taken from until `take` answers nothing). Lines that are empty, loaded whole and idle are forgotten.
    func claim(now: Double) -> [String] {
        lines.withLock { l in
            var claimed: [String] = []
            for (name, line) in l.lines where !line.working {
                if let head = line.head {
                    guard head.nextAt <= now else { continue }
                } else if line.complete, line.inFlight == 0 {
                    l.lines[name] = nil
                    continue
                }
                l.lines[name]?.working = true
                claimed.append(name)
            }
            return claimed
        }
    }

    /// Hits due at `now` from the head of `receiver`'s line (claimed by the caller), in order, so that at
    /// most `inFlight` are unanswered; none due and none in flight releases the claim (and removes what was
    /// delivered from the file).
    ///
    /// - Throws: the database's error.
    func take(_ receiver: String, now: Double, inFlight limit: Int) throws -> [QueuedPostback] {
        for attempt in 0..<2 {
            let (taken, refill, idle) = lines.withLock { l -> ([QueuedPostback], Bool, Bool) in
                guard var line = l.lines[receiver] else { return ([], false, true) }
                var out: [QueuedPostback] = []
                while line.inFlight + out.count < limit, let head = line.head, head.nextAt <= now, let h = line.popHead() {
                    out.append(h)
                }
                line.inFlight += out.count
                let refill = out.isEmpty && line.isEmpty && !line.complete && attempt == 0
                let idle = out.isEmpty && !refill && line.inFlight == 0
                if idle { line.working = false }
                l.lines[receiver] = line
                return (out, refill, idle)
            }
            if !taken.isEmpty { return taken }
            if refill {
                try self.refill(receiver)
                continue
            }
            if idle { try flush() }
            break
        }
        return []
    }

    /// A hit taken from `receiver`'s line was answered (its outcome written).
    func finish(_ receiver: String) {
        lines.withLock { l in
            if let n = l.lines[receiver]?.inFlight, n > 0 { l.lines[receiver]?.inFlight = n - 1 }
        }
    }

    /// Nothing waits, in memory or in the file, and nothing is in flight.
    public var isIdle: Bool {
        lines.withLock { l in l.lines.values.allSatisfy { $0.isEmpty && $0.complete && $0.inFlight == 0 } }
    }

    /// Gives up a claim (a worker that stops on an error).
    func release(_ receiver: String) {
        lines.withLock { l in l.lines[receiver]?.working = false }
    }

    /// Loads the next rows of `receiver`'s line from the file (under the writer: no hit is queued meanwhile).
    func refill(_ receiver: String) throws {
        let window = self.window
        try db.write { db in
            let after = lines.withLock { $0.lines[receiver]?.lastLoaded ?? 0 }
            let rows = try Row.fetchAll(
                db, sql: "SELECT * FROM postbacks WHERE receiver = ? AND seq > ? ORDER BY seq LIMIT ?",
                arguments: [receiver, after, window])
            lines.withLock { l in
                guard var line = l.lines[receiver] else { return }
                line.complete = true
                for row in rows { line.append(Self.item(row), window: window) }
                if rows.count >= window { line.complete = false }
                l.lines[receiver] = line
            }
        }
    }

    /// The heads due at `now` (one per receiver), without claiming them.
    public func due(now: Double = Date().timeIntervalSince1970) throws -> [QueuedPostback] {
        lines.withLock { l in l.lines.values.compactMap(\.head).filter { $0.nextAt <= now }.sorted { $0.seq < $1.seq } }
    }

    /// The earliest time any head is due (nil: the queue is empty; now: a line must be read from the file).
    public func nextDue(now: Double = Date().timeIntervalSince1970) throws -> Double? {
        let (next, unread) = lines.withLock { l in
            (l.lines.values.compactMap(\.head?.nextAt).min(), l.lines.values.contains { $0.isEmpty && !$0.complete })
        }
        if unread { return now }
        if next == nil { try flush() }
        return next
    }

    /// `seq` was delivered: it leaves the queue (the file's row in the next group).
    public func delivered(_ seq: Int64) throws {
        let full = lines.withLock { l in
            l.delivered.append(seq)
            return l.delivered.count >= Self.deleteGroup
        }
        if full { try flush() }
    }

    /// Removes the delivered hits' rows from the file.
    public func flush() throws {
        // One flush at a time, the list taken inside: a flush that finds the list empty because another
        // took it waits for that one's commit, so every delivery recorded before a flush is out of the file
        // when it returns (a run read its depth between the two and said its queue was not delivered).
        try flushing.withLock { _ in
            let seqs = lines.withLock { l in
                defer { l.delivered = [] }
                return l.delivered
            }
            guard !seqs.isEmpty else { return }
            do {
                try db.write { db in
                    let statement = try db.cachedStatement(sql: "DELETE FROM postbacks WHERE seq = ?")
                    for seq in seqs { try statement.execute(arguments: [seq]) }
                }
            } catch {
                lines.withLock { $0.delivered.append(contentsOf: seqs) }
                throw error
            }
        }
    }

    /// Copies the write-ahead log into the file (commits do not: `wal_autocheckpoint` is 0), on a
    /// connection of its own and without waiting on writers; from delivery's loop, off the path that
    /// answers batches.
    func checkpoint() {
        try? checkpointer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)") }
    }
}
