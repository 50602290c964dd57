// `read(2)` into a Swift array, and `write(2)` from one.
//
// Invariants: the kernel writes through a pointer to `buffer`'s spare capacity lent for the call, at most
// the room lent (the count asked for is clamped to it), and reads through a pointer to `bytes`'
// storage lent for the call, never past its count; nothing keeps either pointer. A new array read into
// while uninitialized counts as initialized only the bytes the kernel reported written.
#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// `read(2)` of the platform's C library.
private func platformRead(_ fd: Int32, _ p: UnsafeMutableRawPointer?, _ n: Int) -> Int {
    #if canImport(Glibc)
        Glibc.read(fd, p, n)
    #elseif canImport(Musl)
        Musl.read(fd, p, n)
    #else
        Darwin.read(fd, p, n)
    #endif
}

/// `write(2)` of the platform's C library.
private func platformWrite(_ fd: Int32, _ p: UnsafeRawPointer?, _ n: Int) -> Int {
    #if canImport(Glibc)
        Glibc.write(fd, p, n)
    #elseif canImport(Musl)
        Musl.write(fd, p, n)
    #else
        Darwin.write(fd, p, n)
    #endif
}

/// Reads up to `count` bytes from `fd` straight onto the end of `buffer` (into its spare capacity, grown
/// if need be: no chunk read and then copied): the number read, 0 at the end, -1 on an error (`errno`
/// says which).
package func systemRead(_ fd: Int32, appendingTo buffer: inout [UInt8], count: Int) -> Int {
    guard count > 0 else { return 0 }
    var result = 0
    buffer.append(addingCapacity: count) { span in
        span.withUnsafeMutableBufferPointer { free, initialized in
            result = platformRead(fd, free.baseAddress, min(count, free.count))
            if result > 0 { initialized = result }
        }
    }
    return result
}

/// Reads from `fd` until the end or until `capacity` bytes, straight into a new array of that capacity
/// (no chunk copied, no growth): the bytes read, and the `errno` of a read that failed (nil at the end or
/// when full).
func systemRead(_ fd: Int32, upTo capacity: Int) -> (bytes: [UInt8], error: Int32?) {
    var failure: Int32?
    let bytes = [UInt8](unsafeUninitializedCapacity: max(capacity, 0)) { buffer, count in
        guard let base = buffer.baseAddress else { return }
        while count < buffer.count {
            let n = platformRead(fd, base + count, buffer.count - count)
            if n > 0 {
                count += n
            } else if n == 0 {
                return
            } else if errno != EINTR {
                failure = errno
                return
            }
        }
    }
    return (bytes, failure)
}

/// Writes all of `bytes` to `fd`, retrying short writes and interruptions: nil when done, else the
/// `errno` that stopped it (`EPIPE` when the reader went away; ignore `SIGPIPE` to get it rather than die).
package func systemWrite(_ fd: Int32, _ bytes: [UInt8]) -> Int32? {
    bytes.withUnsafeBytes { raw -> Int32? in
        guard let base = raw.baseAddress else { return nil }
        var done = 0
        while done < raw.count {
            let n = platformWrite(fd, base + done, raw.count - done)
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            done += n
        }
        return nil
    }
}

/// Waits up to `milliseconds` (negative: without end) for `fd` to have something to read or to be hung
/// up: true when it has, false when the time ran out, nil on an error. The kernel reads one `pollfd`
/// lent for the call.
func systemWaitReadable(_ fd: Int32, milliseconds: Int32) -> Bool? {
    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    while true {
        let n = poll(&p, 1, milliseconds)
        if n > 0 { return true }
        if n == 0 { return false }
        if errno != EINTR { return nil }
    }
}
