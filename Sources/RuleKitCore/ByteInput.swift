#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// A file or standard input read in chunks, with every failure a diagnostic and a size limit applied
/// while reading.
///
/// Every reader of user files goes through here, so that a folder given as a file, a FIFO, `/dev/zero`
/// or an unreadable path is a clear `input.unreadable` / `input.limit-exceeded` error and never a trap,
/// and standard input is never read whole before its limit is checked.
///
/// ```swift
/// let bytes = try ByteInput.readAll("rules.json", limit: ReaderLimits.default.maxDocumentBytes)
/// ```
public final class ByteInput {
    /// The path as given (`-` for standard input).
    public let path: String
    /// The name diagnostics use (`<stdin>` for standard input).
    public let name: String
    private let fd: Int32
    private let owned: Bool

    /// Opens `path` for reading (`-`: standard input). A folder, a missing file or one that cannot be
    /// opened is an `input.unreadable` error naming it.
    public init(path: String) throws(DiagnosticError) {
        self.path = path
        if path == "-" {
            fd = 0
            owned = false
            name = "<stdin>"
        } else {
            name = path
            let f = open(path, O_RDONLY | O_CLOEXEC)
            guard f >= 0 else { throw Self.failure(path, errno: errno) }
            var st = stat()
            if fstat(f, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
                close(f)
                throw DiagnosticError(.error(.unreadable, "'\(path)' is a folder, not a file"))
            }
            fd = f
            owned = true
        }
    }

    deinit {
        if owned { close(fd) }
    }

    /// Appends up to `count` bytes to `buffer`; 0 at the end of the input.
    public func read(into buffer: inout [UInt8], count: Int) throws(DiagnosticError) -> Int {
        guard count > 0 else { return 0 }
        while true {
            let n = systemRead(fd, appendingTo: &buffer, count: count)
            if n >= 0 { return n }
            let e = errno
            if e != EINTR { throw Self.failure(path, errno: e) }
        }
    }

    /// The whole input, or an `input.limit-exceeded` error as soon as more than `limit` bytes arrive
    /// (so `/dev/zero` costs at most `limit` bytes of memory).
    public func readAll(limit: Int) throws(DiagnosticError) -> [UInt8] {
        var out: [UInt8] = []
        func tooLarge() -> DiagnosticError {
            DiagnosticError(
                .error(
                    .limitExceeded, "'\(name)' is larger than the limit of \(limit) bytes",
                    at: SourceLocation(file: name, line: 1, column: 1)))
        }
        // A regular file says its size: its bytes are read straight into one array of that size and one
        // more byte (a byte more means it grew: the loop below reads on). Other inputs grow the array.
        var st = stat()
        if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, Int(st.st_size) <= limit {
            let capacity = Int(st.st_size) + 1
            let (bytes, error) = systemRead(fd, upTo: capacity)
            if let error { throw Self.failure(path, errno: error) }
            if bytes.count < capacity { return bytes }
            if bytes.count > limit { throw tooLarge() }
            out = bytes
        }
        let chunk = 1 << 16
        while true {
            let room = limit - out.count
            // Ask for one byte past the limit so an input of exactly `limit` bytes is accepted.
            let n = try read(into: &out, count: min(chunk, room + 1))
            if n == 0 { return out }
            if out.count > limit { throw tooLarge() }
        }
    }

    /// The whole of `path` (`-`: standard input), at most `limit` bytes.
    public static func readAll(_ path: String, limit: Int = ReaderLimits.default.maxDocumentBytes)
        throws(DiagnosticError) -> [UInt8]
    {
        try ByteInput(path: path).readAll(limit: limit)
    }

    static func failure(_ path: String, errno e: Int32) -> DiagnosticError {
        let why: String
        switch e {
        case ENOENT: why = "no such file '\(path)'"
        case EISDIR: why = "'\(path)' is a folder, not a file"
        case EACCES, EPERM: why = "permission denied reading '\(path)'"
        default: why = "cannot read '\(path)': \(String(cString: strerror(e)))"
        }
        return DiagnosticError(.error(.unreadable, why))
    }
}
