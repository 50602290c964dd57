// Replacing a file whole: a temporary file beside it, written, flushed to disk, renamed over it, and the
// folder flushed, so that a reader sees the old file or the new one and a crash at any point (a kill in
// the middle of a download's write included) leaves one of them whole, never half of the new one.
#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// Whole-file replacement (`write(_:to:mode:)`).
public enum AtomicFile {
    /// Writes `bytes` as the file `path`, replacing what was there in one step.
    ///
    /// - Parameters:
    ///   - bytes: the file's new content.
    ///   - path: the file; its folder must exist.
    ///   - mode: the permissions of a new file.
    /// - Throws: `input.unreadable` naming `path` and the system's reason; the old file is then untouched.
    public static func write(_ bytes: [UInt8], to path: String, mode: UInt32 = 0o644) throws(DiagnosticError) {
        let dir = PathText.directory(of: path)
        let temp = PathText.join(dir, ".\(PathText.lastComponent(of: path)).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp")
        func fail(_ e: Int32) -> DiagnosticError {
            DiagnosticError(.error(.unreadable, "cannot write '\(path)': \(String(cString: strerror(e)))"))
        }
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(mode))
        guard fd >= 0 else { throw fail(errno) }
        var failure = systemWrite(fd, bytes) ?? 0
        if failure == 0, fsync(fd) != 0 { failure = errno }
        if close(fd) != 0, failure == 0 { failure = errno }
        if failure == 0, rename(temp, path) != 0 { failure = errno }
        if failure != 0 {
            unlink(temp)
            throw fail(failure)
        }
        let dfd = open(dir.isEmpty ? "." : dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dfd >= 0 {
            fsync(dfd)
            close(dfd)
        }
    }
}
