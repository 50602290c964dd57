public import Foundation
internal import RuleKitCore

#if canImport(Glibc)
    internal import Glibc
#endif

/// Tells a process when a collection of a container changed — whoever changed it, this process or another.
///
/// On Linux it listens with inotify for files renamed into the directory or removed from it (every write
/// is a rename, so one change is one notification); where inotify is unavailable (or `polling` is asked
/// for) it compares the collections' change stamps every `interval`. Changes are reported by collection
/// name on the watcher's own thread; `stop()` ends it.
public final class SharedContainerWatcher: Sendable {
    /// How changes are noticed.
    public enum Mode: Sendable { case inotify, polling }

    /// How this watcher notices changes.
    public let mode: Mode
    private let stopped = Locked(false)
    private let finished = DispatchSemaphore(value: 0)

    /// Starts watching `container`; `onChange` gets each changed collection's name.
    public init(
        container: SharedContainer, polling: Bool = false, interval: TimeInterval = 0.1,
        onChange: @escaping @Sendable (String) -> Void
    ) {
        let dir = container.directory.path
        #if canImport(Glibc)
            if !polling, let fd = Self.inotify(dir) {
                mode = .inotify
                let stopped = self.stopped
                let finished = self.finished
                Thread.detachNewThread {
                    Self.readInotify(fd: fd, stopped: stopped, onChange: onChange)
                    close(fd)
                    finished.signal()
                }
                return
            }
        #endif
        mode = .polling
        let stopped = self.stopped
        let finished = self.finished
        Thread.detachNewThread {
            var seen: [String: SharedContainer.Stamp] = [:]
            for c in container.collections() { seen[c] = SharedContainer.stamp(container.path(of: c)) }
            while !stopped.withLock({ $0 }) {
                Thread.sleep(forTimeInterval: interval)
                var now: [String: SharedContainer.Stamp] = [:]
                for c in container.collections() { now[c] = SharedContainer.stamp(container.path(of: c)) }
                for (c, s) in now where seen[c] != s { onChange(c) }
                for c in seen.keys where now[c] == nil { onChange(c) }
                seen = now
            }
            finished.signal()
        }
    }

    /// Stops watching and waits for the watcher's thread to end (at most one poll interval).
    public func stop() {
        let first = stopped.withLock { s -> Bool in
            defer { s = true }
            return !s
        }
        if first { finished.wait() }
    }

    deinit { stop() }

    #if canImport(Glibc)
        private static func inotify(_ dir: String) -> Int32? {
            let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            guard fd >= 0 else { return nil }
            let mask = UInt32(IN_MOVED_TO) | UInt32(IN_CLOSE_WRITE) | UInt32(IN_DELETE) | UInt32(IN_MOVED_FROM)
            guard inotify_add_watch(fd, dir, mask) >= 0 else {
                close(fd)
                return nil
            }
            return fd
        }

        private static func readInotify(fd: Int32, stopped: Locked<Bool>, onChange: @Sendable (String) -> Void) {
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while !stopped.withLock({ $0 }) {
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                // A short time-out, so `stop()` is noticed promptly.
                guard poll(&p, 1, 50) > 0 else { continue }
                let n = readSome(fd, into: &buffer)
                guard n > 0 else { continue }
                let changed = changedCollections(in: buffer, count: n)
                for c in changed { onChange(c) }
            }
        }
    #endif
}
