// The queue's lines in memory: each receiver's hits in order, as far as they were loaded, so that delivery
// takes its next hit without reading the database (a read per hit cost more than the send). The database
// stays the truth: a line that grew past `window` stops mirroring new hits (`complete` false) and is
// refilled from the file, by `seq`, once it empties. Only the owner of the file writes it (one server or
// one run), so the mirror and the file agree at every commit; every change is made under the writer.
internal import RuleKitCore

/// One receiver's line.
struct PostbackLine {
    /// Hits loaded and not taken, in `seq` order, from `start`.
    var hits: [QueuedPostback] = []
    var start = 0
    /// The highest `seq` ever loaded: a refill reads after it (`seq` only grows: AUTOINCREMENT).
    var lastLoaded: Int64 = 0
    /// Memory holds every row of this receiver not yet taken (else the file has more after `lastLoaded`).
    var complete = true
    /// A sender owns this line (claimed until nothing is due and nothing in flight).
    var working = false
    /// Hits taken and not answered yet.
    var inFlight = 0

    var isEmpty: Bool { start >= hits.count }
    var count: Int { hits.count - start }
    var head: QueuedPostback? { isEmpty ? nil : hits[start] }

    mutating func append(_ hit: QueuedPostback, window: Int) {
        guard complete, count < window else {
            complete = false
            return
        }
        hits.append(hit)
        lastLoaded = max(lastLoaded, hit.seq)
    }

    mutating func popHead() -> QueuedPostback? {
        guard let h = head else { return nil }
        start += 1
        if start >= 256, start * 2 >= hits.count {
            hits.removeFirst(start)
            start = 0
        }
        return h
    }

    /// Puts a hit back (a retry) in its place by `seq`.
    mutating func putBack(_ hit: QueuedPostback) {
        var i = start
        while i < hits.count, hits[i].seq < hit.seq { i += 1 }
        hits.insert(hit, at: i)
    }

    /// Forgets what is loaded: the next take reads the file again from the first hit not in flight.
    mutating func invalidate() {
        if let h = head { lastLoaded = h.seq - 1 }
        hits = []
        start = 0
        complete = false
    }
}

/// Every line, and the deliveries not yet removed from the file.
struct PostbackLines {
    var lines: [String: PostbackLine] = [:]
    /// Delivered hits whose rows are still in the file (removed in groups; a crash before sends them again,
    /// under the same key).
    var delivered: [Int64] = []
}
