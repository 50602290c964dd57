// `read(2)` into a Swift array, and `write(2)` from one.
//
// Invariants: the kernel writes through a pointer to `buffer`'s storage lent for the call, at most
// `buffer.count` bytes (the count asked for is clamped to it), and reads through a pointer to `bytes`'
// storage lent for the call, never past its count; nothing keeps either pointer.
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

/// Writes all of `bytes` to `fd`, retrying short writes and interruptions: nil when done, else the
/// `errno` that stopped it (`EPIPE` when the reader went away; ignore `SIGPIPE` to get it rather than die).
package func systemWrite(_ fd: Int32, _ bytes: [UInt8]) -> Int32? {
    bytes.withUnsafeBytes { raw -> Int32? in
        guard let base = raw.baseAddress else { return nil }
        var done = 0
        while done < raw.count {
            #if canImport(Glibc)
                let n = Glibc.write(fd, base + done, raw.count - done)
            #elseif canImport(Musl)
                let n = Musl.write(fd, base + done, raw.count - done)
            #else
                let n = Darwin.write(fd, base + done, raw.count - done)
            #endif
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            done += n
        }
        return nil
    }
}
