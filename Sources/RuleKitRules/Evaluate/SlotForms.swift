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

    /// The same for a leaf read in place: a string's own bytes, another leaf's `string(x)` form; a
    /// container has no entry in the reference's flattened map, so it is "".
    mutating func appendLowercasedASCII(of v: UnsafePointer<Value>) -> Int {
        if let bytes = v.pointee.unsafeLongStringUTF8 { return appendLowercasedASCII(bytes: bytes) }
        switch v.pointee {
        case .string(let s): return appendLowercasedASCII(s)
        case .object, .array: return 0
        default: return appendLowercasedASCII(Conversion.string(v.pointee))
        }
    }

    /// Appends `text` lowercased when it is ASCII and returns its length; otherwise appends nothing and
    /// returns -1 (comparisons then take the `String` path). One copy, then one pass in place.
    mutating func appendLowercasedASCII(_ text: String) -> Int {
        let start = pool.count
        let appended: Bool? = text.utf8.withContiguousStorageIfAvailable { b in
            pool.append(contentsOf: b)
            return true
        }
        if appended == nil { pool.append(contentsOf: text.utf8) }
        return lowercaseASCII(from: start)
    }

    mutating func appendLowercasedASCII(bytes: UnsafeBufferPointer<UInt8>) -> Int {
        let start = pool.count
        pool.append(contentsOf: bytes)
        return lowercaseASCII(from: start)
    }

    /// Lowercases the pool from `start` when it is ASCII and returns its length; otherwise drops it and
    /// returns -1.
    private mutating func lowercaseASCII(from start: Int) -> Int {
        let ascii = pool.withUnsafeMutableBufferPointer { p in
            var high: UInt8 = 0
            for i in start..<p.count {
                let b = p[i]
                high |= b
                p[i] = CaseInsensitive.lower(b)
            }
            return high < 0x80
        }
        if !ascii {
            pool.removeSubrange(start...)
            return -1
        }
        return pool.count - start
    }

    /// `text` lowercased into `out` when it is ASCII (false otherwise, `out` then undefined).
    static func lowercasedASCII(_ text: String, into out: inout [UInt8]) -> Bool {
        if text.utf8.withContiguousStorageIfAvailable({ out.append(contentsOf: $0) }) == nil {
            out.append(contentsOf: text.utf8)
        }
        return lowercaseInPlace(&out)
    }

    /// A leaf's string form read in place (see `appendLowercasedASCII(of:)`), into `out`.
    static func lowercasedASCII(of v: UnsafePointer<Value>, into out: inout [UInt8]) -> Bool {
        if let bytes = v.pointee.unsafeLongStringUTF8 {
            out.append(contentsOf: bytes)
            return lowercaseInPlace(&out)
        }
        switch v.pointee {
        case .string(let s): return lowercasedASCII(s, into: &out)
        case .object, .array: return true
        default: return lowercasedASCII(Conversion.string(v.pointee), into: &out)
        }
    }

    private static func lowercaseInPlace(_ out: inout [UInt8]) -> Bool {
        out.withUnsafeMutableBufferPointer { p in
            var high: UInt8 = 0
            for i in p.indices {
                high |= p[i]
                p[i] = CaseInsensitive.lower(p[i])
            }
            return high < 0x80
        }
    }
}
