// A byte search through the C library's `memchr`, which scans many bytes per step.
//
// Invariants: the array's storage is lent for the call; `memchr` reads only `from ..< count` of it (both
// checked first), and the pointer it returns, when it finds the byte, lies in that range; nothing keeps
// a pointer. The plain reference is `Collection.firstIndex(of:)`, which `JSONLinesTests` compares it with.
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
}
