// A byte search through the C library's `memchr`, which scans many bytes per step; the end of a JSON
// object or array found the same way; and a copy of a range of one byte array onto another.
//
// Invariants: the array's storage is lent for the call; `memchr` reads only `from ..< count` of it, or
// only `range` (both checked first), and the pointer it returns, when it finds the byte, lies in that range; nothing keeps
// a pointer. The plain reference is `Collection.firstIndex(of:)`, which `JSONLinesTests` compares it with.
// `containerEnd(at:)` and `stringEnd(at:)` read `p[j]` only for `start <= j < count`; their `memchr` reads
// `count - k` bytes from `k < count`; a quote's backslash run is read backwards from the quote down to the
// string's opening quote, never below it. Their plain references are `containerEndByBytes(at:)` and
// `stringEndByBytes(at:)`, a byte at a time in safe code, which `ByteSearchTests` and the JSON fuzz oracle
// compare them with on generated texts (unclosed strings, escaped quotes, brackets inside strings, starts
// past the end).
// `append(bytesOf:_:)` reads only the range it was given, checked against the source first; its plain
// reference is `append(contentsOf: source[range])`, which the same tests read every line through.
internal import Foundation

extension Array where Element == UInt8 {
    /// The index of the first `byte` at or after `from`, or nil.
    func firstIndex(of byte: UInt8, from: Int) -> Int? {
        precondition(from >= 0 && from <= count, "search start out of range")
        return withUnsafeBufferPointer { b -> Int? in
            guard let base = b.baseAddress, from < b.count else { return nil }
            guard let found = memchr(base + from, Int32(byte), b.count - from) else { return nil }
            return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
        }
    }

    /// The index of the first `byte` in `range`, or nil: the search reads nothing past the range.
    package func firstIndex(of byte: UInt8, in range: Range<Int>) -> Int? {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "search range out of bounds")
        return withUnsafeBufferPointer { b -> Int? in
            guard let base = b.baseAddress, !range.isEmpty else { return nil }
            guard let found = memchr(base + range.lowerBound, Int32(byte), range.count) else { return nil }
            return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
        }
    }

    /// Appends `source[range]`: `append(contentsOf: source[range])` without making a slice (a slice holds
    /// the source's storage: a reference count taken and dropped for every line of a block).
    mutating func append(bytesOf source: [UInt8], _ range: Range<Int>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= source.count, "byte range out of bounds")
        source.withUnsafeBufferPointer { b in append(contentsOf: UnsafeBufferPointer(rebasing: b[range])) }
    }

    /// The index just past the object or array that opens at `start` (its brackets balanced, strings
    /// passed over with their escapes), or nil when `start` holds no `{` or `[`, or the value does not
    /// close. It finds boundaries only: the value is not checked to be JSON. A service splits an array
    /// body into its events with it (`BodyScanner`): with a bounds check per byte and a call per string,
    /// the split was 8.5% of serving an array body, 7.4% in this one loop (perf, serve under wrk).
    package func containerEnd(at start: Int) -> Int? {
        guard start >= 0, start < count, self[start] == UInt8(ascii: "{") || self[start] == UInt8(ascii: "[") else { return nil }
        return withUnsafeBufferPointer { b -> Int? in
            guard let p = b.baseAddress else { return nil }
            let n = b.count
            var depth = 0
            var j = start
            while j < n {
                switch p[j] {
                case UInt8(ascii: "\""):
                    guard let end = Self.stringEnd(p, n, j) else { return nil }
                    j = end
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return j + 1 }
                default:
                    break
                }
                j += 1
            }
            return nil
        }
    }

    /// The index just past the JSON string whose opening quote is at `start`, or nil when `start` holds no
    /// quote or the string does not close. Strings are most of an event's bytes: the closing quote is found
    /// with `memchr`, and a quote after an odd run of backslashes is passed over.
    package func stringEnd(at start: Int) -> Int? {
        guard start >= 0, start < count, self[start] == UInt8(ascii: "\"") else { return nil }
        return withUnsafeBufferPointer { b -> Int? in
            guard let p = b.baseAddress else { return nil }
            return Self.stringEnd(p, b.count, start)
        }
    }

    /// The one scan for a string's end, for `stringEnd(at:)` and `containerEnd(at:)`: `open < n` holds a
    /// quote; reads `p[j]` only for `open < j < n`.
    private static func stringEnd(_ p: UnsafePointer<UInt8>, _ n: Int, _ open: Int) -> Int? {
        var k = open + 1
        while k < n, let found = memchr(p + k, Int32(UInt8(ascii: "\"")), n - k) {
            let q = UnsafeRawPointer(p).distance(to: UnsafeRawPointer(found))
            var m = q - 1
            var backslashes = 0
            while m > open && p[m] == UInt8(ascii: "\\") {
                backslashes += 1
                m -= 1
            }
            if backslashes % 2 == 0 { return q + 1 }
            k = q + 1
        }
        return nil
    }

    /// `stringEnd(at:)` a byte at a time: the plain reference the tests compare it with.
    package func stringEndByBytes(at start: Int) -> Int? {
        guard start >= 0, start < count, self[start] == UInt8(ascii: "\"") else { return nil }
        var j = start + 1
        while j < count {
            switch self[j] {
            case UInt8(ascii: "\\"): j += 2
            case UInt8(ascii: "\""): return j + 1
            default: j += 1
            }
        }
        return nil
    }

    /// `containerEnd(at:)` a byte at a time: the plain reference the tests compare it with.
    package func containerEndByBytes(at start: Int) -> Int? {
        guard start >= 0, start < count, self[start] == UInt8(ascii: "{") || self[start] == UInt8(ascii: "[") else { return nil }
        var depth = 0
        var inString = false
        var j = start
        while j < count {
            let c = self[j]
            if inString {
                if c == UInt8(ascii: "\\") {
                    j += 2
                    continue
                }
                if c == UInt8(ascii: "\"") { inString = false }
            } else {
                switch c {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return j + 1 }
                default: break
                }
            }
            j += 1
        }
        return nil
    }
}
