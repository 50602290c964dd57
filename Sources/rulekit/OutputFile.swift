import ArgumentParser
import Foundation
import RuleKitCore

#if canImport(Glibc)
    import Glibc
#endif

/// Where a command's finished output goes: `-` is standard output; a regular file (or a new one) is
/// written whole or not at all — to a temporary file beside it, flushed to disk, then renamed over it, so
/// that a full disk or a killed process never leaves half a file where a whole one was; anything else (a
/// device, a FIFO) is written in place. Every failure is an error naming the destination, exit 2.
enum OutputFile {
    static func write(_ bytes: [UInt8], to path: String) throws {
        if path == "-" {
            Stdout.write(bytes)
            return
        }
        var st = stat()
        let exists = stat(path, &st) == 0
        if exists, (st.st_mode & S_IFMT) == S_IFDIR { fail(path, "it is a folder") }
        if exists, (st.st_mode & S_IFMT) != S_IFREG {
            let fd = open(path, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { fail(path, errno) }
            if let e = systemWrite(fd, bytes) {
                close(fd)
                fail(path, e)
            }
            if close(fd) != 0 { fail(path, errno) }
            return
        }
        let dir = PathText.directory(of: path)
        let temp = PathText.join(dir, ".\(PathText.lastComponent(of: path)).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp")
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, exists ? st.st_mode & 0o7777 : 0o644)
        guard fd >= 0 else { fail(path, errno) }
        func abandon(_ e: Int32) -> Never {
            close(fd)
            unlink(temp)
            fail(path, e)
        }
        if let e = systemWrite(fd, bytes) { abandon(e) }
        if fsync(fd) != 0 { abandon(errno) }
        if close(fd) != 0 {
            let e = errno
            unlink(temp)
            fail(path, e)
        }
        if rename(temp, path) != 0 {
            let e = errno
            unlink(temp)
            fail(path, e)
        }
    }

    static func fail(_ path: String, _ e: Int32) -> Never {
        fail(path, String(cString: strerror(e)))
    }

    static func fail(_ path: String, _ why: String) -> Never {
        Stderr.write("error: cannot write '\(path)': \(why)\n")
        exit(2)
    }
}

extension Stdout {
    /// `print`, through the checked writer: a failed write is an error (exit 2), never output lost quietly.
    static func print(_ text: String, terminator: String = "\n") {
        write(Array((text + terminator).utf8))
    }

    /// Closes standard output and reports a failure a write could not see (a file system that reports at
    /// close); called once, at a successful end. Every write of the tool goes through `write` (no stdio
    /// buffer is left to flush).
    static func close() {
        if Glibc.close(STDOUT_FILENO) != 0, errno != EBADF, errno != EINTR {
            Stderr.write("error: cannot write to standard output: \(String(cString: strerror(errno)))\n")
            exit(2)
        }
    }
}
