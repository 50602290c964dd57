// The container's system calls on Swift arrays: writing a whole file, reading inotify events.
//
// Invariants: each call lends the array's storage to the kernel or to the parser for the call only
// (`withUnsafeBytes`); a write never goes past the array's count, a read never past its capacity, and an
// inotify record is parsed only when its header and name lie inside the bytes read.
#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// Writes all of `bytes` to `fd`, retrying after interruptions: 0, or the `errno` that stopped it.
func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Int32 {
    var written = 0
    var failure: Int32 = 0
    bytes.withUnsafeBytes { raw in
        while written < raw.count, let base = raw.baseAddress {
            let n = write(fd, base + written, raw.count - written)
            if n < 0 {
                if errno == EINTR { continue }
                failure = errno
                return
            }
            written += n
        }
    }
    return failure
}

/// `read(2)` into `buffer` (up to its count): the number of bytes read, or -1.
func readSome(_ fd: Int32, into buffer: inout [UInt8]) -> Int {
    buffer.withUnsafeMutableBytes { raw in raw.baseAddress.map { read(fd, $0, raw.count) } ?? -1 }
}

#if canImport(Glibc)
    /// The collections (`name.json` files, hidden files aside) named by the inotify records in
    /// `buffer[0..<count]`, each once, in order.
    func changedCollections(in buffer: [UInt8], count n: Int) -> [String] {
        let headerSize = MemoryLayout<inotify_event>.size
        var changed: [String] = []
        var offset = 0
        buffer.withUnsafeBytes { raw in
            while offset + headerSize <= min(n, raw.count) {
                let len = Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                let nameStart = offset + headerSize
                let nameBytes = raw[nameStart..<min(nameStart + len, n)].prefix { $0 != 0 }
                let name = String(decoding: nameBytes, as: UTF8.self)
                if !name.hasPrefix("."), name.hasSuffix(".json") {
                    let c = String(name.dropLast(5))
                    if !changed.contains(c) { changed.append(c) }
                }
                offset = nameStart + len
            }
        }
        return changed
    }
#endif
