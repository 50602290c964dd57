// Invariants:
// 1. The byte pool is written only while a pass runs, and read through pointers lent for one comparison.
// 2. A `UnsafePointer<Value>` handed to `append(of:)` comes from a walk over a borrowed view that is valid
//    for the whole call (see `FlatWalk.swift`).
// The plain reference for every form is the general path (`Conversion` on the resolved `Value`), which
// the trace uses and the oracle tests compare with.
internal import RuleKitCore

/// The converted forms of each slot's value for one pass: its string form lowercased into a byte pool
/// (when ASCII), its integer and double conversions. Each is computed the first time a comparison
/// needs it, then shared by every rule reading that key.
struct SlotForms {
    var stamps: [UInt32] = []
    /// Bit 0: string form ready; bit 1: int ready; bit 2: double ready.
    var ready: [UInt8] = []
    var stringOffset: [Int32] = []
    /// -1 when the string form is not ASCII (comparisons take the String path).
    var stringLength: [Int32] = []
    var ints: [Int64] = []
    var intOK: [Bool] = []
    var doubles: [Double] = []
    var doubleOK: [Bool] = []
    var pool: [UInt8] = []

    mutating func ensure(_ count: Int) {
        guard stamps.count < count else { return }
        let extra = count - stamps.count
        stamps.append(contentsOf: repeatElement(0, count: extra))
        ready.append(contentsOf: repeatElement(0, count: extra))
        stringOffset.append(contentsOf: repeatElement(0, count: extra))
        stringLength.append(contentsOf: repeatElement(0, count: extra))
        ints.append(contentsOf: repeatElement(0, count: extra))
        intOK.append(contentsOf: repeatElement(false, count: extra))
        doubles.append(contentsOf: repeatElement(0, count: extra))
        doubleOK.append(contentsOf: repeatElement(false, count: extra))
    }

    /// A leaf's string form appended to the pool lowercased, read in place: a string's own bytes, another
    /// leaf's `string(x)` form; a container has no entry in the reference's flattened map, so it is "".
    /// Returns its length, or -1 (and appends nothing) when it is not ASCII.
    mutating func appendLowercasedASCII(of v: UnsafePointer<Value>) -> Int {
        let start = pool.count
        Self.append(of: v, to: &pool)
        return keepIfASCII(from: start)
    }

    /// The same for leaf `node` of a tape: a string's bytes, another leaf's `string(x)` form.
    mutating func appendLowercasedASCII(of node: Int, in tape: UnsafeTapeView) -> Int {
        let start = pool.count
        if tape.nodes[node].kind == .string {
            pool.append(contentsOf: tape.bytes(node))
        } else {
            Self.append(Conversion.string(tape.value(at: node)), to: &pool)
        }
        return keepIfASCII(from: start)
    }

    /// The same for a string.
    mutating func appendLowercasedASCII(_ text: String) -> Int {
        let start = pool.count
        Self.append(text, to: &pool)
        return keepIfASCII(from: start)
    }

    private mutating func keepIfASCII(from start: Int) -> Int {
        guard Self.lowercase(&pool, from: start) else {
            pool.removeSubrange(start...)
            return -1
        }
        return pool.count - start
    }

    /// Appends a leaf's string form as bytes (see `appendLowercasedASCII(of:)`).
    static func append(of v: UnsafePointer<Value>, to out: inout [UInt8]) {
        if v.pointee.withLongStringUTF8({ out.append(contentsOf: $0) }) != nil { return }
        switch v.pointee {
        case .string(let s): append(s, to: &out)
        case .object, .array: return
        default: append(Conversion.string(v.pointee), to: &out)
        }
    }

    /// Appends a string's UTF-8 bytes in one copy.
    static func append(_ text: String, to out: inout [UInt8]) {
        if text.utf8.withContiguousStorageIfAvailable({ out.append(contentsOf: $0) }) == nil {
            out.append(contentsOf: text.utf8)
        }
    }

    /// Lowercases `out` from `start` in place; false when those bytes are not all ASCII.
    static func lowercase(_ out: inout [UInt8], from start: Int) -> Bool {
        out.withUnsafeMutableBufferPointer { p in
            var high: UInt8 = 0
            for i in start..<p.count {
                high |= p[i]
                p[i] = CaseInsensitive.lower(p[i])
            }
            return high < 0x80
        }
    }
}
