package import struct Foundation.UUID

/// A hash table of integers keyed by event id, for the hub's per-event bookkeeping (which block an event belongs to).
///
/// A `Dictionary<UUID, _>` hashes the id's 16 bytes with SipHash on every insert, lookup and removal, and
/// the hub does several of each per event: that was a tenth of a run's time. An id is already 128 bits,
/// random for the ids the hub makes, so one multiply-and-fold mix keyed with a per-table random seed
/// spreads them; ids chosen by an input (`"id"` of a JSON line) cannot be aimed at one slot without the
/// seed. Open addressing with linear probing, at most half full, removal by shifting the run back (no
/// tombstones, so a table that fills and empties per block never degrades).
package struct EventIDTable: Sendable {
    private struct Slot {
        var hi: UInt64
        var lo: UInt64
        var value: Int?
    }

    private var slots: [Slot]
    private var mask: Int
    private let seed: UInt64
    package private(set) var count = 0

    package init() {
        slots = Array(repeating: Slot(hi: 0, lo: 0, value: nil), count: 16)
        mask = 15
        seed = UInt64.random(in: .min ... .max) | 1
    }

    package var isEmpty: Bool { count == 0 }

    package subscript(id: UUID) -> Int? {
        get {
            let (i, found) = find(id)
            return found ? slots[i].value : nil
        }
        set {
            let (i, found) = find(id)
            if let newValue {
                slots[i].value = newValue
                if found { return }
                (slots[i].hi, slots[i].lo) = Self.words(id)
                count += 1
                if count * 2 > slots.count { grow() }
            } else if found {
                remove(at: i)
            }
        }
    }

    /// The number kept for `id` (0 when none), and `id` counted on by one: a counter in one probe.
    package mutating func postIncrement(_ id: UUID) -> Int {
        let (i, found) = find(id)
        if found, let n = slots[i].value {
            slots[i].value = n &+ 1
            return n
        }
        slots[i].value = 1
        (slots[i].hi, slots[i].lo) = Self.words(id)
        count += 1
        if count * 2 > slots.count { grow() }
        return 0
    }

    /// Where `id` is, or the empty slot that ends its probe run (where it would go).
    private func find(_ id: UUID) -> (index: Int, found: Bool) {
        let (hi, lo) = Self.words(id)
        var i = home(hi, lo)
        while slots[i].value != nil {
            if slots[i].hi == hi && slots[i].lo == lo { return (i, true) }
            i = (i + 1) & mask
        }
        return (i, false)
    }

    private mutating func remove(at i: Int) {
        count -= 1
        // Backward shift: each later entry of the run moves into the hole unless its home lies cyclically
        // after the hole (then it is still reachable from its home without crossing the hole).
        var hole = i
        var j = (i + 1) & mask
        while slots[j].value != nil {
            let h = home(slots[j].hi, slots[j].lo)
            if (j - h) & mask >= (j - hole) & mask {
                slots[hole] = slots[j]
                hole = j
            }
            j = (j + 1) & mask
        }
        slots[hole].value = nil
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: Slot(hi: 0, lo: 0, value: nil), count: old.count * 2)
        mask = slots.count - 1
        for s in old where s.value != nil {
            var i = home(s.hi, s.lo)
            while slots[i].value != nil { i = (i + 1) & mask }
            slots[i] = s
        }
    }

    @inline(__always)
    private func home(_ hi: UInt64, _ lo: UInt64) -> Int {
        var h = (hi ^ seed) &* 0x9E37_79B9_7F4A_7C15
        h = (h ^ lo ^ (h >> 29)) &* 0xBF58_476D_1CE4_E5B9
        h ^= h >> 32
        return Int(truncatingIfNeeded: h) & mask
    }

    @inline(__always)
    private static func words(_ id: UUID) -> (UInt64, UInt64) {
        let u = id.uuid
        let hi =
            UInt64(u.0) << 56 | UInt64(u.1) << 48 | UInt64(u.2) << 40 | UInt64(u.3) << 32 | UInt64(u.4) << 24
            | UInt64(u.5) << 16 | UInt64(u.6) << 8 | UInt64(u.7)
        let lo =
            UInt64(u.8) << 56 | UInt64(u.9) << 48 | UInt64(u.10) << 40 | UInt64(u.11) << 32 | UInt64(u.12) << 24
            | UInt64(u.13) << 16 | UInt64(u.14) << 8 | UInt64(u.15)
        return (hi, lo)
    }
}
