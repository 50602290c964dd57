// `read(2)` into a Swift array.
//
// Invariants: the kernel writes through a pointer to `buffer`'s storage lent for the call, at most
// `buffer.count` bytes (the count asked for is clamped to it), and nothing keeps the pointer.
#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// Reads up to `count` bytes from `fd` into the start of `buffer`: the number read, 0 at the end, -1 on an
/// error (`errno` says which).
func systemRead(_ fd: Int32, into buffer: inout [UInt8], count: Int) -> Int {
    buffer.withUnsafeMutableBytes { raw in
        #if canImport(Glibc)
            Glibc.read(fd, raw.baseAddress, min(count, raw.count))
        #elseif canImport(Musl)
            Musl.read(fd, raw.baseAddress, min(count, raw.count))
        #else
            Darwin.read(fd, raw.baseAddress, min(count, raw.count))
        #endif
    }
}
