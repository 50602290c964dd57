public import Foundation
public import RuleKitCore

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// Named collections of `Value`s in a directory that several processes open at once.
///
/// There is no in-memory copy to go stale: every read goes to the file, and the only cache is a parsed
/// value kept while the file's change stamp (device, inode, size, modification time) is the one it was
/// read from — a write always renames a new file into place, so any change gives a new inode.
/// Writes are atomic (temporary file, fsync, rename, fsync of the directory) and `update` serialises
/// read-modify-write across processes and threads with an advisory lock (`flock`) per collection.
///
/// Each file is a header line `rulekit-shared 1 <FNV-1a 64 of the body, hex> <body length>` followed by the
/// body as JSON; a file whose body does not match its header (truncated, hand-edited, half-copied) is
/// reported as corrupt and never taken for data.
public final class SharedContainer: Sendable {
    /// The container's folder.
    public let directory: URL
    private let cache = Locked<[String: (Stamp, Value)]>([:])

    struct Stamp: Equatable {
        var device: UInt64, inode: UInt64, size: Int64, seconds: Int, nanoseconds: Int
    }

    /// Opens (creating it if needed) the container directory.
    public init(directory: URL) throws(SharedContainerError) {
        self.directory = directory
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw .io(operation: "create the container", path: directory.path, reason: "\(error.localizedDescription)")
        }
    }

    /// Collection names are file names: letters, digits, `.`, `_`, `-`; not starting with a dot.
    public static func isValidName(_ name: String) -> Bool {
        guard let first = name.utf8.first, first != UInt8(ascii: "."), name.utf8.count <= 200 else { return false }
        return name.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2E || c == 0x5F || c == 0x2D
        }
    }

    /// The file that holds `collection`.
    public func path(of collection: String) -> String { directory.appendingPathComponent(collection + ".json").path }

    /// The names of the collections in the container, sorted.
    public func collections() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") && $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
    }

    /// The persisted value of `collection`, or nil when it has never been written.
    public func read(_ collection: String) throws(SharedContainerError) -> Value? {
        try check(collection)
        let p = path(of: collection)
        guard let stamp = Self.stamp(p) else { return nil }
        if let (s, v) = cache.withLock({ $0[collection] }), s == stamp { return v }
        let bytes: [UInt8]
        do { bytes = try ByteInput.readAll(p) } catch {
            if Self.stamp(p) == nil { return nil }
            throw .io(operation: "read", path: p, reason: error.diagnostics.first?.message ?? "unreadable")
        }
        let value = try Self.decode(bytes, path: p)
        cache.withLock { $0[collection] = (stamp, value) }
        return value
    }

    /// Replaces `collection` atomically (under its lock, so it never interleaves with an `update`).
    public func write(_ collection: String, _ value: Value) throws {
        try check(collection)
        try withLock(collection) { () throws(SharedContainerError) in try self.replace(collection, value) }
    }

    /// Read-modify-write under the collection's lock, across threads and processes: no update is lost.
    /// `body` gets the current value (nil if none) and returns the new one. A corrupt current file is an
    /// error: the update does not overwrite what it could not read.
    @discardableResult
    public func update(_ collection: String, _ body: (Value?) throws -> Value) throws -> Value {
        try check(collection)
        return try withLock(collection) { () throws -> Value in
            let new = try body(try self.read(collection))
            try self.replace(collection, new)
            return new
        }
    }

    /// Removes `collection` (under its lock).
    public func remove(_ collection: String) throws {
        try check(collection)
        try withLock(collection) { () throws(SharedContainerError) in
            let p = self.path(of: collection)
            if unlink(p) != 0 && errno != ENOENT {
                throw .io(operation: "remove", path: p, reason: String(cString: strerror(errno)))
            }
        }
    }

    // MARK: files

    private func check(_ collection: String) throws(SharedContainerError) {
        guard Self.isValidName(collection) else { throw .invalidName(collection) }
    }

    static func stamp(_ path: String) -> Stamp? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return Stamp(
            device: UInt64(st.st_dev), inode: UInt64(st.st_ino), size: Int64(st.st_size),
            seconds: Int(st.st_mtim.tv_sec), nanoseconds: Int(st.st_mtim.tv_nsec))
    }

    static let magic = "rulekit-shared 1 "

    static func encode(_ value: Value) -> [UInt8] {
        let body = Array(JSONWriter.string(value).utf8)
        let header = magic + String(fnv1a(body), radix: 16) + " \(body.count)\n"
        return Array(header.utf8) + body
    }

    static func decode(_ bytes: [UInt8], path: String) throws(SharedContainerError) -> Value {
        guard let nl = bytes.firstIndex(of: 0x0A) else { throw .corrupt(path: path, reason: "no header line") }
        let header = String(decoding: bytes[..<nl], as: UTF8.self)
        let parts = header.split(separator: " ")
        guard header.hasPrefix(magic), parts.count == 4, let sum = UInt64(parts[2], radix: 16), let length = Int(parts[3])
        else { throw .corrupt(path: path, reason: "not a RuleKit shared-data file (header '\(header.prefix(60))')") }
        let body = Array(bytes[(nl + 1)...])
        guard body.count == length else {
            throw .corrupt(path: path, reason: "body is \(body.count) bytes, header says \(length) (truncated?)")
        }
        guard fnv1a(body) == sum else { throw .corrupt(path: path, reason: "checksum mismatch") }
        do {
            return try JSONReader.read(body, file: path).value
        } catch {
            throw .corrupt(path: path, reason: "\(error)")
        }
    }

    static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        return h
    }

    /// Temporary file, fsync, rename over the old file, fsync the directory: a reader sees the old file
    /// or the new one, and a crash at any point leaves one of them whole.
    private func replace(_ collection: String, _ value: Value) throws(SharedContainerError) {
        let target = path(of: collection)
        let temp = directory.appendingPathComponent(".\(collection).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp").path
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .io(operation: "create a temporary file", path: temp, reason: String(cString: strerror(errno))) }
        let bytes = Self.encode(value)
        var failure = writeAll(fd, bytes)
        if failure == 0 && fsync(fd) != 0 { failure = errno }
        close(fd)
        if failure != 0 {
            unlink(temp)
            throw .io(operation: "write", path: target, reason: String(cString: strerror(failure)))
        }
        guard rename(temp, target) == 0 else {
            let e = errno
            unlink(temp)
            throw .io(operation: "rename into place", path: target, reason: String(cString: strerror(e)))
        }
        let dfd = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dfd >= 0 {
            fsync(dfd)
            close(dfd)
        }
        if let stamp = Self.stamp(target) { cache.withLock { $0[collection] = (stamp, value) } }
    }

    /// Holds the collection's advisory lock (a `.<name>.lock` file) while `body` runs. `flock` locks belong
    /// to an open file description, so two threads of one process exclude each other as two processes do.
    private func withLock<T, E: Error>(_ collection: String, _ body: () throws(E) -> T) throws -> T {
        let lockPath = directory.appendingPathComponent(".\(collection).lock").path
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw SharedContainerError.io(operation: "open the lock", path: lockPath, reason: String(cString: strerror(errno)))
        }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            if errno != EINTR {
                throw SharedContainerError.io(operation: "lock", path: lockPath, reason: String(cString: strerror(errno)))
            }
        }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }
}

/// Why a container operation failed.
public enum SharedContainerError: Error, CustomStringConvertible, Equatable {
    case invalidName(String)
    case corrupt(path: String, reason: String)
    case io(operation: String, path: String, reason: String)

    /// What failed, with the path.
    public var description: String {
        switch self {
        case .invalidName(let n):
            "'\(n)' is not a collection name (letters, digits, '.', '_', '-'; not starting with '.')"
        case .corrupt(let p, let r): "\(p): corrupt shared data, not used: \(r)"
        case .io(let op, let p, let r): "\(p): cannot \(op): \(r)"
        }
    }
}
