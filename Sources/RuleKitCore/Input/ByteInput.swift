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

    /// How long a FIFO named as a file may stay silent before its first byte: `RULEKIT_INPUT_WAIT` seconds
    /// (0: without end), 10 by default. A FIFO is read as a stream (process substitution, `<(cmd)`, is
    /// one), but one that nobody writes to would otherwise hang the command for ever.
    public static let fifoWaitMilliseconds: Int32 = {
        guard let text = getenv("RULEKIT_INPUT_WAIT").map({ String(cString: $0) }), let seconds = Double(text),
            seconds.isFinite, seconds >= 0
        else { return 10_000 }
        return seconds == 0 ? -1 : Int32(min(seconds * 1000, Double(Int32.max)))
    }()

    /// Opens `path` for reading (`-`: standard input). A folder, a socket, a missing file, one that cannot be
    /// opened, and a FIFO nothing is written to within `fifoWaitMilliseconds` are `input.unreadable` errors
    /// naming it. Devices and FIFOs are read as streams, under the same size limit as files.
    public init(path: String) throws(DiagnosticError) {
        self.path = path
        if path == "-" {
            fd = 0
            owned = false
            name = "<stdin>"
            mayPause = Self.mayPause(0)
            return
        }
        name = path
        // Without O_NONBLOCK, opening a FIFO waits for a writer, with no time limit.
        let f = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard f >= 0 else { throw Self.failure(path, errno: errno) }
        var st = stat()
        guard fstat(f, &st) == 0 else {
            let e = errno
            close(f)
            throw Self.failure(path, errno: e)
        }
        switch st.st_mode & S_IFMT {
        case S_IFDIR:
            close(f)
            throw DiagnosticError(.error(.unreadable, "'\(path)' is a folder, not a file"))
        case S_IFSOCK:
            close(f)
            throw DiagnosticError(.error(.unreadable, "'\(path)' is a socket, not a file"))
        case S_IFIFO:
            let wait = Self.fifoWaitMilliseconds
            guard let ready = systemWaitReadable(f, milliseconds: wait) else {
                let e = errno
                close(f)
                throw Self.failure(path, errno: e)
            }
            guard ready else {
                close(f)
                throw DiagnosticError(
                    .error(
                        .unreadable,
                        "'\(path)' is a FIFO and nothing was written to it within \(Double(wait) / 1000) s (RULEKIT_INPUT_WAIT sets the wait)"
                    ))
            }
        default: break
        }
        // Reads block from here on: a stream that has begun is read to its end.
        _ = fcntl(f, F_SETFL, fcntl(f, F_GETFL) & ~O_NONBLOCK)
        fd = f
        owned = true
        mayPause = (st.st_mode & S_IFMT) != S_IFREG
    }

    deinit {
        if owned { close(fd) }
    }

    /// Whether the input is a stream that may pause (a pipe, a terminal, a FIFO, a socket), where a
    /// regular file never does.
    public let mayPause: Bool

    static func mayPause(_ fd: Int32) -> Bool {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return false }
        return (st.st_mode & S_IFMT) != S_IFREG
    }

    /// Whether a read would return at once, or does within `milliseconds`: false when the input paused
    /// that long (a regular file never pauses). An error reads as ready: the read that follows reports it.
    public func readable(within milliseconds: Int32) -> Bool {
        guard mayPause else { return true }
        return systemWaitReadable(fd, milliseconds: milliseconds) ?? true
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
        case ENXIO: why = "'\(path)' is a socket or a device with nothing behind it, not a file"
        default: why = "cannot read '\(path)': \(String(cString: strerror(e)))"
        }
        return DiagnosticError(.error(.unreadable, why))
    }
}
