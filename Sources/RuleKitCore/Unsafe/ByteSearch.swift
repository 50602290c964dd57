// A byte search through the C library's `memchr`, which scans many bytes per step, and a copy of a range
// of one byte array onto another.
//
// Invariants: the array's storage is lent for the call; `memchr` reads only `from ..< count` of it, or
// only `range` (both checked first), and the pointer it returns, when it finds the byte, lies in that range; nothing keeps
// a pointer. The plain reference is `Collection.firstIndex(of:)`, which `JSONLinesTests` compares it with.
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
}
