// One owner for a file shared on disk (a SQLite history, a postback queue): whoever keeps state about the
// file in memory must be the only one writing it.
internal import Foundation

/// A file held with `flock` for the life of this object: the one process, and the one object in it, that
/// keeps a file's state. The lock goes with the descriptor (closed at exit, or by `deinit`), so a process
/// that was killed holds nothing. A file of its own beside the database: SQLite's own locks on the database
/// are POSIX locks, which a close of any other descriptor on that file would drop.
public final class FileLock: Sendable {
    private let fd: Int32

    private init(fd: Int32) {
        self.fd = fd
    }

    deinit {
        close(fd)
    }

    /// The lock on `path` (made if missing), or why it cannot be had.
    ///
    /// - Parameters:
    ///   - path: the lock file.
    ///   - code: the diagnostic's code when another holds it.
    ///   - busy: what to tell the user when another holds it.
    /// - Returns: the lock, or the diagnostic.
    public static func take(_ path: String, code: DiagnosticCode, busy: String) -> Result<FileLock, DiagnosticError> {
        let fd = Foundation.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            return .failure(DiagnosticError(.error(code, "cannot open '\(path)': \(String(cString: strerror(errno)).lowercased())")))
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let held = errno == EWOULDBLOCK
            let why = String(cString: strerror(errno)).lowercased()
            close(fd)
            return .failure(DiagnosticError(.error(code, held ? busy : "cannot lock '\(path)': \(why)")))
        }
        return .success(FileLock(fd: fd))
    }
}
